/**
 * The devnet's state machine, shared by both engines (engine/local, engine/cometbft): one deterministic
 * function of the blocks it is given.
 *
 * - `initChain`: the genesis state (built-in modules, module versions, the app's genesis) on the pending
 *   branch, committed with the first block.
 * - `finalizeBlock`: PreBlock (the upgrade keeper, first), BeginBlock, the txs (ante + messages), EndBlock
 *   (gov tallies and proposal execution, app modules) on that branch; then the branch goes into the
 *   stores' working trees and the app hash is their commitment (the SDK's WorkingHash). A failed
 *   PreBlock throws a {@link BlockHaltError}; nothing of the block is kept.
 * - `commit`: the block, with the block time and whatever the engine adds for itself in host stores, in
 *   ONE atomic commit of the commit multistore at the block's height.
 *
 * Time comes from the caller (the block header), never from the clock, and nothing about the node enters
 * the state or the app hash, so every validator that executes the same blocks computes the same app hash.
 * Also CheckTx (on the check state) and Simulate, which read the committed state.
 */
import type { Any } from "cosmjs-types/google/protobuf/any";
import { EXIT_CODES, haltExitCode } from "../../../core/errors.js";
import type { UpgradeKeeper } from "../../../module/keeper.js";
import type { CommitMultiStore } from "../../../store/rootmulti/store.js";
import type { VersionMap } from "../../../core/types.js";
import { appVersionMap, runMigrations, type AppUpgradeContext, type LoadedApp, type ModuleContext } from "./app.js";
import { NODE_STORE } from "./app-hash.js";
import type { TxResultJson } from "./blocks.js";
import { Branch, type MountedStores, type SwitchableStore } from "../shared/branch.js";
import { deliverTx, simulateTx, type DeliverContext } from "./deliver.js";
import type { ChainEvent } from "../shared/events.js";
import type { BlockInfo, GovModule } from "../modules/gov.js";
import { bondedValidators, writeGenesisState, type AppState, type ConsensusValidator } from "./init-chain.js";
import { CheckState, type CheckTxResult } from "./mempool.js";
import { MsgRouter } from "./router.js";
import { be64, hexUpper, readBe64, utf8 } from "../shared/util.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";
import { equalBytes } from "../../../base/bytes.js";
import { initReadiness, readinessGate, readinessParams, recordReadiness, votesRequired } from "../modules/readiness.js";
import type { Plan } from "../../../core/types.js";
import type { ReadinessParams, ReadinessTally, ReadinessVote } from "../../../module/readiness/index.js";
import { AppHashMismatchError, ChainSequenceError } from "../shared/errors.js";

const BLOCK_TIME_KEY = utf8("block_time");

/** A block that must stop the node: PreBlock's halt errors, a failing handler, a failing app hook or commit. */
export class BlockHaltError extends Error {
  override name = "BlockHaltError";
  constructor(
    readonly height: bigint,
    readonly exitCode: number,
    readonly error: unknown,
  ) {
    super(messageOf(error), { cause: error });
  }
}

export interface ChainStateOptions {
  chainId: string;
  app: LoadedApp;
  ms: CommitMultiStore;
  stores: MountedStores;
  /** The keeper that runs PreBlock and the msg server; its store is `upgradeStore`. */
  keeper: UpgradeKeeper;
  upgradeStore: SwitchableStore;
  logger: Required<Logger>;
  /** Errors thrown by upgrade handlers (they halt with exit code 23). */
  handlerErrors: WeakSet<object>;
}

export interface GenesisInput {
  appState: AppState;
  /** CometBFT's genesis validators and their power; undefined: the app state's list as it is. */
  validators?: ConsensusValidator[];
  /** The context of the modules' genesis hooks: the initial height and the genesis (or first block's) time. */
  height: bigint;
  timeNs: bigint;
  /** CometBFT's `abci.vote_extensions_enable_height` (0 or absent: off). */
  voteExtensionsEnableHeight?: bigint;
}

export interface BlockInput {
  height: bigint;
  /** The header's time, nanoseconds since the epoch: the only clock the state machine knows. */
  timeNs: bigint;
  txs: readonly Uint8Array[];
  /** The previous height's votes the block carries (docs/spec/readiness.md §6); undefined when it carries none. */
  votes?: readonly ReadinessVote[];
}

export interface FinalizedBlock {
  height: bigint;
  timeNs: bigint;
  txResults: TxResultJson[];
  /** Block events (gov tallies, proposal execution). */
  events: ChainEvent[];
  /** The app hash after this block. */
  appHash: Uint8Array;
  /** The app version the block was executed with. */
  appVersionBefore: bigint;
  /** PreBlock applied an upgrade (the app version may have changed: see `appVersion`). */
  upgraded: boolean;
  /** The scheduled plan's readiness tally after this block, when the chain keeps one. */
  readiness?: ReadinessTally;
}

export interface CommitOptions {
  /** The block's hash (uppercase hex) for the log line. */
  blockHash?: string;
  /** Host-store writes of the engine (block records, tx index), committed in the same batch. */
  extra?: (branch: Branch) => void;
}

interface Pending {
  branch: Branch;
  initialised: boolean;
  block?: FinalizedBlock;
}

export class ChainState {
  readonly chainId: string;
  readonly router: MsgRouter;
  /** The host's app version (the protocol version set by applied upgrades). */
  appVersion: bigint;
  private pending: Pending | undefined;
  private readonly checkState: CheckState;
  private readonly listeners = new Set<(height: bigint) => void>();
  private readonly deliver: DeliverContext;

  constructor(private readonly o: ChainStateOptions) {
    this.chainId = o.chainId;
    this.router = new MsgRouter({ keeper: o.keeper, upgradeStore: o.upgradeStore, logger: o.logger });
    this.deliver = { chainId: o.chainId, router: this.router, logger: o.logger };
    this.checkState = new CheckState(o.stores, o.chainId);
    this.appVersion = o.keeper.getProtocolVersion();
  }

  get gov(): GovModule {
    return this.router.gov;
  }

  /** The last committed height (0 before the first block). */
  get height(): bigint {
    return this.o.ms.lastCommittedHeight;
  }

  get stores(): MountedStores {
    return this.o.stores;
  }

  get keeper(): UpgradeKeeper {
    return this.o.keeper;
  }

  get app(): LoadedApp {
    return this.o.app;
  }

  /** The app hash after the last committed block; before the first, sha256 of nothing (as the SDK's InitChain answers). */
  appHash(): Uint8Array {
    return this.o.ms.lastAppHash;
  }

  /** The header time of the last committed block (ns), or undefined before the first. */
  lastBlockTimeNs(): bigint | undefined {
    const raw = this.o.stores.store(NODE_STORE).get(BLOCK_TIME_KEY);
    return raw === undefined ? undefined : readBe64(raw);
  }

  /** Called after every commit with the new height; returns the unsubscribe function. */
  onCommit(fn: (height: bigint) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  // ---- InitChain ----

  /**
   * InitChain: writes the genesis state on the pending branch (committed with the first block) and returns
   * the app hash it gives. Throws when the chain has blocks or the genesis is unusable.
   */
  async initChain(g: GenesisInput): Promise<Uint8Array> {
    if (this.height !== 0n) throw new ChainSequenceError(`InitChain on a chain at height ${this.height}`);
    this.discardPending();
    const branch = new Branch(this.o.stores);
    this.pending = { branch, initialised: true };
    try {
      const info: BlockInfo = { height: g.height, timeNs: g.timeNs };
      const validators = bondedValidators(g.appState, g.validators);
      writeGenesisState(branch, g.appState, validators, this.gov);
      initReadiness(branch, {
        voteExtensionsEnableHeight: g.voteExtensionsEnableHeight ?? 0n,
        activationThreshold: g.appState.readiness?.activation_threshold ?? "",
      });
      // docs/spec/keeper.md §8.4: the app's module consensus versions, merged into the version map.
      await this.o.upgradeStore.with(branch.store("upgrade"), () => this.o.keeper.setModuleVersionMap(appVersionMap(this.o.app)));
      for (const m of this.sortedModules()) {
        if (m.def?.initGenesis) await m.def.initGenesis(this.moduleContext(branch, info, m.name));
      }
      this.o.logger.info("initialised chain from genesis", {
        module: "consensus",
        chain_id: this.chainId,
        app: this.o.app.name,
        validators: validators.length,
        accounts: g.appState.auth.accounts.length,
      });
      // As the SDK: InitChain answers the last commit's hash; the genesis state enters the app hash with block 1.
      return this.o.ms.lastAppHash;
    } catch (e) {
      this.discardPending();
      throw e;
    }
  }

  // ---- FinalizeBlock ----

  /** Executes the next block on the pending branch; throws BlockHaltError (nothing of the block kept) when the node must stop. */
  async finalizeBlock(b: BlockInput): Promise<FinalizedBlock> {
    const h = b.height;
    const appVersionBefore = this.appVersion;
    try {
      if (h !== this.height + 1n) throw new ChainSequenceError(`block ${h} does not follow the last committed height ${this.height}`);
      if (this.pending?.block) throw new ChainSequenceError(`block ${h} was executed already and is not committed`);
      if (h === 1n && !this.pending?.initialised) throw new ChainSequenceError("the first block came before InitChain");
      const pending = (this.pending ??= { branch: new Branch(this.o.stores), initialised: false });
      const branch = pending.branch;
      const info: BlockInfo = { height: h, timeNs: b.timeNs };

      // PreBlock: the upgrade keeper first — unless the readiness gate (off by default) holds its plan back.
      const gate = readinessGate(branch, this.planIn(branch), h);
      if (!gate.activate) this.holdBack(branch, h, gate.reason!);
      let upgraded = false;
      try {
        const ctx = this.upgradeContext(branch, info);
        const res = await this.o.upgradeStore.with(branch.store("upgrade"), () => this.o.keeper.preBlock(h, { appVersion: this.appVersion, ctx }));
        upgraded = res.consensusParamsChanged;
      } catch (e) {
        const code = typeof e === "object" && e !== null && this.o.handlerErrors.has(e) ? EXIT_CODES["handler-failed"] : haltExitCode(e);
        throw new BlockHaltError(h, code, e);
      }

      // Then the readiness tally of the plan still scheduled, from the votes this block carries.
      const readiness = recordReadiness(branch, this.planIn(branch), b.votes, h);

      await this.runHooks(branch, info, "beginBlock");
      const txResults: TxResultJson[] = [];
      for (const tx of b.txs) txResults.push(deliverTx(this.deliver, branch, tx, info));
      const events = [...gate.events, ...(await this.gov.endBlock(branch, info))];
      await this.runHooks(branch, info, "endBlock");

      // The block's writes go into the stores' working trees (nothing is durable before Commit).
      branch.write();
      const appHash = this.o.ms.workingHash();
      const block: FinalizedBlock = {
        height: h,
        timeNs: b.timeNs,
        txResults,
        events,
        appHash,
        appVersionBefore,
        upgraded,
        ...(readiness ? { readiness } : {}),
      };
      pending.block = block;
      return block;
    } catch (e) {
      this.appVersion = appVersionBefore;
      this.abandon();
      if (e instanceof BlockHaltError) throw e;
      throw new BlockHaltError(h, 1, e);
    }
  }

  // ---- Commit ----

  /** Commits the executed block in one atomic batch; throws BlockHaltError when the store cannot. */
  async commit(options: CommitOptions = {}): Promise<FinalizedBlock> {
    const p = this.pending;
    if (!p?.block) throw new BlockHaltError(this.height + 1n, 1, new Error("Commit without an executed block"));
    const { block, branch } = p;
    branch.store(NODE_STORE).set(BLOCK_TIME_KEY, be64(block.timeNs));
    try {
      options.extra?.(branch);
      branch.write();
      const committed = await this.o.ms.commit(block.height);
      // Host stores only may change after FinalizeBlock: the app hash it answered must be the one committed.
      if (!equalBytes(committed, block.appHash))
        throw new AppHashMismatchError(`committed app hash ${hexUpper(committed)} differs from FinalizeBlock's ${hexUpper(block.appHash)}`);
    } catch (e) {
      this.appVersion = block.appVersionBefore;
      this.abandon();
      throw new BlockHaltError(block.height, 1, e);
    }
    this.pending = undefined;
    this.checkState.reset();
    if (block.upgraded) {
      this.o.logger.info("upgrade applied", {
        module: "x/upgrade",
        height: block.height,
        app_version: this.appVersion,
        module_versions: Object.fromEntries([...this.o.keeper.getModuleVersionMap()].map(([k, v]) => [k, v.toString()])),
      });
    }
    this.o.logger.info("committed block", {
      module: "consensus",
      height: block.height,
      hash: options.blockHash ?? "",
      app_hash: hexUpper(block.appHash),
      num_txs: block.txResults.length,
    });
    for (const fn of this.listeners) {
      try {
        fn(block.height);
      } catch {
        /* listeners must not break the chain */
      }
    }
    return block;
  }

  /** Drops the pending block (and InitChain's writes): the stores show the last commit again. */
  abandon(): void {
    this.discardPending();
    try {
      this.o.ms.rollback();
    } catch {
      /* a commit in flight failed: the store is closed next */
    }
  }

  private discardPending(): void {
    this.pending?.branch.discard();
    this.pending = undefined;
  }

  // ---- readiness ----

  /** The readiness params of the committed state (docs/spec/readiness.md §5). */
  readinessParams(): ReadinessParams {
    return readinessParams(this.o.stores);
  }

  /** Whether block `height` must carry the votes of the previous height (vote extensions on then). */
  votesRequired(height: bigint): boolean {
    return votesRequired(this.readinessParams(), height);
  }

  /** The plan scheduled in `branch`. */
  private planIn(branch: Branch): Plan | undefined {
    return this.o.upgradeStore.withSync(branch.store("upgrade"), () => this.o.keeper.getUpgradePlan());
  }

  /** The readiness gate closed: the plan is cleared in this block, and the node says why. */
  private holdBack(branch: Branch, height: bigint, reason: string): void {
    const plan = this.planIn(branch)!;
    this.o.upgradeStore.withSync(branch.store("upgrade"), () => this.o.keeper.clearUpgradePlan());
    this.o.logger.warn(`upgrade "${plan.name}" not activated at height ${height}: ${reason}; the plan is cleared and the chain goes on`, {
      module: "x/upgrade",
      height,
      name: plan.name,
    });
  }

  // ---- CheckTx, Simulate ----

  /** CheckTx for the next block, on the check state. */
  checkTx(bytes: Uint8Array): CheckTxResult {
    return this.checkState.check(bytes, this.height + 1n);
  }

  /** Simulates a tx on a throwaway branch of the committed state; throws the TxError a DeliverTx would report. */
  simulate(bytes: Uint8Array): { gasWanted: bigint; gasUsed: bigint; data: Uint8Array; events: ChainEvent[]; msgResponses: Any[] } {
    const info: BlockInfo = { height: this.height + 1n, timeNs: this.lastBlockTimeNs() ?? 0n };
    return simulateTx(this.deliver, new Branch(this.o.stores), bytes, info);
  }

  // ---- module contexts and hooks ----

  private sortedModules() {
    return [...this.o.app.modules.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  private moduleContext(block: Branch, info: BlockInfo, module: string): ModuleContext {
    return {
      height: info.height,
      timeNs: info.timeNs,
      chainId: this.chainId,
      module,
      store: (name: string) => block.store(name),
      logger: this.o.logger,
    };
  }

  private upgradeContext(block: Branch, info: BlockInfo): AppUpgradeContext {
    const { app, logger } = this.o;
    return {
      ...this.moduleContext(block, info, ""),
      blockHeight: info.height,
      runMigrations: (fromVM: VersionMap) => runMigrations(app, fromVM, (m) => this.moduleContext(block, info, m), logger),
      moduleVersions: () => appVersionMap(app),
    };
  }

  private async runHooks(block: Branch, info: BlockInfo, hook: "beginBlock" | "endBlock"): Promise<void> {
    for (const m of this.sortedModules()) {
      const fn = m.def?.[hook];
      if (fn) await fn(this.moduleContext(block, info, m.name));
    }
  }
}
