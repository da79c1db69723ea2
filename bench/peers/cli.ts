/**
 * Case 1, CLI cold start: `xupgrade query upgrade plan|applied|module_versions` against the same node as
 * `simd query upgrade plan|applied|module-versions`, each a whole process started the way a shell starts it
 * (xupgrade: the package's bin file, `#!/bin/sh` and its launcher lines, then `node`; simd: its binary), with
 * `node -e 0` beside them as Node's own floor (also without NODE_EXTRA_CA_CERTS when the environment sets it).
 * Runs alternate (x s, s x, …) after a warm-up of each.
 *
 * Every run is measured by a small Python wrapper that forks, execs and wait4()s the command: wall time from
 * the fork to the reaped exit (perf_counter), user+system CPU time and peak RSS (ru_maxrss) of the process. The
 * same wrapper measures both sides. Without python3 GNU time does (`/usr/bin/time`, 10 ms CPU resolution);
 * without either, wall time alone.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { log, median, p99 } from "./util.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
export const XUPGRADE_BIN = here("../../dist/apps/cli/xupgrade.cjs");
const QUERY_FILES = ["xupgrade.cjs", "xupgrade-query.cjs", "xupgrade-query.cjs.v8cache"];

/**
 * The files a query runs (the bin, the query bundle and its code cache: nothing else is loaded) copied out of
 * dist/ into <tmp>/dist/apps/cli/, so another `npm run build` on the machine cannot delete them mid-run.
 */
export function stageQueryBin(): { bin: string; bundle: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "xupgrade-bench-cli-"));
  const cli = join(dir, "dist/apps/cli");
  mkdirSync(cli, { recursive: true });
  for (const f of QUERY_FILES) if (existsSync(here(`../../dist/apps/cli/${f}`))) copyFileSync(here(`../../dist/apps/cli/${f}`), join(cli, f));
  chmodSync(join(cli, "xupgrade.cjs"), 0o755);
  return { bin: join(cli, "xupgrade.cjs"), bundle: join(cli, "xupgrade-query.cjs"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const PY = `
import os, sys, time, json
cmd = json.loads(sys.argv[1]); n = int(sys.argv[2]); out = []
devnull = os.open(os.devnull, os.O_WRONLY)
for _ in range(n):
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(devnull, 1); os.dup2(devnull, 2)
        try: os.execvp(cmd[0], cmd)
        finally: os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    out.append({"wall": (time.perf_counter() - t) * 1000, "cpu": (ru.ru_utime + ru.ru_stime) * 1000, "rss": ru.ru_maxrss / 1024, "code": os.waitstatus_to_exitcode(status)})
print(json.dumps(out))
`;

export type Meter = "python3" | "gnu-time" | "node";

export function meter(): Meter {
  if (spawnSync("python3", ["-c", "import os; os.wait4"]).status === 0) return "python3";
  if (spawnSync("/usr/bin/time", ["-f", "%M", "true"]).status === 0) return "gnu-time";
  return "node";
}

export interface Sample {
  /** ms */
  wall: number;
  /** ms of user+system CPU, undefined without a meter for it */
  cpu?: number;
  /** MiB, peak resident set */
  rss?: number;
  code: number;
}

/** Runs `cmd` n times back to back, measured by `m`. */
export function measure(m: Meter, cmd: string[], n: number): Sample[] {
  if (m === "python3") {
    const r = spawnSync("python3", ["-c", PY, JSON.stringify(cmd), String(n)], { encoding: "utf8", timeout: 120_000 });
    if (r.status !== 0) throw new Error(`measuring ${cmd.join(" ")}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Sample[];
  }
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    if (m === "gnu-time") {
      const r = spawnSync("/usr/bin/time", ["-f", "%U %S %M", ...cmd], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
      const wall = performance.now() - t0;
      const [u, s, kb] = r.stderr.trim().split("\n").pop()!.split(" ").map(Number);
      out.push({ wall, cpu: (u + s) * 1000, rss: kb / 1024, code: r.status ?? -1 });
    } else {
      const r = spawnSync(cmd[0], cmd.slice(1), { stdio: "ignore" });
      out.push({ wall: performance.now() - t0, code: r.status ?? -1 });
    }
  }
  return out;
}

export interface CliCommand {
  id: "plan" | "applied" | "module_versions";
  xupgrade: string[];
  simd?: string[];
}

export function cliCommands(bin: string, node: string, simd: string | undefined, appliedName: string): CliCommand[] {
  const x = (...a: string[]) => [bin, "query", "upgrade", ...a, "--node", node];
  const s = (...a: string[]) => (simd ? [simd, "query", "upgrade", ...a, "--node", node] : undefined);
  return [
    { id: "plan", xupgrade: x("plan"), simd: s("plan") },
    { id: "applied", xupgrade: x("applied", appliedName), simd: s("applied", appliedName) },
    { id: "module_versions", xupgrade: x("module_versions"), simd: s("module-versions") },
  ];
}

export interface CliStat {
  runs: number;
  wallMedian: number;
  wallP99: number;
  cpuMedian?: number;
  rssMedian?: number;
  rssMax?: number;
}

export interface CliRow {
  id: string;
  xupgrade: CliStat;
  simd?: CliStat;
  /** xupgrade ÷ simd, medians (target ≤ 1 for wall). */
  wallRatio?: number;
  wallP99Ratio?: number;
  rssRatio?: number;
}

function stat(samples: Sample[]): CliStat {
  const has = <K extends keyof Sample>(k: K) => samples.every((s) => s[k] !== undefined);
  return {
    runs: samples.length,
    wallMedian: median(samples.map((s) => s.wall)),
    wallP99: p99(samples.map((s) => s.wall)),
    cpuMedian: has("cpu") ? median(samples.map((s) => s.cpu!)) : undefined,
    rssMedian: has("rss") ? median(samples.map((s) => s.rss!)) : undefined,
    rssMax: has("rss") ? Math.max(...samples.map((s) => s.rss!)) : undefined,
  };
}

/** What a query loads: the query bundle may require Node's built-ins only (no devnet, sidecar, gRPC or signing), and the `--verify` bundle. */
export function queryBundleCheck(bundle: string): { bytes: number; cacheBytes?: number; requires: string[]; ok: boolean } {
  const text = readFileSync(bundle, "utf8");
  const requires = [...new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]))].sort();
  // `./xupgrade-verify.cjs` is the light client, required by the bundle only for `--verify` (scripts/build-cli.mjs).
  const builtin = (r: string) => r.startsWith("node:") || builtinModules.includes(r) || r === "./xupgrade-verify.cjs";
  const cache = `${bundle}.v8cache`;
  return { bytes: statSync(bundle).size, cacheBytes: existsSync(cache) ? statSync(cache).size : undefined, requires, ok: requires.every(builtin) };
}

/**
 * Whether the environment sets NODE_EXTRA_CA_CERTS: Node 20 then parses its root store and that file at start-up,
 * before any code runs (~36 ms of CPU time on the project's VM), so `node -e 0` is measured without it too. The
 * bin's launcher keeps it out of a query's start-up (scripts/build-cli.mjs).
 */
export const EXTRA_CA_CERTS = (process.env.NODE_EXTRA_CA_CERTS ?? "") !== "";

export function cliCase(
  cmds: CliCommand[],
  m: Meter,
  runs: number,
  warmup: number,
): { rows: CliRow[]; floor: CliStat; floorWithoutExtraCa?: CliStat; raw: Record<string, Sample[]> } {
  const raw: Record<string, Sample[]> = {};
  const add = (key: string, s: Sample[]) => (raw[key] ??= []).push(...s);
  const floorCmd = [process.execPath, "-e", "0"];
  const floorWithoutCaCmd = ["env", "-u", "NODE_EXTRA_CA_CERTS", process.execPath, "-e", "0"];
  for (const c of cmds) {
    measure(m, c.xupgrade, warmup);
    if (c.simd) measure(m, c.simd, warmup);
  }
  // Alternating single runs: x s, s x, … so that a busy moment of the machine hits both sides alike.
  for (let i = 0; i < runs; i++) {
    for (const c of cmds) {
      const pair: [string, string[]][] = [[`${c.id}|xupgrade`, c.xupgrade], ...(c.simd ? ([[`${c.id}|simd`, c.simd]] as [string, string[]][]) : [])];
      for (const [key, cmd] of i % 2 ? pair.reverse() : pair) add(key, measure(m, cmd, 1));
    }
    add("floor", measure(m, floorCmd, 1));
    if (EXTRA_CA_CERTS) add("floorWithoutExtraCa", measure(m, floorWithoutCaCmd, 1));
  }
  for (const [key, samples] of Object.entries(raw)) {
    const bad = samples.filter((s) => s.code !== 0);
    if (bad.length > 0) throw new Error(`CLI case: ${key} exited ${bad[0].code} (${bad.length} of ${samples.length} runs)`);
  }
  const rows = cmds.map((c): CliRow => {
    const x = stat(raw[`${c.id}|xupgrade`]);
    const s = c.simd ? stat(raw[`${c.id}|simd`]) : undefined;
    const row: CliRow = { id: c.id, xupgrade: x, simd: s };
    if (s) {
      row.wallRatio = x.wallMedian / s.wallMedian;
      row.wallP99Ratio = x.wallP99 / s.wallP99;
      if (x.rssMedian !== undefined && s.rssMedian !== undefined) row.rssRatio = x.rssMedian / s.rssMedian;
    }
    const f = (v?: number, d = 0) => (v === undefined ? "–" : v.toFixed(d));
    log(
      `  ${c.id}: xupgrade ${f(x.wallMedian)} ms (p99 ${f(x.wallP99)}), ${f(x.rssMedian)} MiB${s ? `; simd ${f(s.wallMedian)} ms (p99 ${f(s.wallP99)}), ${f(s.rssMedian)} MiB; ratio ${f(row.wallRatio, 2)}` : ""}`,
    );
    return row;
  });
  return { rows, floor: stat(raw.floor), floorWithoutExtraCa: raw.floorWithoutExtraCa && stat(raw.floorWithoutExtraCa), raw };
}
