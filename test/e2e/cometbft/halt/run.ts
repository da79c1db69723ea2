/**
 * `npm run test:faults -- [--net four|seven|tx] [--case name,…] [--runs N] [--seed S] [--timeout-propose d] [--keep-logs] [--json file]`:
 * the halt fault suite (cases.ts), each case N times (default 1) on a fresh CometBFT testnet, one run at a
 * time, then one line per case: passed/runs, the median and slowest run, and the median of each number the
 * runs measured. Run i of every case uses the proxy seed S + i (default S = 1), so two cases of one series
 * (visors and cosmovisors) see the same faults run for run. `--timeout-propose` sets CometBFT's on every node
 * (default the testnet's 1s). Exits 1 when a run failed, 2 when a peer it
 * needs is not built (`npm run peers`). The results also go to test-output/faults.json (or --json); a failed
 * run's logs (every run's, with --keep-logs) to test-output/faults/<case>-<n>/.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { missingPeerReason, peerBinaries } from "../../../../scripts/peers/paths.mjs";
import { ROOT } from "../../../support/paths.js";
import { CASES, netOptions, type HaltCase, type Measures } from "./cases.js";
import { FaultNet } from "./net.js";

interface RunResult {
  ok: boolean;
  ms: number;
  seed: number;
  /** The 1-minute load average when the run started and ended. */
  load: [number, number];
  measures?: Measures;
  error?: string;
}

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1" },
    case: { type: "string" },
    net: { type: "string" },
    seed: { type: "string", default: "1" },
    "timeout-propose": { type: "string" },
    json: { type: "string" },
    "keep-logs": { type: "boolean", default: false },
  },
  allowPositionals: false,
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
const seed = Number(values.seed);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
const wanted = values.case?.split(",").map((s) => s.trim());
const unknown = wanted?.filter((n) => !CASES.some((c) => c.name === n)) ?? [];
if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(", ")}: the cases are ${CASES.map((c) => c.name).join(", ")}`);
const nets = values.net?.split(",").map((s) => s.trim());
const knownNets = [...new Set(CASES.map((c) => c.net))];
const badNet = nets?.filter((n) => !knownNets.includes(n as HaltCase["net"])) ?? [];
if (badNet.length > 0) throw new Error(`unknown net ${badNet.join(", ")}: the nets are ${knownNets.join(", ")}`);
const cases = CASES.filter((c) => (!wanted || wanted.includes(c.name)) && (!nets || nets.includes(c.net)));

const peers = peerBinaries() as { cometbft?: string; cosmovisor?: string };
const missing = [
  !peers.cometbft && (missingPeerReason("cometbft") ?? "CometBFT is not built"),
  cases.some((c) => c.needs === "cosmovisor") && !peers.cosmovisor && (missingPeerReason("cosmovisor") ?? "cosmovisor is not built"),
].filter(Boolean);
if (missing.length > 0) {
  console.error(`test:faults: ${missing.join("; ")} — run \`npm run peers\``);
  process.exit(2);
}

/** A run longer than this has hung: it fails, with the logs. */
const RUN_LIMIT_MS = 420_000;
const load1 = () => Math.round(loadavg()[0] * 10) / 10;

async function once(c: HaltCase, n: number): Promise<RunResult> {
  const t0 = Date.now();
  const l0 = load1();
  const runSeed = seed + n;
  const net = await FaultNet.create(peers.cometbft!, { ...netOptions(c, runSeed), timeoutPropose: values["timeout-propose"] });
  const logs = join(ROOT, "test-output", "faults", `${c.name}-${n}`);
  let timer: NodeJS.Timeout | undefined;
  try {
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no result after ${RUN_LIMIT_MS / 1000} s`)), RUN_LIMIT_MS)));
    const measures = await Promise.race([c.run(net, { cosmovisor: peers.cosmovisor }), limit]);
    if (values["keep-logs"]) net.saveLogs(logs);
    return { ok: true, ms: Date.now() - t0, seed: runSeed, load: [l0, load1()], measures };
  } catch (e) {
    net.saveLogs(logs);
    return { ok: false, ms: Date.now() - t0, seed: runSeed, load: [l0, load1()], error: `${e instanceof Error ? e.message : String(e)} (logs: ${logs})` };
  } finally {
    clearTimeout(timer);
    await net.close();
  }
}

const results = new Map<string, RunResult[]>();
const started = Date.now();
for (const c of cases) {
  const list: RunResult[] = [];
  results.set(c.name, list);
  for (let i = 1; i <= runs; i++) {
    const r = await once(c, i);
    list.push(r);
    const { timelines: _t, ...shown } = r.measures ?? {};
    const what = r.ok ? `ok ${JSON.stringify(shown)}` : `FAILED: ${r.error}`;
    console.log(`${c.name} ${i}/${runs}: ${(r.ms / 1000).toFixed(1)} s, load ${r.load[0]}→${r.load[1]}, ${what}`);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log(`\n${cases.length} case(s) × ${runs} run(s) in ${((Date.now() - started) / 60_000).toFixed(1)} min`);
console.log("\n| case | passed | median s | slowest s | load | medians of what the passed runs measured |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const c of cases) {
  const list = results.get(c.name)!;
  const ms = list.map((r) => r.ms);
  const loads = list.flatMap((r) => r.load);
  const numbers = new Map<string, number[]>();
  for (const r of list) {
    if (!r.ok) continue;
    for (const [k, v] of Object.entries(r.measures ?? {})) if (typeof v === "number" && k !== "H") numbers.set(k, [...(numbers.get(k) ?? []), v]);
  }
  const summary = [...numbers].map(([k, v]) => `${k} ${median(v)} (${Math.min(...v)}–${Math.max(...v)})`).join("; ");
  console.log(
    `| ${c.name}: ${c.title} | ${list.filter((r) => r.ok).length}/${list.length} | ${(median(ms) / 1000).toFixed(0)} | ${(Math.max(...ms) / 1000).toFixed(0)} | ${Math.min(...loads)}–${Math.max(...loads)} | ${summary} |`,
  );
}
const out = values.json ?? join(ROOT, "test-output", "faults.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify({ runs, seed, timeoutPropose: values["timeout-propose"] ?? "1s", cases: Object.fromEntries([...results].map(([k, v]) => [k, v])) }, null, 2) +
    "\n",
);
const failed = [...results.values()].flat().filter((r) => !r.ok).length;
process.exit(failed > 0 ? 1 : 0);
