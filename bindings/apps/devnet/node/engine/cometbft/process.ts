/**
 * CometBFT as the node's child process: `cometbft start --home <home> --proxy_app <our ABCI socket>`. Its
 * JSON log lines come through a pipe: errors and the few lines an operator looks for (the handshake, the
 * replay, the RPC) are logged as the node's own with `module: "cometbft/<its module>"`, the rest at debug;
 * the last lines are kept for a crash report. It dies with the node: SIGTERM from `stop()`, and when the
 * node process dies it loses both the ABCI connections and its output pipe, and exits by itself — a moment
 * later, so its pid is kept in `<home>/data/cometbft.pid` and the next start on the home waits for it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "../../../../../base/logger.js";
import { sleep } from "../../../../../base/sleep.js";
import { DevnetError } from "../../../shared/errors.js";

export interface CometProcessOptions {
  bin: string;
  home: string;
  /** `unix:///…` or `tcp://host:port` of the ABCI server. */
  proxyApp: string;
  /** Overrides config.toml's `[rpc] laddr` (tcp://host:port). */
  rpcLaddr?: string;
  logger: Required<Logger>;
}

export interface CometExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CometProcess {
  readonly pid: number | undefined;
  readonly exited: Promise<CometExit>;
  readonly alive: boolean;
  /** The last lines CometBFT wrote (plain text). */
  tail(n?: number): string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<CometExit>;
}

/** Lines worth an info record: the handshake, replays, the RPC listening. */
const NOTABLE = [
  /^ABCI Handshake App Info$/,
  /^ABCI Replay Blocks$/,
  /^Replay last block using /,
  /^Completed ABCI Handshake/,
  /^serve$/,
  /^This node is a validator$/,
];
const KEEP = 300;

/** The pid of the CometBFT a node of this home runs (removed when it exits). */
export const cometPidPath = (home: string) => join(home, "data", "cometbft.pid");

/**
 * Waits until the CometBFT of an earlier run on this home has exited: a node stopped with SIGKILL (cosmovisor's
 * and the visor's default stop at an upgrade) leaves its CometBFT to notice the lost ABCI connections and stop
 * by itself, and the next binary must not start another on the same ports and databases meanwhile.
 */
export async function waitForEarlierCometbft(home: string, logger: Required<Logger>, timeoutMs = 30_000): Promise<void> {
  const pid = earlierCometbft(home);
  if (pid === undefined) return;
  logger.info("waiting for the CometBFT of an earlier run to stop", { module: "node", pid });
  const end = Date.now() + timeoutMs;
  while (earlierCometbft(home) === pid) {
    if (Date.now() > end)
      throw new DevnetError("home", `the CometBFT of an earlier run on ${home} (pid ${pid}) is still running after ${timeoutMs / 1000} s: stop it first`);
    await sleep(100);
  }
}

/** The pid in `cometbft.pid` if that process still runs CometBFT for this home (Linux checks its command line). */
function earlierCometbft(home: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(cometPidPath(home), "utf8").trim());
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  if (!HAS_PROC) return pid; // no /proc here: a live pid from the file is taken for what it says
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`\0--home\0${resolve(home)}\0`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

const HAS_PROC = existsSync("/proc/self/cmdline");

export function spawnCometbft(o: CometProcessOptions): CometProcess {
  // An absolute home, so that the next start finds this process by its command line (see earlierCometbft).
  const args = ["start", "--home", resolve(o.home), "--proxy_app", o.proxyApp];
  if (o.rpcLaddr) args.push("--rpc.laddr", o.rpcLaddr);
  const child: ChildProcess = spawn(o.bin, args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
  const pidFile = cometPidPath(o.home);
  try {
    if (child.pid !== undefined) writeFileSync(pidFile, `${child.pid}\n`);
  } catch {
    /* best effort: the next start then cannot wait for this one */
  }
  const lines: string[] = [];
  const onLine = (line: string) => {
    if (line.trim() === "") return;
    lines.push(line);
    if (lines.length > KEEP) lines.shift();
    forward(line, o.logger);
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (d: string) => {
      const parts = (partial + d).split("\n");
      partial = parts.pop() ?? "";
      for (const l of parts) onLine(l);
    });
    stream.on("end", () => partial && onLine(partial));
  }
  let spawnError: Error | undefined;
  const exited = new Promise<CometExit>((resolve) => {
    child.once("error", (e) => {
      spawnError = e;
      resolve({ code: null, signal: null });
    });
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
    try {
      if (readFileSync(pidFile, "utf8").trim() === String(child.pid)) unlinkSync(pidFile);
    } catch {
      /* already gone */
    }
  });
  return {
    pid: child.pid,
    exited,
    get alive() {
      return !gone;
    },
    tail(n = 40) {
      return [...(spawnError ? [`cannot start ${o.bin}: ${spawnError.message}`] : []), ...lines.slice(-n)];
    },
    async stop(graceMs = 10_000) {
      if (!gone) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        timer.unref();
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

function forward(line: string, logger: Required<Logger>): void {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    logger.debug(line, { module: "cometbft" });
    return;
  }
  // CometBFT's JSON lines: `_msg` names the event, `msg` (when present) says it in full.
  const { _msg, msg, level, module, ts: _ts, ...fields } = rec;
  const name = typeof _msg === "string" ? _msg : "";
  // How consensus stops at a halt (docs/spec/keeper.md §6.2): the Go stack trace says nothing more.
  if (name === "CONSENSUS FAILURE!!!") delete fields.stack;
  const text = typeof msg === "string" && msg !== "" ? msg : name;
  const fieldsOut = { ...fields, module: `cometbft${typeof module === "string" ? `/${module}` : ""}` };
  if (level === "error") logger.warn(text, fieldsOut);
  else if (NOTABLE.some((re) => re.test(name))) logger.info(text, fieldsOut);
  else logger.debug(text, fieldsOut);
}
