/**
 * CheckTx and the mempool. The check state is a branch of the committed state on which each accepted tx's
 * ante handler ran (so a second tx of the same account needs the next sequence); it starts over after
 * every commit. CometBFT keeps its own mempool and rechecks it after each block; the single-process
 * engine keeps {@link Mempool}, which does the same.
 */
import { Branch, type StoreView } from "../shared/branch.js";
import { toTxError, txErrors } from "../shared/errors.js";
import { decodeTx, runAnte, type DecodedTx } from "./tx.js";
import { hexUpper, sha256 } from "../shared/util.js";
import type { Logger } from "../../../base/logger.js";

export interface CheckTxResult {
  code: number;
  codespace: string;
  log: string;
  /** Uppercase hex of the tx hash. */
  hash: string;
  gasWanted: bigint;
  gasUsed: bigint;
  /** The decoded tx when it was accepted. */
  tx?: DecodedTx;
}

export class CheckState {
  private branch: Branch;

  constructor(
    private readonly stores: StoreView,
    private readonly chainId: string,
  ) {
    this.branch = new Branch(stores);
  }

  /** Decodes `bytes` and runs the ante handler for block `height` on the check state; the writes stay only when it passes. */
  check(bytes: Uint8Array, height: bigint): CheckTxResult {
    const hash = hexUpper(sha256(bytes));
    let tx: DecodedTx;
    try {
      tx = decodeTx(bytes);
      const attempt = this.branch.branch();
      const ante = runAnte(attempt, tx, { chainId: this.chainId, height });
      attempt.write();
      return { code: 0, codespace: "", log: "", hash, gasWanted: ante.gasWanted, gasUsed: ante.gasUsed, tx };
    } catch (e) {
      return rejected(hash, e);
    }
  }

  /** After a commit: the check state is the committed state again. */
  reset(): void {
    this.branch = new Branch(this.stores);
  }
}

export function rejected(hash: string, e: unknown): CheckTxResult {
  const t = toTxError(e);
  return { code: t.code, codespace: t.codespace, log: t.log, hash, gasWanted: 0n, gasUsed: 0n };
}

const MAX_MEMPOOL = 5000;

/** The single-process engine's mempool: accepted txs in arrival order, rechecked after every block. */
export class Mempool {
  readonly txs: DecodedTx[] = [];
  private readonly hashes = new Set<string>();

  constructor(
    private readonly check: (bytes: Uint8Array) => CheckTxResult,
    private readonly logger: Required<Logger>,
  ) {}

  /** CheckTx: accepted txs join the mempool. */
  add(bytes: Uint8Array): CheckTxResult {
    const hash = hexUpper(sha256(bytes));
    if (this.hashes.has(hash)) return rejected(hash, txErrors.txInMempool());
    if (this.txs.length >= MAX_MEMPOOL) return rejected(hash, txErrors.mempoolIsFull(`mempool is full: ${this.txs.length} txs`));
    const r = this.check(bytes);
    if (r.code === 0 && r.tx) {
      this.txs.push(r.tx);
      this.hashes.add(hash);
    }
    return r;
  }

  /** The txs of the next block, oldest first. */
  take(max: number): DecodedTx[] {
    return this.txs.slice(0, max);
  }

  /** After a commit of the first `included` txs (the check state was reset): drops them and rechecks the rest. */
  committed(included: number): void {
    for (const tx of this.txs.splice(0, included)) this.hashes.delete(tx.hashHex);
    const keep: DecodedTx[] = [];
    for (const tx of this.txs) {
      const r = this.check(tx.bytes);
      if (r.code === 0) keep.push(tx);
      else {
        this.hashes.delete(tx.hashHex);
        this.logger.debug("tx removed from the mempool on recheck", { module: "mempool", tx: tx.hashHex, err: r.log });
      }
    }
    this.txs.splice(0, this.txs.length, ...keep);
  }
}
