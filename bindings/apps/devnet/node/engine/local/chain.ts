/**
 * The single-process engine's chain: it plays CometBFT for the shared state machine. It picks the next
 * block's time from the wall clock (never earlier than the last block's), takes txs from its own mempool,
 * has the state machine execute and commit the block, and keeps CometBFT-shaped block records (header,
 * block id, commit signed by every simulated validator) and a tx index in host stores, committed in the
 * same batch as the block but outside the app hash.
 */
import type { DevnetGenesis } from "../../../shared/genesis.js";
import { EMPTY_BLOCK_ID, EMPTY_COMMIT, buildBlock, signCommit, type BlockRecord, type ValidatorInfo } from "../../../chain/blocks.js";
import type { Chain } from "../../rpc/chain.js";
import { eventJson } from "../../../shared/events.js";
import { Mempool, type CheckTxResult } from "../../../chain/mempool.js";
import { BlockHaltError, type ChainState } from "../../../chain/state.js";
import type { DecodedTx } from "../../../chain/tx.js";
import { be64, fromUtf8, hexUpper, nowNs, sha256, utf8 } from "../../../shared/util.js";
import type { Logger } from "../../../../../base/logger.js";

/** Host stores of this engine (see HOST_STORES in chain/app.ts): block records by height, the tx index by hash. */
const BLOCKS = "_blocks";
const TXS = "_txs";

export interface LocalChainOptions {
  genesis: DevnetGenesis;
  validators: ValidatorInfo[];
  maxTxsPerBlock: number;
  logger: Required<Logger>;
}

export class LocalChain implements Chain {
  readonly validators: ValidatorInfo[];
  latest: BlockRecord | undefined;
  private readonly pool: Mempool;
  private readonly listeners = new Set<(rec: BlockRecord) => void>();
  private readonly blockCache = new Map<bigint, BlockRecord>();

  constructor(
    readonly state: ChainState,
    private readonly o: LocalChainOptions,
  ) {
    this.validators = o.validators;
    this.pool = new Mempool((bytes) => state.checkTx(bytes), o.logger);
    const h = state.height;
    this.latest = h > 0n ? this.getBlock(h) : undefined;
  }

  get chainId(): string {
    return this.state.chainId;
  }

  get appVersion(): bigint {
    return this.state.appVersion;
  }

  get height(): bigint {
    return this.state.height;
  }

  get mempool(): readonly DecodedTx[] {
    return this.pool.txs;
  }

  appHash(): Uint8Array {
    return this.state.appHash();
  }

  checkTx(bytes: Uint8Array): CheckTxResult {
    return this.pool.add(bytes);
  }

  onCommit(fn: (rec: BlockRecord) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  getBlock(height: bigint): BlockRecord | undefined {
    const cached = this.blockCache.get(height);
    if (cached) return cached;
    if (height < 1n || height > this.height) return undefined;
    const raw = this.state.stores.store(BLOCKS).get(be64(height));
    if (raw === undefined) return undefined;
    const rec = JSON.parse(fromUtf8(raw)) as BlockRecord;
    if (this.blockCache.size > 256) this.blockCache.clear();
    this.blockCache.set(height, rec);
    return rec;
  }

  /**
   * Where a committed tx is: its block height and index.
   *
   * The mounted stores show a block's writes as soon as the block is written to them, i.e. also while
   * `ms.commit(h)` is in flight, when the last committed height (and so `getBlock`) is still h - 1. A tx
   * of that block is therefore reported only once its height is committed: before, it is "not found"
   * (still pending), never found in a block that is "not available".
   */
  findTx(hash: Uint8Array): { height: bigint; index: number } | undefined {
    const raw = this.state.stores.store(TXS).get(hash);
    if (raw === undefined) return undefined;
    const found = parseTxIndex(raw);
    return found.height <= this.height ? found : undefined;
  }

  *allTxs(): IterableIterator<{ hash: Uint8Array; height: bigint; index: number }> {
    const committed = this.height;
    for (const [k, v] of this.state.stores.store(TXS).iterate(new Uint8Array(0), undefined)) {
      const { height, index } = parseTxIndex(v);
      if (height <= committed) yield { hash: k, height, index };
    }
  }

  /** The next block's time: now, but never before the genesis time nor at or before the last block's. */
  private nextTime(): bigint {
    const now = nowNs();
    if (!this.latest) {
      const genesis = BigInt(Date.parse(this.o.genesis.genesis_time)) * 1_000_000n;
      return now > genesis ? now : genesis;
    }
    const last = BigInt(this.latest.time_ns);
    return now > last ? now : last + 1_000_000n;
  }

  /** Produces and commits the next block; throws BlockHaltError when the node must stop. */
  async produceBlock(): Promise<BlockRecord> {
    const { state } = this;
    const h = state.height + 1n;
    const timeNs = this.nextTime();
    const txs = this.pool.take(this.o.maxTxsPerBlock);
    if (h === 1n) {
      // InitChain runs inside block 1, at its time: its writes are committed with it.
      try {
        await state.initChain({ appState: this.o.genesis.app_state, height: 1n, timeNs });
      } catch (e) {
        state.abandon();
        throw new BlockHaltError(h, 1, e);
      }
    }
    const appHashBefore = state.appHash();
    const block = await state.finalizeBlock({ height: h, timeNs, txs: txs.map((t) => t.bytes) });
    const last = this.latest;
    const proposer = this.validators[Number((h - 1n) % BigInt(this.validators.length))];
    const version = block.appVersionBefore;
    const built = buildBlock({
      chainId: this.chainId,
      height: h,
      timeNs,
      appVersion: version,
      lastBlockId: last ? last.meta.block_id : EMPTY_BLOCK_ID,
      lastCommit: last ? last.commit : EMPTY_COMMIT,
      appHash: hexUpper(appHashBefore),
      lastResults: last ? last.results : [],
      txs: txs.map((t) => t.bytes),
      validators: this.validators,
      proposer,
      consensusHash: hexUpper(sha256(utf8(`xupgrade-devnet consensus params; app version ${version}`))),
    });
    const rec: BlockRecord = {
      meta: built.meta,
      txs: built.txs,
      last_commit: last ? last.commit : EMPTY_COMMIT,
      commit: signCommit(this.chainId, h, built.blockId, timeNs, this.validators),
      results: block.txResults,
      events: block.events.map(eventJson),
      app_hash_after: hexUpper(block.appHash),
      time_ns: timeNs.toString(),
    };
    await state.commit({
      blockHash: rec.meta.block_id.hash,
      extra: (branch) => {
        branch.store(BLOCKS).set(be64(h), utf8(JSON.stringify(rec)));
        for (const [index, tx] of txs.entries()) branch.store(TXS).set(tx.hash, utf8(JSON.stringify({ height: h.toString(), index })));
      },
    });
    this.latest = rec;
    this.blockCache.set(h, rec);
    this.pool.committed(txs.length);
    for (const fn of this.listeners) {
      try {
        fn(rec);
      } catch {
        /* listeners must not break the chain */
      }
    }
    return rec;
  }
}

function parseTxIndex(raw: Uint8Array): { height: bigint; index: number } {
  const { height, index } = JSON.parse(fromUtf8(raw)) as { height: string; index: number };
  return { height: BigInt(height), index };
}
