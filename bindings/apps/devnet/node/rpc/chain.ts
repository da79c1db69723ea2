/**
 * What the single-process engine's CometBFT-compatible RPC (this folder) reads from the chain it serves: blocks
 * and their records, the tx index, the mempool and CheckTx. The engine (node/engine/local/chain.ts) implements
 * it over the shared state machine (chain/state.ts); on CometBFT, CometBFT's own RPC answers all of this.
 */
import type { BlockRecord, ValidatorInfo } from "../../chain/blocks.js";
import type { CheckTxResult } from "../../chain/mempool.js";
import type { DecodedTx } from "../../chain/tx.js";

export type { CheckTxResult };

export interface Chain {
  readonly chainId: string;
  /** The simulated validators (the engine signs every commit for all of them). */
  readonly validators: readonly ValidatorInfo[];
  /** The host's app version (the protocol version set by applied upgrades). */
  readonly appVersion: bigint;
  /** The last committed height (0 before block 1). */
  readonly height: bigint;
  /** The record of the last committed block. */
  readonly latest: BlockRecord | undefined;
  /** Accepted txs waiting for a block, oldest first. */
  readonly mempool: readonly DecodedTx[];
  /** The app hash after the last committed block. */
  appHash(): Uint8Array;
  getBlock(height: bigint): BlockRecord | undefined;
  /** CheckTx: accepted txs join the mempool. */
  checkTx(bytes: Uint8Array): CheckTxResult;
  /** Called with every committed block's record; returns the unsubscribe function. */
  onCommit(fn: (rec: BlockRecord) => void): () => void;
  /** Where a committed tx is (height and index in its block). */
  findTx(hash: Uint8Array): { height: bigint; index: number } | undefined;
  /** Every committed tx hash with its position, in hash order. */
  allTxs(): IterableIterator<{ hash: Uint8Array; height: bigint; index: number }>;
}
