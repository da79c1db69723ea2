/**
 * Case 11 (issue 23), the node's state: the commit multistore at 10^4, 10^5 and 10^6 keys in one app
 * store (bench/cases/state.ts), each size built in one process and measured in a fresh one. Writes
 * results-state.json beside results.json and the table between the `state` markers of bench/README.md.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BlockMeasure, BlockName, StateBuild, StateMeasure } from "./cases/state.js";
import { BLOCKS, KEEP_RECENT } from "./cases/state.js";
import { QUICK, config } from "./config.js";
import type { Target } from "./report.js";

export interface StateRun extends StateMeasure {
  build: StateBuild;
}

type Child = <T>(...args: string[]) => T;

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const fmtKeys = (n: number) => `10^${Math.round(Math.log10(n))}`;

export function runState(child: Child, log: (line: string) => void): { runs: StateRun[]; targets: Target[] } {
  const runs: StateRun[] = [];
  for (const n of config.stateSizes) {
    const dir = mkdtempSync(join(tmpdir(), "xupgrade-bench-state-"));
    try {
      const build = child<StateBuild>("state-build", dir, String(n));
      log(`  ${n} keys built in ${build.seconds.toFixed(1)} s (${(build.diskBytes / 2 ** 20).toFixed(0)} MiB on disk)`);
      const m = child<StateMeasure>("state-measure", dir, String(n), String(config.stateBlocks), String(config.stateProofs), String(config.stateWarmBlocks));
      const b = m.blocks;
      log(
        `  ${n} keys: start-up ${ms(m.startupMs)} ms, commit spread 100 ${ms(b.spread100.ms.median)} ms, 1000 ${ms(b.spread1000.ms.median)} ms, ` +
          `clustered 100 ${ms(b.clustered100.ms.median)} ms, 1000 ${ms(b.clustered1000.ms.median)} ms, ` +
          `proof ${m.proofPresentBytes} B in ${ms(m.proofPresentMs.median)} ms, peak RSS ${m.peakRssMiB.toFixed(0)} MiB`,
      );
      runs.push({ ...m, build });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { runs, targets: stateTargets(runs) };
}

export function stateTargets(runs: StateRun[]): Target[] {
  const first = runs[0];
  const last = runs[runs.length - 1];
  const span = `${fmtKeys(first.keys)} → ${fmtKeys(last.keys)} keys`;
  const growth = (pick: (r: StateRun) => number) => pick(last) / pick(first);
  const targets: Target[] = [];
  // The target is read on spread blocks (keys changed at random: the harder case, and the one measured
  // before); clustered blocks are in the table.
  for (const [size, name] of [
    [100, "spread100"],
    [1000, "spread1000"],
  ] as const) {
    const wall = (r: StateRun) => r.blocks[name].ms.median;
    const cpu = (r: StateRun) => r.blocks[name].cpuMs.median;
    const g = growth(wall);
    targets.push({
      target: `commit of ${size} changed keys (spread) grows < 2× from ${span} (case 11)`,
      // Wall time alone is at the mercy of the machine's load at each size: met only if CPU time agrees.
      met: g < 2 && growth(cpu) < 2,
      detail: `wall ${ms(wall(first))} → ${ms(wall(last))} ms (${g.toFixed(2)}×); CPU ${ms(cpu(first))} → ${ms(cpu(last))} ms (${growth(cpu).toFixed(2)}×)`,
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

export function stateTable(runs: StateRun[]): string {
  const cell = (b: BlockMeasure) => `${ms(b.ms.median)} / ${ms(b.ms.p90)} ms (CPU ${ms(b.cpuMs.median)}; ${b.written} written, ${b.read} read)`;
  const rows = runs.map(
    (r) =>
      `| ${fmtKeys(r.keys)} | ${ms(r.startupMs)} ms | ${BLOCKS.map((k) => cell(r.blocks[k.name as BlockName])).join(" | ")} | ` +
      `${r.proofPresentBytes} B, ${ms(r.proofPresentMs.median)} ms | ${r.proofAbsentBytes} B, ${ms(r.proofAbsentMs.median)} ms | ` +
      `${r.peakRssMiB.toFixed(0)} MiB (end: ${r.rssAnonMiB.toFixed(0)} anon + ${r.rssFileMiB.toFixed(0)} file) | ${(r.build.diskBytes / 2 ** 20).toFixed(0)} MiB |`,
  );
  return [
    "| keys in the app store | start-up (open, first read) | block of 100 spread keys: median / p90 (nodes per commit) | 1,000 spread | 100 clustered | 1,000 clustered | proof of a present key (size, time) | proof of an absent key | peak RSS | database |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** Writes the results file and, after a full run, the README table. */
export function writeState(outDir: string, readme: string, meta: { date: string; cpu: { model: string; cores: number }; node: string }, runs: StateRun[], targets: Target[]): void {
  writeFileSync(`${outDir}results-state.json`, `${JSON.stringify({ meta, keepRecent: KEEP_RECENT, targets, runs }, null, 2)}\n`);
  if (QUICK || !existsSync(readme)) return;
  const text = readFileSync(readme, "utf8");
  const body = `_${meta.cpu.model} ×${meta.cpu.cores}, Node ${meta.node}, ${meta.date.slice(0, 16).replace("T", " ")} UTC._\n\n${stateTable(runs)}\n\n${targets.map((t) => `- ${t.met ? "**met**" : "**missed**"}: ${t.target} — ${t.detail}`).join("\n")}`;
  writeFileSync(readme, text.replace(/(<!-- state:start -->\n)[\s\S]*?(\n<!-- state:end -->)/, `$1${body}$2`));
}
