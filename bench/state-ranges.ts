/**
 * The ranges of case 11 over several full runs: `node --import tsx bench/state-ranges.ts run1.json run2.json …`,
 * each a copy of bench/out/results-state.json. Prints, per size and kind of block, xupgrade's and cosmos/iavl's CPU
 * per block and their ratio as lowest–highest over the runs, then the targets and in how many runs each was met.
 */
import { readFileSync } from "node:fs";

interface Stat {
  median: number;
}
interface Block {
  cpuMs: Stat;
  ms: Stat;
  written: number;
}
interface Side {
  startupMs: number;
  peakRssMiB: number;
  blocks: Record<string, Block>;
}
interface Run extends Side {
  keys: number;
  iavl?: Side;
}
interface Results {
  meta: { date: string };
  targets: { target: string; met: boolean }[];
  runs: Run[];
}

const KINDS = ["spread100", "spread1000", "clustered100", "clustered1000"] as const;
const files = process.argv.slice(2);
if (files.length < 2) {
  console.error("usage: node --import tsx bench/state-ranges.ts <results-state.json> <results-state.json> …");
  process.exit(2);
}
const all = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as Results);

const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const range = (xs: number[]): string => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return fmt(lo) === fmt(hi) ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
};
const sizeName = (keys: number): string => `10^${Math.round(Math.log10(keys))}`;

console.log(`${all.length} runs: ${all.map((r) => r.meta.date.slice(0, 16).replace("T", " ")).join(", ")} UTC\n`);
console.log(
  "| keys | start-up, ms (ratio) | " +
    KINDS.map((k) => `${k}: CPU ms xupgrade / iavl (ratio)`).join(" | ") +
    " | CPU µs per written node, spread 100 / 1,000 | peak RSS MiB (ratio) |",
);
console.log("|" + " --- |".repeat(KINDS.length + 4));
for (const keys of all[0].runs.map((r) => r.keys)) {
  const runs = all.map((r) => r.runs.find((x) => x.keys === keys)).filter((x): x is Run => x !== undefined);
  const paired = runs.filter((r): r is Run & { iavl: Side } => r.iavl !== undefined);
  const ratio = (f: (s: Side) => number) => range(paired.map((r) => f(r) / f(r.iavl)));
  const cells = [
    `${range(runs.map((r) => r.startupMs))} / ${range(paired.map((r) => r.iavl.startupMs))} (${ratio((s) => s.startupMs)})`,
    ...KINDS.map(
      (k) =>
        `${range(runs.map((r) => r.blocks[k].cpuMs.median))} / ${range(paired.map((r) => r.iavl.blocks[k].cpuMs.median))} (**${ratio((s) => s.blocks[k].cpuMs.median)}**)`,
    ),
    ["spread100", "spread1000"].map((k) => range(runs.map((r) => (r.blocks[k].cpuMs.median * 1000) / r.blocks[k].written))).join(" / "),
    `${range(runs.map((r) => r.peakRssMiB))} / ${range(paired.map((r) => r.iavl.peakRssMiB))} (${ratio((s) => s.peakRssMiB)})`,
  ];
  console.log(`| ${sizeName(keys)} | ${cells.join(" | ")} |`);
}

console.log("\n| target | met in |\n| --- | --- |");
for (const { target } of all[0].targets) {
  const met = all.filter((r) => r.targets.find((t) => t.target === target)?.met).length;
  console.log(`| ${target.replace(/ \(case 11\)$/, "")} | ${met} of ${all.length} |`);
}
