#!/usr/bin/env node
// npm run fuzz:ics23 -- --cases N [--seed S] [--only I,J,…] [--no-go]
//
// The ICS23 differential suite's long run (docs/spec/core.md §14.6; the bounded run is in `npm test`,
// test/core/ics23-differential.test.ts): N seeded adversarial encodings of genuine proofs against the wasm core,
// the js core, @confio/ics23 and the Go oracle (cosmos/ics23 v0.11, built by `npm run peers -- --only
// light-oracle`; without it the run says so and goes on with the other three, unless it is --no-go already).
// Prints the counts per mutation kind and every disagreement with its reproducer (the case as the Go oracle
// reads it, and `--seed S --only I` to run it again); exits 1 on a disagreement, 2 on bad arguments.
import { register } from "tsx/esm/api";
import { missingPeerReason, peerBinaries } from "./peers/paths.mjs";

const USAGE = "usage: npm run fuzz:ics23 -- --cases N [--seed S] [--only I,J,…] [--no-go]";
const args = process.argv.slice(2);
let cases = 100_000;
let seed = 1;
let only;
let useGo = true;
for (let i = 0; i < args.length; i++) {
  const next = () => args[++i];
  if (args[i] === "--cases") cases = Number(next());
  else if (args[i] === "--seed") seed = Number(next());
  else if (args[i] === "--only") only = String(next()).split(",").map(Number);
  else if (args[i] === "--no-go") useGo = false;
  else {
    console.error(USAGE);
    process.exit(2);
  }
}
if (!Number.isSafeInteger(cases) || cases < 1 || !Number.isSafeInteger(seed) || (only && only.some((x) => !Number.isSafeInteger(x) || x < 0))) {
  console.error(USAGE);
  process.exit(2);
}

register(); // tsx: the sources below are TypeScript, imported by their .js names as they import each other
const { loadCore } = await import("../bindings/core/index.js");
const { GoOracle, MUTATION_KINDS, runDifferential } = await import("../test/core/ics23-differential.js");

let go;
if (useGo) {
  const bin = peerBinaries().lightOracle;
  if (bin) go = new GoOracle(bin);
  else console.log(`the Go oracle is not built (${missingPeerReason("light-oracle")}): running without it`);
}

const total = only ? only.length : cases;
console.log(`ICS23 differential: ${total} cases, seed ${seed}; wasm, js, @confio/ics23${go ? ", cosmos/ics23 v0.11 (Go)" : ""}`);
let last = 0;
const cpu0 = process.cpuUsage();
const report = await runDifferential({
  seed,
  cases,
  only,
  wasm: await loadCore("wasm"),
  js: await loadCore("js"),
  go,
  batch: 2000,
  maxDisagreements: 50,
  onBatch(done, r) {
    if (r.ms - last < 30_000 && done < total) return;
    last = r.ms;
    console.log(`  ${done} cases, ${(r.ms / 1000).toFixed(0)} s, ${r.disagreements.length} disagreements`);
  },
});
await go?.close();

const cpu = process.cpuUsage(cpu0);
const cols = ["cases", "accepted", "nonCanonical", "malformed", "otherRefusal", "refsAgreeAccept", "refsAgreeRefuse", "refsDisagree"];
const head = ["kind", "cases", "accepted", "non-canonical", "malformed", "other refusal", "refs accept", "refs refuse", "refs disagree"];
const rows = MUTATION_KINDS.filter((k) => report.counts[k]).map((k) => [k, ...cols.map((c) => String(report.counts[k][c]))]);
const sum = ["total", ...cols.map((c) => String(Object.values(report.counts).reduce((n, k) => n + k[c], 0)))];
const widths = head.map((h, i) => Math.max(h.length, ...[...rows, sum].map((r) => r[i].length)));
const line = (r) => r.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join("  ");
console.log(`\n${line(head)}\n${[...rows, sum].map(line).join("\n")}`);
console.log(
  `\n${report.cases} cases in ${(report.ms / 1000).toFixed(1)} s (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU in this process), seed ${seed}`,
);
if (!go) console.log("(no Go oracle: agreement of the references was not required where only @confio/ics23 judged)");
if (report.disagreements.length === 0) {
  console.log("no disagreement");
  process.exit(0);
}
console.log(`\n${report.disagreements.length} disagreement(s):`);
for (const d of report.disagreements) {
  console.log(`\ncase ${d.index} (${d.kind}, ${d.pool}): npm run fuzz:ics23 -- --seed ${seed} --only ${d.index}`);
  for (const p of d.problems) console.log(`  ${p}`);
  console.log(`  ${d.reproducer}`);
}
process.exit(1);
