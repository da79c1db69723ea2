/**
 * Finding the CometBFT binary a node runs: the one named (`--cometbft`), else `XUPGRADE_COMETBFT`, else
 * `cometbft` on PATH, else the newest v0.38 that `npm run peers` built into its cache folder
 * (`$XUPGRADE_PEERS_DIR`, default `~/.cache/xupgrade/peers/cometbft-v0.38.<n>/bin/cometbft`). Its version
 * must be 0.38.x: the ABCI++ of this host is v0.38's.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { DevnetError } from "../../../shared/errors.js";

export interface CometbftBinary {
  path: string;
  /** `cometbft version`, e.g. 0.38.26. */
  version: string;
  /** How it was found: flag, env, PATH or the peers cache. */
  source: "flag" | "env" | "path" | "peers";
}

const SUPPORTED_SERIES = "0.38";

const HOW_TO_GET =
  "pass --cometbft <path>, set XUPGRADE_COMETBFT, put CometBFT v0.38 on PATH, or run `npm run peers` in the xupgrade repository (it builds a pinned CometBFT with Go)";

/** The CometBFT binary to run; throws an Error saying what to install when there is none. */
export function findCometbft(explicit?: string): CometbftBinary {
  if (explicit !== undefined && explicit !== "") return checked(resolve(explicit), "flag");
  const env = process.env.XUPGRADE_COMETBFT;
  if (env) return checked(resolve(env), "env");
  const onPath = whichCometbft();
  if (onPath) return checked(onPath, "path");
  const cached = newestInPeersCache();
  if (cached) return checked(cached, "peers");
  throw new DevnetError("cometbft", `no CometBFT binary found: ${HOW_TO_GET}`);
}

function checked(path: string, source: CometbftBinary["source"]): CometbftBinary {
  const what = source === "flag" ? "--cometbft" : source === "env" ? "XUPGRADE_COMETBFT" : source === "path" ? "PATH" : "the peers cache";
  if (!existsSync(path)) throw new DevnetError("cometbft", `CometBFT binary ${path} (from ${what}) does not exist: ${HOW_TO_GET}`);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new DevnetError("cometbft", `CometBFT binary ${path} (from ${what}) is not executable`);
  }
  const r = spawnSync(path, ["version"], { encoding: "utf8", timeout: 15_000 });
  const version = (r.stdout ?? "").trim().split("\n")[0] ?? "";
  if (r.error || r.status !== 0 || !/^\d+\.\d+\.\d+/.test(version)) {
    throw new DevnetError(
      "cometbft",
      `${path} (from ${what}) is not a working CometBFT: \`${path} version\` ${r.error ? `failed: ${r.error.message}` : `printed ${JSON.stringify((r.stdout ?? "") + (r.stderr ?? ""))}`}`,
    );
  }
  if (!version.startsWith(`${SUPPORTED_SERIES}.`)) {
    throw new DevnetError("cometbft", `${path} (from ${what}) is CometBFT ${version}; the devnet speaks the ABCI++ of CometBFT v${SUPPORTED_SERIES}.x`);
  }
  return { path, version, source };
}

function whichCometbft(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "cometbft");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** The peers cache folder of `npm run peers` (scripts/peers/paths.mjs decides the same way). */
export function peersCacheDir(): string {
  const env = process.env.XUPGRADE_PEERS_DIR;
  return env ? resolve(env) : join(homedir(), ".cache", "xupgrade", "peers");
}

function newestInPeersCache(): string | undefined {
  const dir = peersCacheDir();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const patch = (name: string) => Number(/^cometbft-v0\.38\.(\d+)$/.exec(name)?.[1] ?? -1);
  const found = names.filter((n) => patch(n) >= 0 && existsSync(join(dir, n, "bin", "cometbft"))).sort((a, b) => patch(b) - patch(a));
  return found.length > 0 ? join(dir, found[0], "bin", "cometbft") : undefined;
}
