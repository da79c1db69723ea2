/**
 * The ranges of case 11 over several full runs: `node --import tsx bench/state-ranges.ts run1.json run2.json …`,
 * each a copy of a full run's bench/results-state.json. Prints, per size and kind of block, xupgrade's and cosmos/iavl's CPU
 * per block and their ratio as lowest–highest over the runs, then the targets and in how many runs each was met.
 */
import { readFileSync } from "node:fs";
import { BLOCKS } from "./cases/state.js";
import type { Target } from "./report.js";
import { fmtKeys, ms as fmt, type IavlRun, type StateRun } from "./state.js";

interface Results {
  meta: { date: string };
  targets: Target[];
  runs: StateRun[];
}

const KINDS = BLOCKS.map((b) => b.name);
const files = process.argv.slice(2);
if (files.length < 2) {
  console.error("usage: node --import tsx bench/state-ranges.ts <results-state.json> <results-state.json> …");
  process.exit(2);
}
const all = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as Results);

const range = (xs: number[]): string => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return fmt(lo) === fmt(hi) ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
};

console.log(`${all.length} runs: ${all.map((r) => r.meta.date.slice(0, 16).replace("T", " ")).join(", ")} UTC\n`);
console.log(
  "| keys | start-up, ms (ratio) | " +
    KINDS.map((k) => `${k}: CPU ms xupgrade / iavl (ratio)`).join(" | ") +
    " | CPU µs per written node, spread 100 / 1,000 | peak RSS MiB (ratio) |",
);
console.log("|" + " --- |".repeat(KINDS.length + 4));
for (const keys of all[0].runs.map((r) => r.keys)) {
  const runs = all.map((r) => r.runs.find((x) => x.keys === keys)).filter((x): x is StateRun => x !== undefined);
  const paired = runs.filter((r): r is StateRun & { iavl: IavlRun } => r.iavl !== undefined);
  const ratio = (f: (s: StateRun | IavlRun) => number) => range(paired.map((r) => f(r) / f(r.iavl)));
  const cells = [
    `${range(runs.map((r) => r.startupMs))} / ${range(paired.map((r) => r.iavl.startupMs))} (${ratio((s) => s.startupMs)})`,
    ...KINDS.map(
      (k) =>
        `${range(runs.map((r) => r.blocks[k].cpuMs.median))} / ${range(paired.map((r) => r.iavl.blocks[k].cpuMs.median))} (**${ratio((s) => s.blocks[k].cpuMs.median)}**)`,
    ),
    (["spread100", "spread1000"] as const).map((k) => range(runs.map((r) => (r.blocks[k].cpuMs.median * 1000) / r.blocks[k].written))).join(" / "),
    `${range(runs.map((r) => r.peakRssMiB))} / ${range(paired.map((r) => r.iavl.peakRssMiB))} (${ratio((s) => s.peakRssMiB)})`,
  ];
  console.log(`| ${fmtKeys(keys)} | ${cells.join(" | ")} |`);
}

console.log("\n| target | met in |\n| --- | --- |");
for (const { target } of all[0].targets) {
  const met = all.filter((r) => r.targets.find((t) => t.target === target)?.met).length;
  console.log(`| ${target.replace(/ \(case 11\)$/, "")} | ${met} of ${all.length} |`);
}
