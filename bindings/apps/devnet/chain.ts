/**
 * The devnet's state machine: one block at a time on a branch of the durable multistore —
 * InitChain (block 1), PreBlock (the upgrade keeper, first), BeginBlock, the txs (ante + messages),
 * EndBlock (gov tallies and proposal execution, app modules), then the block record, the app hash and ONE
 * atomic commit. A failed PreBlock throws a {@link BlockHaltError}: nothing of that block is committed.
 * Also CheckTx and the mempool.
 */
import type { Any } from "cosmjs-types/google/protobuf/any";
import { TxMsgData } from "cosmjs-types/cosmos/base/abci/v1beta1/abci";
import { MsgDeposit, MsgSubmitProposal, MsgVote } from "cosmjs-types/cosmos/gov/v1/tx";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { UpgradeError, haltExitCode } from "../../core/errors.js";
import type { UpgradeKeeper } from "../../module/keeper.js";
import { createMsgServer, type MsgServer } from "../../module/msg-server.js";
import {
  MSG_CANCEL_UPGRADE_TYPE_URL,
  MSG_SOFTWARE_UPGRADE_TYPE_URL,
  decodeMsgCancelUpgrade,
  decodeMsgSoftwareUpgrade,
} from "../../module/msgs.js";
import type { DurableMultiStore } from "../../store/level.js";
import type { StoreUpgrades, VersionMap } from "../../core/types.js";
import { appVersionMap, runMigrations, type AppUpgradeContext, type LoadedApp, type ModuleContext } from "./app.js";
import { AUTH_STORE, initGenesisAccount, newAccount } from "./auth.js";
import { mint, send } from "./bank.js";
import {
  EMPTY_BLOCK_ID,
  EMPTY_COMMIT,
  buildBlock,
  signCommit,
  type BlockRecord,
  type TxResultJson,
  type ValidatorInfo,
} from "./blocks.js";
import { Branch, type MountedStores, type SwitchableStore } from "./branch.js";
import { fromProtoCoins, InvalidCoinsError } from "./coins.js";
import { parseGoDuration } from "../../go/duration.js";
import { TxError, toTxError, txErrors } from "./errors.js";
import { eventJson, type ChainEvent } from "./events.js";
import type { DevnetGenesis } from "./genesis.js";
import { GovModule, GOV_MODULE_ADDRESS, makeGovParams, type BlockInfo, type MsgResult, type ProposalRouter } from "./gov.js";
import { isAddress, moduleAddress } from "../../client/address.js";
import type { DevnetLogger } from "./logger.js";
import {
  FEE_COLLECTOR,
  MSG_DEPOSIT,
  MSG_SEND,
  MSG_SUBMIT_PROPOSAL,
  MSG_VOTE,
  authorityOf,
  decodeTx,
  messageGas,
  runAnte,
  type DecodedTx,
} from "./tx.js";
import { base64, be64, concat, errorMessage, fromUtf8, hexUpper, nowNs, sha256, utf8 } from "./util.js";

const APP_HASH_KEY = utf8("app_hash");
const BLOCKS = "_blocks";
const TXS = "_txs";
const NODE = "_node";
const MAX_MEMPOOL = 5000;

/** A block that must stop the node: PreBlock's halt errors, a failing handler, a failing app hook or commit. */
export class BlockHaltError extends Error {
  override name = "BlockHaltError";
  constructor(
    readonly height: bigint,
    readonly exitCode: number,
    readonly error: unknown,
  ) {
    super(errorMessage(error), { cause: error });
  }
}

export interface CheckTxResult {
  code: number;
  codespace: string;
  log: string;
  hash: string;
}

export interface ChainOptions {
  chainId: string;
  genesis: DevnetGenesis;
  /** sha256 of the genesis file: the app hash before block 1. */
  genesisHash: Uint8Array;
  app: LoadedApp;
  ms: DurableMultiStore;
  stores: MountedStores;
  /** The keeper that runs PreBlock and the msg server; its store is `upgradeStore`. */
  keeper: UpgradeKeeper;
  upgradeStore: SwitchableStore;
  validators: ValidatorInfo[];
  logger: Required<DevnetLogger>;
  maxTxsPerBlock: number;
  /** Errors thrown by upgrade handlers (they halt with exit code 23). */
  handlerErrors: WeakSet<object>;
  /** StoreUpgrades the store loader applied for the next block (they are part of its app hash). */
  loaderUpgrades?: { height: bigint; name: string; storeUpgrades: StoreUpgrades };
}

export class Chain {
  readonly chainId: string;
  readonly gov: GovModule;
  readonly validators: ValidatorInfo[];
  /** The host's app version (the protocol version set by applied upgrades). */
  appVersion: bigint;
  latest: BlockRecord | undefined;
  readonly mempool: DecodedTx[] = [];
  private readonly mempoolHashes = new Set<string>();
  private checkState: Branch;
  private readonly msgServer: MsgServer;
  private readonly listeners = new Set<(rec: BlockRecord) => void>();
  private readonly blockCache = new Map<bigint, BlockRecord>();

  constructor(private readonly o: ChainOptions) {
    this.chainId = o.chainId;
    this.validators = o.validators;
    this.gov = new GovModule(this.proposalRouter(), () => o.validators.map((v) => ({ account: v.account, tokens: v.tokens })), o.logger);
    this.msgServer = createMsgServer(o.keeper);
    this.checkState = new Branch(o.stores);
    this.appVersion = o.keeper.getProtocolVersion();
    const h = o.ms.lastCommittedHeight;
    this.latest = h > 0n ? this.getBlock(h) : undefined;
  }

  /** The last committed height (0 before block 1). */
  get height(): bigint {
    return this.o.ms.lastCommittedHeight;
  }

  get stores(): MountedStores {
    return this.o.stores;
  }

  get keeper(): UpgradeKeeper {
    return this.o.keeper;
  }

  onCommit(fn: (rec: BlockRecord) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  getBlock(height: bigint): BlockRecord | undefined {
    const cached = this.blockCache.get(height);
    if (cached) return cached;
    if (height < 1n || height > this.height) return undefined;
    const raw = this.o.stores.store(BLOCKS).get(be64(height));
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
    const raw = this.o.stores.store(TXS).get(hash);
    if (raw === undefined) return undefined;
    const found = parseTxIndex(raw);
    return found.height <= this.height ? found : undefined;
  }

  /** Every committed tx hash with its position, in hash order (see findTx for a block being committed). */
  *allTxs(): IterableIterator<{ hash: Uint8Array; height: bigint; index: number }> {
    const committed = this.height;
    for (const [k, v] of this.o.stores.store(TXS).iterate(new Uint8Array(0), undefined)) {
      const { height, index } = parseTxIndex(v);
      if (height <= committed) yield { hash: k, height, index };
    }
  }

  /** The app hash after the last committed block. */
  appHash(): Uint8Array {
    return this.o.stores.store(NODE).get(APP_HASH_KEY) ?? this.o.genesisHash;
  }

  // ---- CheckTx and the mempool ----

  /** CheckTx: decode, ante on the check state; accepted txs join the mempool. */
  checkTx(bytes: Uint8Array): CheckTxResult {
    const hash = hexUpper(sha256(bytes));
    const fail = (e: unknown): CheckTxResult => {
      const t = toTxError(e);
      return { code: t.code, codespace: t.codespace, log: t.log, hash };
    };
    if (this.mempoolHashes.has(hash)) return fail(txErrors.txInMempool());
    if (this.mempool.length >= MAX_MEMPOOL) return fail(txErrors.mempoolIsFull(`mempool is full: ${this.mempool.length} txs`));
    let tx: DecodedTx;
    try {
      tx = decodeTx(bytes);
      const branch = this.checkState.branch();
      runAnte(branch, tx, { chainId: this.chainId, height: this.height + 1n });
      branch.write();
    } catch (e) {
      return fail(e);
    }
    this.mempool.push(tx);
    this.mempoolHashes.add(hash);
    return { code: 0, codespace: "", log: "", hash };
  }

  private recheckMempool(): void {
    this.checkState = new Branch(this.o.stores);
    const keep: DecodedTx[] = [];
    for (const tx of this.mempool) {
      const branch = this.checkState.branch();
      try {
        runAnte(branch, tx, { chainId: this.chainId, height: this.height + 1n });
        branch.write();
        keep.push(tx);
      } catch (e) {
        this.mempoolHashes.delete(tx.hashHex);
        this.o.logger.debug("tx removed from the mempool on recheck", { module: "mempool", tx: tx.hashHex, err: errorMessage(e) });
      }
    }
    this.mempool.splice(0, this.mempool.length, ...keep);
  }

  // ---- blocks ----

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
    const { ms, logger } = this.o;
    const h = ms.lastCommittedHeight + 1n;
    const timeNs = this.nextTime();
    const info: BlockInfo = { height: h, timeNs };
    const appVersionBefore = this.appVersion;
    const block = new Branch(this.o.stores);
    const txs = this.mempool.slice(0, this.o.maxTxsPerBlock);
    let rec: BlockRecord;
    try {
      if (ms.lastCommittedHeight === 0n) await this.initChain(block, info);

      // PreBlock: the upgrade keeper first.
      const ctx = this.upgradeContext(block, info);
      let upgraded = false;
      try {
        const res = await this.o.upgradeStore.with(block.store("upgrade"), () =>
          this.o.keeper.preBlock(h, { appVersion: this.appVersion, ctx }),
        );
        upgraded = res.consensusParamsChanged;
      } catch (e) {
        const code = typeof e === "object" && e !== null && this.o.handlerErrors.has(e) ? 23 : haltExitCode(e);
        throw new BlockHaltError(h, code, e);
      }

      await this.runHooks(block, info, "beginBlock");
      const results: TxResultJson[] = [];
      for (const tx of txs) results.push(await this.deliverTx(block, tx, info));
      const events = await this.gov.endBlock(block, info);
      await this.runHooks(block, info, "endBlock");

      const appHashBefore = this.appHash();
      const appHashAfter = this.computeAppHash(block, appHashBefore, h);
      const last = this.latest;
      const proposer = this.validators[Number((h - 1n) % BigInt(this.validators.length))];
      const built = buildBlock({
        chainId: this.chainId,
        height: h,
        timeNs,
        appVersion: appVersionBefore,
        lastBlockId: last ? last.meta.block_id : EMPTY_BLOCK_ID,
        lastCommit: last ? last.commit : EMPTY_COMMIT,
        appHash: hexUpper(appHashBefore),
        lastResults: last ? last.results : [],
        txs: txs.map((t) => t.bytes),
        validators: this.validators,
        proposer,
        consensusHash: hexUpper(sha256(utf8(`xupgrade-devnet consensus params; app version ${appVersionBefore}`))),
      });
      rec = {
        meta: built.meta,
        txs: built.txs,
        last_commit: last ? last.commit : EMPTY_COMMIT,
        commit: signCommit(this.chainId, h, built.blockId, timeNs, this.validators),
        results,
        events: events.map(eventJson),
        app_hash_after: hexUpper(appHashAfter),
        time_ns: timeNs.toString(),
      };
      block.store(BLOCKS).set(be64(h), utf8(JSON.stringify(rec)));
      for (const [index, tx] of txs.entries()) {
        block.store(TXS).set(tx.hash, utf8(JSON.stringify({ height: h.toString(), index })));
      }
      block.store(NODE).set(APP_HASH_KEY, appHashAfter);
      block.write();
      try {
        await ms.commit(h);
      } catch (e) {
        throw new BlockHaltError(h, 1, e);
      }
      if (upgraded) {
        logger.info("upgrade applied", {
          module: "x/upgrade",
          height: h,
          app_version: this.appVersion,
          module_versions: Object.fromEntries([...this.o.keeper.getModuleVersionMap()].map(([k, v]) => [k, v.toString()])),
        });
      }
    } catch (e) {
      this.appVersion = appVersionBefore;
      try {
        ms.rollback();
      } catch {
        /* a commit in flight failed: the store is closed next */
      }
      if (e instanceof BlockHaltError) throw e;
      throw new BlockHaltError(h, 1, e);
    }
    this.o.loaderUpgrades = undefined;
    this.latest = rec;
    this.blockCache.set(h, rec);
    for (const tx of txs) this.mempoolHashes.delete(tx.hashHex);
    this.mempool.splice(0, txs.length);
    this.recheckMempool();
    logger.info("committed block", {
      module: "consensus",
      height: h,
      hash: rec.meta.block_id.hash,
      app_hash: rec.app_hash_after,
      num_txs: txs.length,
    });
    for (const fn of this.listeners) {
      try {
        fn(rec);
      } catch {
        /* listeners must not break the chain */
      }
    }
    return rec;
  }

  /** The app hash after a block: sha256 over the previous one and the block's writes to app stores. */
  private computeAppHash(block: Branch, prev: Uint8Array, height: bigint): Uint8Array {
    const parts: Uint8Array[] = [prev];
    const lp = (b: Uint8Array) => concat(be64(BigInt(b.length)), b);
    const changed = [...block.changed()].filter(([n]) => !n.startsWith("_")).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, cache] of changed) {
      parts.push(lp(utf8(name)));
      for (const [k, v] of cache.pending()) parts.push(lp(k), v === undefined ? Uint8Array.of(0) : concat(Uint8Array.of(1), lp(v)));
    }
    const lu = this.o.loaderUpgrades;
    if (lu && lu.height === height) parts.push(utf8(JSON.stringify(lu.storeUpgrades)));
    return sha256(...parts);
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
    for (const m of [...this.o.app.modules.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const fn = m.def?.[hook];
      if (fn) await fn(this.moduleContext(block, info, m.name));
    }
  }

  /** InitChain, run inside block 1: accounts, balances, validators, gov params, module versions, app genesis. */
  private async initChain(block: Branch, info: BlockInfo): Promise<void> {
    const { genesis, app, logger } = this.o;
    const s = genesis.app_state;
    const auth = block.store(AUTH_STORE);
    for (const a of s.auth.accounts) initGenesisAccount(auth, a.address, BigInt(a.account_number));
    newAccount(auth, GOV_MODULE_ADDRESS, { name: "gov", permissions: ["burner"] });
    newAccount(auth, FEE_COLLECTOR, { name: "fee_collector", permissions: [] });
    newAccount(auth, moduleAddress("bonded_tokens_pool"), { name: "bonded_tokens_pool", permissions: ["burner", "staking"] });
    for (const b of s.bank.balances) mint(block, b.address, fromProtoCoins(b.coins));
    const staking = block.store("staking");
    let bonded = 0n;
    for (const v of s.staking.validators) {
      staking.set(concat(Uint8Array.of(0x21), Buffer.from(v.consensus_address, "hex")), utf8(JSON.stringify(v)));
      bonded += BigInt(v.tokens);
    }
    if (bonded > 0n) mint(block, moduleAddress("bonded_tokens_pool"), [{ denom: s.staking.bond_denom, amount: bonded }]);
    const g = s.gov.params;
    this.gov.setParams(
      block,
      makeGovParams({
        minDeposit: g.min_deposit.length ? fromProtoCoins(g.min_deposit) : [{ denom: "stake", amount: 10_000_000n }],
        maxDepositPeriodNs: parseGoDuration(g.max_deposit_period),
        votingPeriodNs: parseGoDuration(g.voting_period),
        quorum: g.quorum,
        threshold: g.threshold,
        vetoThreshold: g.veto_threshold,
      }),
    );
    // docs/spec/keeper.md §8.4: the app's module consensus versions, merged into the version map.
    await this.o.upgradeStore.with(block.store("upgrade"), () => this.o.keeper.setModuleVersionMap(appVersionMap(app)));
    for (const m of [...app.modules.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (m.def?.initGenesis) await m.def.initGenesis(this.moduleContext(block, info, m.name));
    }
    logger.info("initialised chain from genesis", { module: "consensus", chain_id: this.chainId, app: app.name, validators: this.validators.length, accounts: s.auth.accounts.length });
  }

  /**
   * Simulates a tx on a throwaway branch of the committed state (`/cosmos.tx.v1beta1.Service/Simulate`):
   * the ante handler without signature checks, then the messages. Throws the TxError a DeliverTx would report.
   */
  simulate(bytes: Uint8Array): { gasWanted: bigint; gasUsed: bigint; data: Uint8Array; events: ChainEvent[]; msgResponses: Any[] } {
    const tx = decodeTx(bytes);
    const branch = new Branch(this.o.stores);
    const info: BlockInfo = { height: this.height + 1n, timeNs: nowNs() };
    const ante = runAnte(branch, tx, { chainId: this.chainId, height: info.height, simulate: true });
    const events = [...ante.events];
    const responses: Any[] = [];
    for (const [i, m] of tx.msgs.entries()) {
      let r: MsgResult;
      try {
        r = this.executeTxMsg(branch, m, info);
      } catch (e) {
        const t = toTxError(e);
        throw new TxError(t.codespace, t.code, `failed to execute message; message index: ${i}: ${t.log}`);
      }
      events.push({ type: "message", attributes: [["action", m.typeUrl], ["sender", m.signer], ["module", moduleOf(m.typeUrl)], ["msg_index", String(i)]] }, ...r.events);
      responses.push({ typeUrl: r.responseTypeUrl, value: r.data });
    }
    const data = TxMsgData.encode({ data: [], msgResponses: responses }).finish();
    return { gasWanted: ante.gasWanted, gasUsed: ante.gasUsed + messageGas(tx), data, events, msgResponses: responses };
  }

  // ---- DeliverTx ----

  private async deliverTx(block: Branch, tx: DecodedTx, info: BlockInfo): Promise<TxResultJson> {
    const gasWanted = tx.authInfo.fee?.gasLimit ?? 0n;
    const result = (code: number, codespace: string, log: string, gasUsed: bigint, events: ChainEvent[], data: Uint8Array | null): TxResultJson => ({
      code,
      data: data === null || data.length === 0 ? null : base64(data),
      log,
      info: "",
      gas_wanted: gasWanted.toString(),
      gas_used: gasUsed.toString(),
      events: events.map(eventJson),
      codespace,
    });
    const anteBranch = block.branch();
    let ante;
    try {
      ante = runAnte(anteBranch, tx, { chainId: this.chainId, height: info.height });
    } catch (e) {
      const t = toTxError(e);
      return result(t.code, t.codespace, t.log, 0n, [], null);
    }
    anteBranch.write();
    const msgBranch = block.branch();
    const events: ChainEvent[] = [];
    const responses: Any[] = [];
    const gasUsed = ante.gasUsed + messageGas(tx);
    try {
      if (gasUsed > gasWanted) {
        throw txErrors.outOfGas(`out of gas in location: message execution; gasWanted: ${gasWanted}, gasUsed: ${gasUsed}`);
      }
      for (const [i, m] of tx.msgs.entries()) {
        let r: MsgResult;
        try {
          r = this.executeTxMsg(msgBranch, m, info);
        } catch (e) {
          const t = toTxError(e);
          throw new TxError(t.codespace, t.code, `failed to execute message; message index: ${i}: ${t.log}`);
        }
        const idx: [string, string] = ["msg_index", String(i)];
        events.push({ type: "message", attributes: [["action", m.typeUrl], ["sender", m.signer], ["module", moduleOf(m.typeUrl)], idx] });
        for (const e of r.events) events.push({ type: e.type, attributes: [...e.attributes, idx] });
        responses.push({ typeUrl: r.responseTypeUrl, value: r.data });
      }
    } catch (e) {
      msgBranch.discard();
      const t = toTxError(e);
      this.o.logger.info("tx failed", { module: "txs", height: info.height, tx: tx.hashHex, code: t.code, codespace: t.codespace, log: t.log });
      return result(t.code, t.codespace, t.log, gasUsed, ante.events, null);
    }
    msgBranch.write();
    const data = TxMsgData.encode({ data: [], msgResponses: responses }).finish();
    return result(0, "", "", gasUsed, [...ante.events, ...events], data);
  }

  private executeTxMsg(view: Branch, m: { typeUrl: string; value: Uint8Array; signer: string }, info: BlockInfo): MsgResult {
    const empty = new Uint8Array(0);
    switch (m.typeUrl) {
      case MSG_SUBMIT_PROPOSAL:
        return this.gov.submitProposal(view, MsgSubmitProposal.decode(m.value), info);
      case MSG_VOTE:
        return this.gov.vote(view, MsgVote.decode(m.value));
      case MSG_DEPOSIT:
        return this.gov.deposit(view, MsgDeposit.decode(m.value), info);
      case MSG_SEND:
        return { data: empty, responseTypeUrl: "/cosmos.bank.v1beta1.MsgSendResponse", events: this.executeSend(view, MsgSend.decode(m.value)) };
      case MSG_SOFTWARE_UPGRADE_TYPE_URL:
      case MSG_CANCEL_UPGRADE_TYPE_URL:
        return { data: empty, responseTypeUrl: `${m.typeUrl}Response`, events: this.executeUpgradeMsg(view, m, info.height) };
      default:
        throw txErrors.unknownRequest(`unrecognized message type: ${m.typeUrl}`);
    }
  }

  private executeSend(view: Branch, msg: MsgSend): ChainEvent[] {
    if (!isAddress(msg.fromAddress)) throw txErrors.invalidAddress(`invalid from address ${JSON.stringify(msg.fromAddress)}`);
    if (!isAddress(msg.toAddress)) throw txErrors.invalidAddress(`invalid to address ${JSON.stringify(msg.toAddress)}`);
    let coins;
    try {
      coins = fromProtoCoins(msg.amount);
    } catch (e) {
      if (e instanceof InvalidCoinsError) throw txErrors.invalidCoins(e.coins);
      throw e;
    }
    if (coins.length === 0) throw txErrors.invalidCoins("");
    return send(view, msg.fromAddress, msg.toAddress, coins);
  }

  /** MsgSoftwareUpgrade / MsgCancelUpgrade through the upgrade msg server, on `view`'s upgrade store. */
  private executeUpgradeMsg(view: Branch, m: { typeUrl: string; value: Uint8Array }, height: bigint): ChainEvent[] {
    const core = this.o.keeper.core;
    return this.o.upgradeStore.withSync(view.store("upgrade"), () => {
      if (m.typeUrl === MSG_SOFTWARE_UPGRADE_TYPE_URL) {
        const msg = decodeMsgSoftwareUpgrade(core, m.value);
        this.msgServer.softwareUpgrade(msg, height);
        this.o.logger.info("upgrade scheduled", { module: "x/upgrade", name: msg.plan.name, height: msg.plan.height, info: msg.plan.info });
      } else {
        this.msgServer.cancelUpgrade(decodeMsgCancelUpgrade(m.value));
        this.o.logger.info("upgrade plan cleared", { module: "x/upgrade" });
      }
      return [];
    });
  }

  /** The gov router: upgrade messages and bank sends (from the gov account). */
  private proposalRouter(): ProposalRouter {
    const routable = new Set([MSG_SOFTWARE_UPGRADE_TYPE_URL, MSG_CANCEL_UPGRADE_TYPE_URL, MSG_SEND]);
    return {
      routable: (typeUrl) => routable.has(typeUrl),
      signer: (msg: Any) => {
        try {
          switch (msg.typeUrl) {
            case MSG_SOFTWARE_UPGRADE_TYPE_URL:
            case MSG_CANCEL_UPGRADE_TYPE_URL:
              return authorityOf(msg.value);
            case MSG_SEND:
              return MsgSend.decode(msg.value).fromAddress;
            case MSG_VOTE:
              return MsgVote.decode(msg.value).voter;
            case MSG_DEPOSIT:
              return MsgDeposit.decode(msg.value).depositor;
            case MSG_SUBMIT_PROPOSAL:
              return MsgSubmitProposal.decode(msg.value).proposer;
            default:
              return undefined;
          }
        } catch (e) {
          throw txErrors.txDecode(`${msg.typeUrl}: ${errorMessage(e)}`);
        }
      },
      check: (msg: Any) => {
        try {
          if (msg.typeUrl === MSG_SOFTWARE_UPGRADE_TYPE_URL) decodeMsgSoftwareUpgrade(this.o.keeper.core, msg.value);
          else if (msg.typeUrl === MSG_CANCEL_UPGRADE_TYPE_URL) decodeMsgCancelUpgrade(msg.value);
        } catch (e) {
          // Malformed bytes fail the tx (as the SDK's decoder); a plan that fails validation fails on execution.
          if (e instanceof UpgradeError && e.kind === "malformed-protobuf") throw txErrors.txDecode(`${msg.typeUrl}: ${e.message}`);
        }
      },
      execute: (view, msg, height) => {
        if (msg.typeUrl === MSG_SEND) return this.executeSend(view, MsgSend.decode(msg.value));
        return this.executeUpgradeMsg(view, msg, height);
      },
    };
  }
}

function parseTxIndex(raw: Uint8Array): { height: bigint; index: number } {
  const { height, index } = JSON.parse(fromUtf8(raw)) as { height: string; index: number };
  return { height: BigInt(height), index };
}

function moduleOf(typeUrl: string): string {
  return typeUrl.split(".")[1] ?? "";
}
