/**
 * Records a header-time series for the ETA backtest (bench/eta/backtest.ts) from a real four-validator CometBFT
 * testnet (`xupgrade devnet init --engine cometbft`, every p2p link through test/support/fault-proxy.ts) while
 * faults are injected on a schedule: slow rounds (delay and jitter on every link), one validator cut off (its
 * turns as proposer time out), two cut off (no 2/3: the chain stops until they return), dropped connections.
 * At the end every header's height and time is read from node 0 (`blockchain`, 20 at a time) and written with
 * the schedule to bench/eta/series/<name>.json.
 *
 *   flock /tmp/xupgrade-heavy.lock node --import tsx bench/eta/record-testnet.ts --minutes 40 --name testnet-faults-1
 *   flock /tmp/xupgrade-heavy.lock node --import tsx bench/eta/record-testnet.ts --minutes 35 --name testnet-rhythm-1 --schedule rhythm
 *
 * (The fault proxy's heal of one cut also ends another cut of the same node: the schedules do not overlap cuts.)
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { peerBinaries } from "../../scripts/peers/paths.mjs";
import { FaultNet, V1, rpc } from "../../test/e2e/cometbft/halt/net.js";
import { ROOT } from "../../test/support/paths.js";

const { values } = parseArgs({
  options: { minutes: { type: "string", default: "40" }, name: { type: "string", default: "testnet-faults" }, schedule: { type: "string", default: "faults" } },
});
const minutes = Number(values.minutes);
const cometbft = peerBinaries().cometbft;
if (!cometbft) throw new Error("CometBFT is not built: npm run peers");

/** A fault: from `at` (fraction of the run) for `forMs`. */
interface Step {
  at: number;
  forMs: number;
  what: string;
  apply(net: FaultNet): void;
  undo(net: FaultNet): void;
}
const calm = (net: FaultNet) => net.proxy.setFaults({});
// A repeating pattern, as a chain's day repeats: slow stretches, an outage, a stop, calm in between.
const pattern = (offset: number, span: number): Step[] => [
  {
    at: offset + 0.1 * span,
    forMs: 0.12 * span * minutes * 60_000,
    what: "slow rounds: 250 ± 200 ms on every link",
    apply: (n) => n.proxy.setFaults({ delayMs: 250, jitterMs: 200 }),
    undo: calm,
  },
  {
    at: offset + 0.35 * span,
    forMs: 0.1 * span * minutes * 60_000,
    what: "one validator cut off (reset)",
    apply: (n) => n.proxy.cut("node3", 0.1 * span * minutes * 60_000, "reset"),
    undo: (n) => n.proxy.heal("node3"),
  },
  {
    at: offset + 0.55 * span,
    forMs: 0.04 * span * minutes * 60_000,
    what: "two validators cut off: no 2/3, the chain stops",
    apply: (n) => (n.proxy.cut("node2", 0.04 * span * minutes * 60_000, "blackhole"), n.proxy.cut("node3", 0.04 * span * minutes * 60_000, "blackhole")),
    undo: (n) => (n.proxy.heal("node2"), n.proxy.heal("node3")),
  },
  {
    at: offset + 0.7 * span,
    forMs: 0.15 * span * minutes * 60_000,
    what: "dropped connections (mean life 5 s) and 100 ± 80 ms",
    apply: (n) => n.proxy.setFaults({ delayMs: 100, jitterMs: 80, dropMeanMs: 5_000 }),
    undo: calm,
  },
];
// Another mix, for checking the model on a series it was not tuned on: a rhythm of busy and calm stretches
// (every link slowed for a fifth of each sixth of the run), a long outage of one validator, a longer stop.
const rhythm = (): Step[] => [
  ...[0, 1, 2, 3, 4, 5].map((k) => ({
    at: k / 6 + 0.02,
    forMs: (minutes * 60_000) / 30,
    what: "busy: 400 ± 300 ms on every link",
    apply: (n: FaultNet) => n.proxy.setFaults({ delayMs: 400, jitterMs: 300 }),
    undo: calm,
  })),
  {
    at: 0.4,
    forMs: 0.12 * minutes * 60_000,
    what: "one validator cut off (blackhole)",
    apply: (n) => n.proxy.cut("node1", 0.12 * minutes * 60_000, "blackhole"),
    undo: (n) => n.proxy.heal("node1"),
  },
  {
    at: 0.75,
    forMs: 0.05 * minutes * 60_000,
    what: "two validators cut off: no 2/3, the chain stops",
    apply: (n) => (n.proxy.cut("node0", 0.05 * minutes * 60_000, "reset"), n.proxy.cut("node2", 0.05 * minutes * 60_000, "reset")),
    undo: (n) => (n.proxy.heal("node0"), n.proxy.heal("node2")),
  },
];
const steps = (values.schedule === "rhythm" ? rhythm() : [...pattern(0, 0.5), ...pattern(0.5, 0.5)]).sort((a, b) => a.at - b.at);

const net = await FaultNet.create(cometbft);
const log: { at_ms: number; what: string }[] = [];
const t0 = Date.now();
try {
  await Promise.all(net.nodes.map((_, i) => net.start(i, V1)));
  await net.allAt([0, 1, 2, 3], 3);
  const started = Date.now();
  const endAt = started + minutes * 60_000;
  for (const s of steps) {
    const at = started + s.at * minutes * 60_000;
    await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
    s.apply(net);
    log.push({ at_ms: Date.now() - started, what: s.what });
    console.log(`${((Date.now() - started) / 60_000).toFixed(1)} min: ${s.what} (${(s.forMs / 1000).toFixed(0)} s)`);
    setTimeout(() => s.undo(net), s.forMs).unref();
  }
  await new Promise((r) => setTimeout(r, Math.max(0, endAt - Date.now())));
  const top = (await net.status(0))!.height;
  const headers: [number, number][] = [];
  for (let h = 2; h <= top; h += 20) {
    const r = await rpc<{ block_metas: { header: { height: string; time: string } }[] }>(net.nodes[0].rpc, "blockchain", {
      minHeight: String(h),
      maxHeight: String(Math.min(top, h + 19)),
    });
    for (const m of r!.block_metas) headers.push([Number(m.header.height), Date.parse(m.header.time.replace(/(\.\d{3})\d+/, "$1"))]);
  }
  headers.sort((a, b) => a[0] - b[0]);
  const base = headers[0][1];
  const out = {
    source: `a local four-validator CometBFT v0.38 testnet (xupgrade devnet --engine cometbft, timeout_commit 200 ms) with faults injected through the p2p fault proxy (schedule "${values.schedule}")`,
    recorded: new Date(t0).toISOString(),
    minutes,
    faults: log,
    base_ms: base,
    // [height, ms after base_ms]
    headers: headers.map(([h, ms]) => [h, ms - base]),
  };
  const file = join(ROOT, "bench/eta/series", `${values.name}.json`);
  writeFileSync(file, JSON.stringify(out) + "\n");
  console.log(`${headers.length} headers (${headers[0][0]}–${headers.at(-1)![0]}) in ${file}`);
} finally {
  await net.close();
}
