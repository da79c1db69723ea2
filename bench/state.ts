/**
 * Case 11, the node's state: the commit multistore at 10^4, 10^5 and 10^6 keys in one app store
 * (bench/cases/state.ts), each size built in one process and measured in a fresh one — and, side by side in the
 * same run, the store a Cosmos SDK v0.50 node runs (cosmos/iavl v1.2.2 under cosmossdk.io/store's root
 * multistore on goleveldb: test/peers/iavl-bench, built by `npm run peers` as an optional tool) replaying the
 * same workload file in processes of its own. The two must reach the same app hash after every block (asserted
 * here: this also proves that they committed the same workload). Writes results-state.json beside
 * results.json and the tables between the `state` markers of bench/README.md. Without the Go tool, xupgrade's
 * side runs alone and says so.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IAVL_VERSION, missingPeerReason, peerBinaries } from "../scripts/peers/paths.mjs";
import type { BlockMeasure, BlockName, BlockSample, StateBuild, StateMeasure } from "./cases/state.js";
import { BLOCKS, KEEP_RECENT, summarize, workloadFile } from "./cases/state.js";
import { QUICK, config } from "./config.js";
import type { Target } from "./report.js";

/** cosmos/iavl's side of one size (test/peers/iavl-bench). */
export interface IavlRun {
  startupMs: number;
  blocks: Record<BlockName, BlockMeasure>;
  peakRssMiB: number;
  rssMiB: number;
  rssAnonMiB: number;
  rssFileMiB: number;
  goHeapInuseMiB: number;
  buildSeconds: number;
  diskBytes: number;
  /** App hashes compared with xupgrade's (every block of the build and of the measurement): all equal. */
  appHashesCompared: number;
  /** Whether each measured block wrote as many tree nodes on both sides (the same tree: it should). */
  sameNodesWritten: boolean;
  goVersion: string;
  modules: string[];
  iavlCacheSize: number;
  pruneInterval: number;
}

export interface StateRun extends StateMeasure {
  build: StateBuild;
  iavl?: IavlRun;
}

/** The two trees reached different app hashes: they diverged, or did not commit the same workload. */
export class AppHashMismatchError extends Error {
  override name = "AppHashMismatchError";
}

type Child = <T>(...args: string[]) => T;

interface GoBuild {
  heights: number;
  seconds: number;
  disk_bytes: number;
  app_hashes: string[];
}

interface GoBlock {
  height: number;
  phase: number;
  kind: number;
  wall_ms: number;
  cpu_ms: number;
  written: number;
  fast_written: number;
  pruned: number;
  read: number;
  app_hash: string;
}

interface GoMeasure {
  startup_ms: number;
  blocks: GoBlock[];
  peak_rss_bytes: number;
  rss_bytes: number;
  rss_anon_bytes: number;
  rss_file_bytes: number;
  go_heap_inuse_bytes: number;
  go_version: string;
  modules: string[] | null;
  iavl_cache_size: number;
  prune_interval: number;
}

export const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
export const fmtKeys = (n: number) => `10^${Math.round(Math.log10(n))}`;
const MiB = (bytes: number) => bytes / 2 ** 20;

/** Runs test/peers/iavl-bench and returns its JSON answer. */
function iavlBench<T>(bin: string, ...args: string[]): T {
  const r = spawnSync(bin, args, { encoding: "utf8", maxBuffer: 256 * 2 ** 20, stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) throw new Error(`iavl-bench ${args[0]} failed (exit ${r.status ?? r.signal})`);
  return JSON.parse(r.stdout) as T;
}

/** Throws AppHashMismatchError at the first height where the two sides differ. */
function compareHashes(what: string, firstHeight: number, ours: readonly string[], theirs: readonly string[]): number {
  if (ours.length !== theirs.length) throw new AppHashMismatchError(`${what}: xupgrade committed ${ours.length} blocks, cosmos/iavl ${theirs.length}`);
  const i = ours.findIndex((h, j) => h !== theirs[j]);
  if (i >= 0) {
    throw new AppHashMismatchError(
      `${what}: app hash at height ${firstHeight + i}: xupgrade ${ours[i]}, cosmos/iavl ${theirs[i]} — the trees diverged, or the workloads differ`,
    );
  }
  return ours.length;
}

/** cosmos/iavl's side of a size whose workload and xupgrade's side are in `dir`. */
function runIavl(bin: string, dir: string, build: StateBuild, m: StateMeasure): IavlRun {
  const db = join(dir, "iavl");
  const gb = iavlBench<GoBuild>(bin, "build", db, workloadFile(dir));
  let compared = compareHashes("build", 1, build.appHashes!, gb.app_hashes);
  const gm = iavlBench<GoMeasure>(bin, "measure", db, workloadFile(dir));
  compared += compareHashes(
    "measured blocks",
    build.heights + 1,
    m.appHashes!,
    gm.blocks.map((b) => b.app_hash),
  );
  const samples: BlockSample[] = gm.blocks.map((b) => ({
    phase: b.phase,
    kind: b.kind,
    ms: b.wall_ms,
    cpuMs: b.cpu_ms,
    written: b.written,
    pruned: b.pruned,
    read: b.read,
    fastWritten: b.fast_written,
    appHash: b.app_hash,
  }));
  return {
    startupMs: gm.startup_ms,
    blocks: summarize(samples),
    peakRssMiB: MiB(gm.peak_rss_bytes),
    rssMiB: MiB(gm.rss_bytes),
    rssAnonMiB: MiB(gm.rss_anon_bytes),
    rssFileMiB: MiB(gm.rss_file_bytes),
    goHeapInuseMiB: MiB(gm.go_heap_inuse_bytes),
    buildSeconds: gb.seconds,
    diskBytes: gb.disk_bytes,
    appHashesCompared: compared,
    sameNodesWritten: gm.blocks.every((b, i) => b.written === m.writtenPerBlock![i]),
    goVersion: gm.go_version,
    modules: gm.modules ?? [],
    iavlCacheSize: gm.iavl_cache_size,
    pruneInterval: gm.prune_interval,
  };
}

export function runState(child: Child, log: (line: string) => void): { runs: StateRun[]; targets: Target[] } {
  const bin = peerBinaries().iavlBench;
  if (!bin) log(`  cosmos/iavl's side is not built (${missingPeerReason("iavl-bench")}): xupgrade's side runs alone`);
  const runs: StateRun[] = [];
  for (const n of config.stateSizes) {
    const dir = mkdtempSync(join(tmpdir(), "xupgrade-bench-state-"));
    try {
      const build = child<StateBuild>("state-build", dir, String(n));
      log(
        `  ${n} keys: workload written in ${build.workloadSeconds.toFixed(1)} s; xupgrade built in ${build.seconds.toFixed(1)} s (${MiB(build.diskBytes).toFixed(0)} MiB on disk)`,
      );
      const m = child<StateMeasure>("state-measure", dir, String(n), String(config.stateBlocks), String(config.stateProofs), String(config.stateWarmBlocks));
      const b = m.blocks;
      log(
        `  ${n} keys, xupgrade: start-up ${ms(m.startupMs)} ms, commit CPU spread 100 ${ms(b.spread100.cpuMs.median)} ms, 1000 ${ms(b.spread1000.cpuMs.median)} ms, ` +
          `clustered 100 ${ms(b.clustered100.cpuMs.median)} ms, 1000 ${ms(b.clustered1000.cpuMs.median)} ms, peak RSS ${m.peakRssMiB.toFixed(0)} MiB`,
      );
      let iavl: IavlRun | undefined;
      if (bin) {
        iavl = runIavl(bin, dir, build, m);
        const g = iavl.blocks;
        log(
          `  ${n} keys, cosmos/iavl: built in ${iavl.buildSeconds.toFixed(1)} s (${MiB(iavl.diskBytes).toFixed(0)} MiB), start-up ${ms(iavl.startupMs)} ms, ` +
            `commit CPU spread 100 ${ms(g.spread100.cpuMs.median)} ms, 1000 ${ms(g.spread1000.cpuMs.median)} ms, clustered 100 ${ms(g.clustered100.cpuMs.median)} ms, ` +
            `1000 ${ms(g.clustered1000.cpuMs.median)} ms, peak RSS ${iavl.peakRssMiB.toFixed(0)} MiB; ${iavl.appHashesCompared} app hashes equal`,
        );
      }
      delete build.appHashes;
      delete m.appHashes;
      delete m.writtenPerBlock;
      runs.push({ ...m, build, iavl });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { runs, targets: stateTargets(runs) };
}

const ratio = (a: number, b: number) => (a / b).toFixed(2);
/** CPU per written node, µs (median block). */
const perNode = (b: BlockMeasure) => (b.cpuMs.median * 1000) / b.written;
const SPREAD = [
  [100, "spread100"],
  [1000, "spread1000"],
] as const;

export function stateTargets(runs: StateRun[]): Target[] {
  const first = runs[0];
  const last = runs[runs.length - 1];
  const span = `${fmtKeys(first.keys)} → ${fmtKeys(last.keys)} keys`;
  const targets: Target[] = [];
  // Read on spread blocks (keys changed at random: the harder case); clustered blocks are in the table.
  if (runs.every((r) => r.iavl)) {
    for (const r of runs) {
      for (const [size, name] of SPREAD) {
        const x = r.blocks[name];
        const g = r.iavl!.blocks[name];
        targets.push({
          target: `CPU per block of ${size.toLocaleString("en-US")} spread keys ≤ cosmos/iavl's at ${fmtKeys(r.keys)} keys (case 11)`,
          met: x.cpuMs.median <= g.cpuMs.median,
          detail: `${ms(x.cpuMs.median)} / ${ms(g.cpuMs.median)} ms (${ratio(x.cpuMs.median, g.cpuMs.median)}); wall ${ms(x.ms.median)} / ${ms(g.ms.median)} ms (${ratio(x.ms.median, g.ms.median)})`,
        });
      }
    }
  }
  // Growth needs two sizes (a quick run measures one).
  for (const [size, name] of runs.length > 1 ? SPREAD : []) {
    const growth = perNode(last.blocks[name]) / perNode(first.blocks[name]);
    targets.push({
      target: `CPU per written node flat within 1.3× from ${span}, blocks of ${size.toLocaleString("en-US")} spread keys (case 11)`,
      met: growth <= 1.3,
      detail:
        `${perNode(first.blocks[name]).toFixed(1)} → ${perNode(last.blocks[name]).toFixed(1)} µs (${growth.toFixed(2)}×; ${first.blocks[name].written} → ${last.blocks[name].written} nodes)` +
        (first.iavl && last.iavl
          ? `; cosmos/iavl ${perNode(first.iavl.blocks[name]).toFixed(1)} → ${perNode(last.iavl.blocks[name]).toFixed(1)} µs (${(perNode(last.iavl.blocks[name]) / perNode(first.iavl.blocks[name])).toFixed(2)}×)`
          : ""),
    });
  }
  if (last.iavl) {
    targets.push({
      target: `peak RSS at ${fmtKeys(last.keys)} keys ≤ cosmos/iavl's (case 11)`,
      met: last.peakRssMiB <= last.iavl.peakRssMiB,
      detail: `${last.peakRssMiB.toFixed(0)} / ${last.iavl.peakRssMiB.toFixed(0)} MiB (${ratio(last.peakRssMiB, last.iavl.peakRssMiB)})`,
    });
  }
  if (runs.every((r) => r.iavl)) {
    targets.push({
      target: `start-up ≤ cosmos/iavl's at every size (case 11)`,
      met: runs.every((r) => r.startupMs <= r.iavl!.startupMs),
      detail: runs.map((r) => `${fmtKeys(r.keys)} ${ms(r.startupMs)} / ${ms(r.iavl!.startupMs)} ms`).join(", "),
    });
  }
  targets.push({
    target: `RSS at ${fmtKeys(last.keys)} keys < 1 GiB (case 11)`,
    met: last.peakRssMiB < 1024,
    detail: `peak ${last.peakRssMiB.toFixed(0)} MiB; at the end ${last.rssMiB.toFixed(0)} MiB (${last.rssAnonMiB.toFixed(0)} anonymous, ${last.rssFileMiB.toFixed(0)} mapped table files)`,
  });
  targets.push({
    target: `start-up at ${fmtKeys(last.keys)} keys < 2 s (case 11)`,
    met: last.startupMs < 2000,
    detail: `${ms(last.startupMs)} ms`,
  });
  return targets;
}

/** xupgrade against cosmos/iavl, per size: CPU and wall medians, their ratios, nodes written. */
export function sideBySideTable(runs: StateRun[]): string {
  const cell = (x: BlockMeasure, g: BlockMeasure | undefined) => {
    if (!g) return `CPU ${ms(x.cpuMs.median)} ms; wall ${ms(x.ms.median)}; ${x.written} nodes written, ${x.read} read`;
    const nodes = `${x.written === g.written ? x.written : `${x.written} / ${g.written}`} nodes written, ${x.read} / ${g.read} read`;
    return `CPU ${ms(x.cpuMs.median)} / ${ms(g.cpuMs.median)} ms (**${ratio(x.cpuMs.median, g.cpuMs.median)}**); wall ${ms(x.ms.median)} / ${ms(g.ms.median)} (${ratio(x.ms.median, g.ms.median)}); ${nodes}`;
  };
  const pair = (x: number, g: number | undefined, unit: string, digits = 0) =>
    g === undefined ? `${x.toFixed(digits)} ${unit}` : `${x.toFixed(digits)} / ${g.toFixed(digits)} ${unit} (**${ratio(x, g)}**)`;
  const rows = runs.map((r) => {
    const g = r.iavl;
    const nodeCost = SPREAD.map(([, name]) =>
      g ? `${perNode(r.blocks[name]).toFixed(1)} / ${perNode(g.blocks[name]).toFixed(1)}` : perNode(r.blocks[name]).toFixed(1),
    ).join("; ");
    return (
      `| ${fmtKeys(r.keys)} | ${g ? `${ms(r.startupMs)} / ${ms(g.startupMs)} ms (**${ratio(r.startupMs, g.startupMs)}**)` : `${ms(r.startupMs)} ms`} | ` +
      `${BLOCKS.map((k) => cell(r.blocks[k.name], g?.blocks[k.name])).join(" | ")} | ${nodeCost} | ` +
      `${pair(r.peakRssMiB, g?.peakRssMiB, "MiB")} | ${pair(MiB(r.build.diskBytes), g && MiB(g.diskBytes), "MiB")} |`
    );
  });
  return [
    "| keys in the app store | start-up (open, first read) | block of 100 spread keys (median) | 1,000 spread | 100 clustered | 1,000 clustered | CPU per written node, 100 / 1,000 spread (µs) | peak RSS | database |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** xupgrade's side in detail: p90, nodes read, proofs, memory. */
export function stateTable(runs: StateRun[]): string {
  const cell = (b: BlockMeasure) =>
    `${ms(b.ms.median)} / ${ms(b.ms.p90)} ms (CPU ${ms(b.cpuMs.median)}${b.mainCpuMs !== undefined ? `, main thread ${ms(b.mainCpuMs)}` : ""}; ${b.written} written, ${b.read} read)`;
  const rows = runs.map(
    (r) =>
      `| ${fmtKeys(r.keys)} | ${ms(r.startupMs)} ms | ` +
      `${BLOCKS.map((k) => cell(r.blocks[k.name])).join(" | ")} | ` +
      `${r.proofPresentBytes} B, ${ms(r.proofPresentMs.median)} ms | ${r.proofAbsentBytes} B, ${ms(r.proofAbsentMs.median)} ms | ` +
      `${r.peakRssMiB.toFixed(0)} MiB (end: ${r.rssAnonMiB.toFixed(0)} anon + ${r.rssFileMiB.toFixed(0)} file) | ${MiB(r.build.diskBytes).toFixed(0)} MiB |`,
  );
  return [
    "| keys in the app store | start-up (open, first read) | block of 100 spread keys: median / p90 (nodes per commit) | 1,000 spread | 100 clustered | 1,000 clustered | proof of a present key (size, time) | proof of an absent key | peak RSS | database |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** The tables and the targets, as printed and as written into bench/README.md. */
export function stateReport(
  meta: { date: string; cpu: { model: string; cores: number }; node: string; load?: number[] },
  runs: StateRun[],
  targets: Target[],
): string {
  const g = runs.find((r) => r.iavl)?.iavl;
  const load = meta.load ? `; load average ${meta.load.map((l) => l.toFixed(1)).join(" / ")} (1 / 5 / 15 min) at the end` : "";
  const header = `_${meta.cpu.model} ×${meta.cpu.cores}, Node ${meta.node}, ${meta.date.slice(0, 16).replace("T", " ")} UTC${load}._`;
  const against = g
    ? `xupgrade / cosmos/iavl (${g.modules.join(", ")}; ${g.goVersion}; iavl-cache-size ${g.iavlCacheSize}, fast nodes on, pruned every ${g.pruneInterval === 1 ? "block" : `${g.pruneInterval} blocks`}); **ratio** xupgrade/iavl. ` +
      `App hashes equal after every block: ${runs.map((r) => `${fmtKeys(r.keys)} ${r.iavl?.appHashesCompared ?? 0}`).join(", ")} compared` +
      (runs.every((r) => r.iavl?.sameNodesWritten) ? "; nodes written per block equal in every block." : "; nodes written per block differ in some blocks.")
    : `cosmos/iavl's side was not run (${missingPeerReason("iavl-bench") ?? "not built"}; cosmos/iavl ${IAVL_VERSION}): xupgrade alone.`;
  return [
    header,
    "",
    against,
    "",
    sideBySideTable(runs),
    "",
    "xupgrade's side in detail:",
    "",
    stateTable(runs),
    "",
    targets.map((t) => `- ${t.met ? "**met**" : "**missed**"}: ${t.target} — ${t.detail}`).join("\n"),
  ].join("\n");
}

/** Writes the results file and, after a full run, the README tables. */
export function writeState(
  outDir: string,
  readme: string,
  meta: { date: string; cpu: { model: string; cores: number }; node: string; load?: number[] },
  runs: StateRun[],
  targets: Target[],
): void {
  writeFileSync(`${outDir}results-state.json`, `${JSON.stringify({ meta, keepRecent: KEEP_RECENT, targets, runs }, null, 2)}\n`);
  if (QUICK || !existsSync(readme)) return;
  const text = readFileSync(readme, "utf8");
  writeFileSync(readme, text.replace(/(<!-- state:start -->\n)[\s\S]*?(\n<!-- state:end -->)/, `$1${stateReport(meta, runs, targets)}$2`));
}
