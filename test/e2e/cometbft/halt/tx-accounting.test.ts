/** The transaction accounting of the fault suite (tx-accounting.ts), on made-up records: each category, the duplicates, the latencies. */
import { describe, expect, it } from "vitest";
import type { SentTx, Told } from "../../../support/tx-load.js";
import { accountTxs, type BlockTx } from "./tx-accounting.js";

const tx = (txhash: string, told: Told, o: Partial<SentTx> = {}): SentTx => ({
  sender: "u",
  client: "wait",
  node: 0,
  sequence: 0,
  txhash,
  accepted: true,
  sentAt: 1000,
  doneAt: 1500,
  told,
  ...o,
});
const block = (height: number, txhash: string, code = 0): BlockTx => ({ height, txhash, code });

describe("accounting for every transaction", () => {
  it("sorts each into committed, told, refused, not sent or silently lost, and counts duplicates and wrong heights", () => {
    const sent = [
      tx("A", { kind: "included", height: 5, code: 0 }, { sentAt: 1000, doneAt: 1200 }),
      tx("B", { kind: "included", height: 9, code: 0 }, { sentAt: 1000, doneAt: 9000 }), // across the halt at 2000
      tx("C", { kind: "halt", stage: "mempool", waited: false }), // told, then committed from a kept mempool
      tx("D", { kind: "halt", stage: "not-sent", waited: false }, { accepted: false }), // told, in no block
      tx("E", { kind: "refused", code: 2, codespace: "xupgrade", log: "chain halted…", halt: true }, { accepted: false }),
      tx("F", { kind: "refused", code: 5, codespace: "sdk", log: "insufficient funds", halt: false }, { accepted: false }),
      tx("G", { kind: "error", message: "cannot reach node" }, { accepted: false }),
      tx("H", { kind: "error", message: "timed out" }), // accepted, in no block, not told plainly
      tx("I", { kind: "included", height: 6, code: 0 }), // the client was told a height no block holds it at
      tx("J", { kind: "superseded" }),
    ];
    const blocks = [block(5, "A"), block(9, "B"), block(7, "C"), block(8, "C", 32), block(7, "I")];
    const { lost, ...f } = accountTxs(sent, blocks, 2000);
    expect(f).toMatchObject({
      sent: 10,
      accepted: 6,
      committed: 4,
      told_then_committed: 1,
      dropped_and_told: 3,
      refused: 1,
      not_sent: 1,
      silently_lost: 1,
      duplicated: 1,
      wrong_height: 1,
      failed_in_block: 0,
      across_halt: 1,
      across_halt_p50_ms: 8000,
    });
    expect(lost.map((t) => t.txhash)).toEqual(["H"]);
  });
});
