/**
 * The fault suite's upgrade timeline (timeline.ts), from recorded lines: each node's marks from its own records,
 * the visor's stderr or cosmovisor's stdout lines; the network's figures, the quorum by power.
 */
import { describe, expect, it } from "vitest";
import { networkMeasures, nodeTimeline, quorumAt, visorLines, type NodeTimeline } from "./timeline.js";

const T0 = Date.parse("2026-01-02T03:04:05.000Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();

const nodeRecords = (H: number, marks: Record<string, number>) => [
  { level: "info", msg: "committed block", height: String(H - 1), time: iso(-500) },
  { level: "error", msg: "halting the node", height: String(H), time: iso(marks.halt) },
  { level: "info", msg: "starting devnet", app: "example-v2", time: iso(marks.boot) },
  { level: "info", msg: "started CometBFT", time: iso(marks.comet) },
  { level: "info", msg: "Completed ABCI Handshake - CometBFT and App are synced", time: iso(marks.handshake) },
  { level: "info", msg: "serving", time: iso(marks.serving) },
  { level: "info", msg: "committed block", height: String(H + 1), time: iso(marks.firstBlock) },
];

describe("the upgrade timeline", () => {
  it("reads a visor's node: its records and the visor's own lines (rfc3339nano)", () => {
    const stderr = [
      `${iso(40)} INF upgrade "v2" needed at height 31 module=visor`,
      `${iso(41)} INF daemon shutting down in an attempt to restart module=visor`,
      `${iso(140)} INF upgrade detected, relaunching app=xupgraded module=visor`,
      "devnet running: rpc http://127.0.0.1:1",
    ].join("\n");
    const t = nodeTimeline({
      node: 0,
      power: 10,
      H: 31,
      kind: "visor",
      records: nodeRecords(31, { halt: 0, boot: 2000, comet: 2100, handshake: 2500, serving: 2600, firstBlock: 4000 }),
      stderr,
    });
    expect(t).toEqual({
      node: 0,
      power: 10,
      halt: T0,
      noticed: T0 + 40,
      relaunch: T0 + 140,
      boot: T0 + 2000,
      comet: T0 + 2100,
      handshake: T0 + 2500,
      serving: T0 + 2600,
      firstBlock: T0 + 4000,
      waitedForCometbft: false,
    });
    expect(visorLines(stderr)).toHaveLength(3);
  });

  it("reads a cosmovisor's node from the moments its lines arrived, and prefers the file's time for the halt", () => {
    const records = [
      ...nodeRecords(9, { halt: 5, boot: 3000, comet: 3100, handshake: 3300, serving: 3400, firstBlock: 5000 }),
      { level: "text", msg: "2026-01-02T03:04:05Z INF daemon shutting down in an attempt to restart module=cosmovisor", at: T0 + 300 },
      { level: "text", msg: "2026-01-02T03:04:05Z INF upgrade detected, relaunching app=xupgraded module=cosmovisor", at: T0 + 420 },
      { level: "info", msg: "waiting for the CometBFT of an earlier run to stop", time: iso(3050) },
    ];
    const t = nodeTimeline({ node: 1, power: 5, H: 9, kind: "cosmovisor", records, stderr: "", halt: T0 });
    expect(t.halt).toBe(T0);
    expect(t.noticed).toBe(T0 + 300);
    expect(t.relaunch).toBe(T0 + 420);
    expect(t.waitedForCometbft).toBe(true);
  });

  it("the quorum is the moment the nodes at a mark first hold more than 2/3 of the power", () => {
    const ts: NodeTimeline[] = [
      { node: 0, power: 30, serving: 100, waitedForCometbft: false },
      { node: 1, power: 20, serving: 300, waitedForCometbft: false },
      { node: 2, power: 17, serving: 200, waitedForCometbft: false },
      { node: 3, power: 33, serving: 400, waitedForCometbft: false },
    ];
    // 30 (100) → 47 (200) → 67 (300): 67 > 66.67
    expect(quorumAt(ts, "serving")).toBe(300);
    // A node without the mark never counts: 30 + 17 of 100 never make 2/3.
    expect(quorumAt([ts[0], ts[2], { ...ts[1], serving: undefined }, { ...ts[3], serving: undefined }], "serving")).toBe(undefined);
  });

  it("the network's figures: first halt to first block, the spread of the halts, each step's median", () => {
    const mk = (node: number, halt: number, serving: number, firstBlock: number): NodeTimeline => ({
      node,
      power: 25,
      halt,
      noticed: halt + 100,
      relaunch: halt + 200,
      boot: halt + 1200,
      comet: halt + 1300,
      handshake: halt + 1600,
      serving,
      firstBlock,
      waitedForCometbft: false,
    });
    const m = networkMeasures([mk(0, 1000, 3000, 5000), mk(1, 1010, 3100, 5010), mk(2, 1050, 2900, 5020), mk(3, 1200, 4000, 5030)]);
    expect(m).toEqual({
      halt_spread_ms: 200,
      halt_to_first_new_block_ms: 4000,
      halt_to_quorum_serving_ms: 2100, // the third node serving (75 %)
      quorum_serving_to_block_ms: 1900,
      detect_ms: 100,
      switch_ms: 100,
      boot_ms: 1000,
      comet_start_ms: 100,
      handshake_ms: 300,
      serve_ms: 400,
      halt_to_serving_ms: 2000,
      waited_for_old_cometbft: 0,
    });
  });
});
