/**
 * A block's transactions, proven by its verified header (docs/spec/light-client.md §4.9): the header's `data_hash`
 * is CometBFT's `Data.Hash()` — the simple Merkle root over each transaction's SHA-256 — so the transactions a node
 * hands over are the block's exactly when they hash to it. What rests on it: a block record's `num_txs`.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes } from "../base/bytes.js";
import { hex, ProofError } from "./errors.js";
import { hashFromByteSlices } from "./merkle.js";
import type { Header } from "./types.js";

/** CometBFT's Txs.Hash(): the Merkle root over the transactions' SHA-256 hashes. */
export function dataHash(txs: readonly Uint8Array[]): Uint8Array {
  return hashFromByteSlices(txs.map((tx) => sha256(tx)));
}

/** The transactions of the block whose verified header is `header`, or a ProofError when they are not its own. */
export function proveTxs(header: Header, txs: readonly Uint8Array[]): readonly Uint8Array[] {
  const got = dataHash(txs);
  if (!equalBytes(got, header.dataHash)) {
    throw new ProofError(
      `the ${txs.length} transactions the node gave hash to ${hex(got)}, not the verified header's data_hash ${hex(header.dataHash)}`,
      header.height,
    );
  }
  return txs;
}
