/**
 * `npm run test:faults -- [--runs N] [--case name,…] [--json file]`: the halt fault suite (cases.ts), each
 * case N times (default 1) on a fresh four-validator CometBFT testnet, one run at a time, then one line per
 * case: passed/runs, the median and slowest run, what the runs measured. Exits 1 when a run failed, 2 when a
 * peer it needs is not built (`npm run peers`). The results also go to test-output/faults.json (or --json).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { missingPeerReason, peerBinaries } from "../../../../scripts/peers/paths.mjs";
import { cleanBuilt } from "../../../apps/cli/helpers.js";
import { ROOT } from "../../../support/paths.js";
import { CASES, type HaltCase, type Measures } from "./cases.js";
import { FaultNet } from "./net.js";

interface RunResult {
  ok: boolean;
  ms: number;
  measures?: Measures;
  error?: string;
}

const { values } = parseArgs({
  options: { runs: { type: "string", default: "1" }, case: { type: "string" }, json: { type: "string" } },
  allowPositionals: false,
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
const wanted = values.case?.split(",").map((s) => s.trim());
const unknown = wanted?.filter((n) => !CASES.some((c) => c.name === n)) ?? [];
if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(", ")}: the cases are ${CASES.map((c) => c.name).join(", ")}`);
const cases = CASES.filter((c) => !wanted || wanted.includes(c.name));

const peers = peerBinaries() as { cometbft?: string; cosmovisor?: string };
const missing = [!peers.cometbft && (missingPeerReason("cometbft") ?? "CometBFT is not built"), cases.some((c) => c.needs === "cosmovisor") && !peers.cosmovisor && (missingPeerReason("cosmovisor") ?? "cosmovisor is not built")].filter(Boolean);
if (missing.length > 0) {
  console.error(`test:faults: ${missing.join("; ")} — run \`npm run peers\``);
  process.exit(2);
}

/** A run longer than this has hung: it fails, with the logs. */
const RUN_LIMIT_MS = 360_000;

async function once(c: HaltCase, n: number): Promise<RunResult> {
  const t0 = Date.now();
  const net = await FaultNet.create(peers.cometbft!);
  let timer: NodeJS.Timeout | undefined;
  try {
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no result after ${RUN_LIMIT_MS / 1000} s`)), RUN_LIMIT_MS)));
    const measures = await Promise.race([c.run(net, { cosmovisor: peers.cosmovisor }), limit]);
    return { ok: true, ms: Date.now() - t0, measures };
  } catch (e) {
    const logs = join(ROOT, "test-output", "faults", `${c.name}-${n}`);
    net.saveLogs(logs);
    return { ok: false, ms: Date.now() - t0, error: `${e instanceof Error ? e.message : String(e)} (logs: ${logs})` };
  } finally {
    clearTimeout(timer);
    await net.close();
  }
}

const results = new Map<string, RunResult[]>();
try {
  for (const c of cases) {
    const list: RunResult[] = [];
    results.set(c.name, list);
    for (let i = 1; i <= runs; i++) {
      const r = await once(c, i);
      list.push(r);
      const what = r.ok ? `ok ${JSON.stringify(r.measures)}` : `FAILED: ${r.error}`;
      console.log(`${c.name} ${i}/${runs}: ${(r.ms / 1000).toFixed(1)} s ${what}`);
    }
  }
} finally {
  cleanBuilt();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log("\n| case | passed | median s | slowest s |");
console.log("| --- | --- | --- | --- |");
for (const c of cases) {
  const list = results.get(c.name)!;
  const ms = list.map((r) => r.ms);
  console.log(`| ${c.name}: ${c.title} | ${list.filter((r) => r.ok).length}/${list.length} | ${(median(ms) / 1000).toFixed(0)} | ${(Math.max(...ms) / 1000).toFixed(0)} |`);
}
const out = values.json ?? join(ROOT, "test-output", "faults.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ runs, cases: Object.fromEntries([...results].map(([k, v]) => [k, v])) }, null, 2) + "\n");
const failed = [...results.values()].flat().filter((r) => !r.ok).length;
process.exit(failed > 0 ? 1 : 0);
