/**
 * The devnet as an ABCI++ application of CometBFT v0.38 (bindings/abci serves it): each request is the
 * shared state machine's (chain/state.ts) answer.
 *
 * - Info: the app, its version, the app version, and the last height and app hash made durable by Commit
 *   (so after a crash between FinalizeBlock and Commit CometBFT replays that block).
 * - InitChain: the app state of CometBFT's genesis, its validators' power, the genesis app hash.
 * - PrepareProposal / ProcessProposal: the mempool's txs that fit, after the previous height's votes with
 *   their extensions once vote extensions are on (vote-extensions.ts); a proposal is refused only when those
 *   votes are missing, misplaced or fail a check (a bad tx fails in FinalizeBlock, deterministically).
 * - ExtendVote / VerifyVoteExtension: the readiness attestation the sidecar left in
 *   `<home>/data/upgrade-readiness.json` for the scheduled plan, or nothing; another validator's extension
 *   is accepted when it passes the shape check (docs/spec/readiness.md §2.2), refused otherwise — which
 *   costs that validator its vote, never the chain its liveness while more than 2/3 extend well.
 * - FinalizeBlock: the block at the header's time; tx results, block events, the app hash, and the new app
 *   version as a consensus-params update when an upgrade changed it. A halt (the upgrade keeper's: 20
 *   upgrade needed, 21 too early, …) is an {@link AbciConsensusHalt} carrying the exit code: CometBFT's
 *   consensus stops at the block, as a Go chain's does, while its p2p and RPC go on (docs/spec/keeper.md §6.2);
 *   the engine decides when the node stops.
 * - Commit: one atomic commit of the multistore; a failure is an AbciHalt (CometBFT stops itself).
 * - CheckTx (new and recheck): the ante handler on the check state; from the moment FinalizeBlock reaches the
 *   scheduled plan's height until the block succeeds, and while halted for the plan, it refuses every
 *   transaction saying the chain is halted for the upgrade (client/upgrade-halt.ts: a Go node would take it
 *   into a mempool it loses at the switch). The transactions it accepted and no block included are the
 *   mempool kept across the switch (mempool-carry.ts). Query: the ABCI query router (the raw stores, with the
 *   SDK's proofs when asked, and the gRPC query routes). Neither ever stops the node.
 */
import type { DeepPartial } from "cosmjs-types/helpers";
import type { ExecTxResult, ResponseFinalizeBlock } from "cosmjs-types/tendermint/abci/types";
import { AbciConsensusHalt, AbciHalt, fitTxs, txDataSize, type AbciApplication, type RequestOf } from "../../../../../abci/index.js";
import type { Plan } from "../../../../../core/types.js";
import { decodeVoteExtension, encodeVoteExtension, preflightText, type ReadinessVote } from "../../../../../module/readiness/index.js";
import type { ReadinessFileReader } from "../../../../../module/readiness/file.js";
import { buildInjection, checkInjection, checkPlacement, InjectionError, isInjection } from "./vote-extensions.js";
import type { AbciQueryRouter } from "../../../../../services/abci.js";
import type { TxResultJson } from "../../../chain/blocks.js";
import type { ChainEvent } from "../../../shared/events.js";
import type { AppState, ConsensusValidator } from "../../../chain/init-chain.js";
import { BlockHaltError, type ChainState } from "../../../chain/state.js";
import { fromUtf8, hexUpper } from "../../../shared/util.js";
import { HALTED_TX, haltedTxLog } from "../../../../../client/upgrade-halt.js";
import type { PendingTxs } from "./mempool-carry.js";
import { messageOf } from "../../../../../base/errors.js";
import type { Logger } from "../../../../../base/logger.js";

export interface CometAppOptions {
  state: ChainState;
  /** The ABCI query router, once the query services run. */
  queries(): AbciQueryRouter | undefined;
  logger: Required<Logger>;
  /** The plan scheduled in the committed state. */
  plan(): Plan | undefined;
  /** The sidecar's attestation file (docs/spec/readiness.md §3). */
  readiness: ReadinessFileReader;
  /** What CheckTx accepted and no block included yet (mempool-carry.ts). */
  pending?: PendingTxs;
  /**
   * Keeps the pending transactions not in the plan's block, before that block runs (mempool-carry.ts): `keep`
   * says whether it wrote them; `drop` removes what this process kept when the block went through after all
   * (a skipped upgrade height: the node runs on, its mempool with it).
   */
  carry?: { keep(height: bigint, txs: Uint8Array[]): Promise<boolean>; drop(): Promise<void> };
}

const CHECK_TX_RECHECK = 1; // CheckTxType.RECHECK

const ACCEPT = 1; // ResponseProcessProposal_ProposalStatus.ACCEPT, ResponseVerifyVoteExtension_VerifyStatus.ACCEPT
const REJECT = 2;
const EMPTY = new Uint8Array(0);

export class CometApp implements AbciApplication {
  /** The hash of the block last finalized, for the commit log line. */
  private blockHash = "";
  /** The halt this app answered CometBFT with, if any: the node exits with its code. */
  halted: AbciHalt | undefined;
  /** What ExtendVote last attached (for a log line when it changes). */
  private attaching = "";
  /** Refusals already logged (validator and reason), so a validator refused at every height is said once. */
  private readonly refusals = new Set<string>();
  /** The plan whose block FinalizeBlock is running (or halted on): CheckTx refuses meanwhile. */
  private haltingFor: Plan | undefined;
  /** This process kept the mempool for that block. */
  private kept = false;

  constructor(private readonly o: CometAppOptions) {}

  info() {
    const { state } = this.o;
    return {
      data: state.app.name,
      version: state.app.definition.version ?? "",
      appVersion: state.appVersion,
      lastBlockHeight: state.height,
      lastBlockAppHash: state.height > 0n ? state.appHash() : EMPTY,
    };
  }

  async initChain(req: RequestOf<"initChain">) {
    const { state } = this.o;
    const halt = (message: string, cause?: unknown) => {
      this.o.logger.error("halting the node: InitChain failed", { module: "node", height: 0, exit_code: 1, err: message });
      return (this.halted = new AbciHalt(message, { exitCode: 1, cause }));
    };
    if (req.chainId !== state.chainId)
      throw halt(`CometBFT's genesis is for chain ${JSON.stringify(req.chainId)}, the devnet's for ${JSON.stringify(state.chainId)}`);
    if (req.initialHeight > 1n) throw halt(`initial_height ${req.initialHeight} is not supported: the devnet starts at height 1`);
    let appState: AppState;
    try {
      appState = JSON.parse(fromUtf8(req.appStateBytes)) as AppState;
      if (typeof appState !== "object" || appState === null) throw new Error("not a JSON object");
    } catch (e) {
      throw halt(`invalid app_state in CometBFT's genesis: ${messageOf(e)}`, e);
    }
    const validators: ConsensusValidator[] = [];
    for (const v of req.validators) {
      if (!v.pubKey.ed25519 || v.pubKey.ed25519.length !== 32) throw halt("genesis validators must have ed25519 keys");
      validators.push({ pubKey: v.pubKey.ed25519, power: v.power });
    }
    try {
      const voteExtensionsEnableHeight = req.consensusParams?.abci?.voteExtensionsEnableHeight ?? 0n;
      const appHash = await state.initChain({ appState, validators, height: 1n, timeNs: timestampNs(req.time), voteExtensionsEnableHeight });
      return { appHash };
    } catch (e) {
      throw halt(`InitChain: ${messageOf(e)}`, e);
    }
  }

  prepareProposal(req: RequestOf<"prepareProposal">) {
    const txs = req.txs.filter((t) => !isInjection(t));
    if (!this.o.state.votesRequired(req.height)) return { txs: fitTxs(txs, req.maxTxBytes) };
    const { tx, pruned } = buildInjection(req.localLastCommit);
    if (pruned > 0)
      this.o.logger.warn("pruned vote extensions that fail the shape check from the proposal", { module: "readiness", height: req.height, pruned });
    return { txs: [tx, ...fitTxs(txs, req.maxTxBytes - BigInt(txDataSize(tx)))] };
  }

  async processProposal(req: RequestOf<"processProposal">) {
    const { state } = this.o;
    try {
      const required = state.votesRequired(req.height);
      checkPlacement(req.txs, required);
      if (required) await checkInjection({ chainId: state.chainId, height: req.height, view: state.stores }, req.txs[0], req.proposedLastCommit);
      return { status: ACCEPT };
    } catch (e) {
      if (!(e instanceof InjectionError)) throw e;
      this.o.logger.warn("rejected a proposal: its vote extensions fail a check", {
        module: "readiness",
        height: req.height,
        proposer: hexUpper(req.proposerAddress),
        check: e.kind,
        err: e.message,
      });
      return { status: REJECT };
    }
  }

  /** The sidecar's attestation for the scheduled plan, or an empty extension. Never fails the vote. */
  async extendVote(req: RequestOf<"extendVote">) {
    const plan = this.o.plan();
    const { state: file } = await this.o.readiness.read();
    let attach: Uint8Array = EMPTY;
    let what = "nothing";
    if (file.kind === "invalid") what = `nothing: ${this.o.readiness.path} is not usable: ${file.problem}`;
    else if (file.kind === "attestation" && !plan)
      what = `nothing: ${this.o.readiness.path} attests "${file.attestation.planName}" and no upgrade is scheduled`;
    else if (file.kind === "attestation" && plan) {
      const a = file.attestation;
      if (a.planName === plan.name && a.planHeight === plan.height) {
        attach = encodeVoteExtension(a);
        what = `the readiness attestation of "${a.planName}" at ${a.planHeight}: ${preflightText(a)}, rehearsal ${a.rehearsal}`;
      } else what = `nothing: ${this.o.readiness.path} attests "${a.planName}" at ${a.planHeight}, the scheduled plan is "${plan.name}" at ${plan.height}`;
    }
    if (what !== this.attaching) {
      this.attaching = what;
      this.o.logger.info(`vote extensions now carry ${what}`, { module: "readiness", height: req.height, bytes: attach.length });
    }
    return { voteExtension: attach };
  }

  verifyVoteExtension(req: RequestOf<"verifyVoteExtension">) {
    try {
      decodeVoteExtension(req.voteExtension);
      return { status: ACCEPT };
    } catch (e) {
      const validator = hexUpper(req.validatorAddress);
      const key = `${validator}\0${messageOf(e)}`;
      if (!this.refusals.has(key)) {
        if (this.refusals.size > 1000) this.refusals.clear();
        this.refusals.add(key);
        this.o.logger.warn("refused a vote extension", {
          module: "readiness",
          height: req.height,
          validator,
          bytes: req.voteExtension.length,
          err: messageOf(e),
        });
      }
      return { status: REJECT };
    }
  }

  async finalizeBlock(req: RequestOf<"finalizeBlock">): Promise<DeepPartial<ResponseFinalizeBlock>> {
    const { state, logger } = this.o;
    const plan = this.o.plan();
    if (plan && plan.height === req.height) {
      // The upgrade's block: nothing more is taken, and what waits in the mempool is kept before the keeper can halt.
      this.haltingFor = plan;
      this.kept = (await this.o.carry?.keep(req.height, this.o.pending?.except(req.txs) ?? [])) ?? false;
    }
    try {
      const { txs, votes, injected } = await this.takeVotes(req);
      const block = await state.finalizeBlock({ height: req.height, timeNs: timestampNs(req.time), txs, votes });
      if (this.kept) await this.o.carry?.drop();
      this.kept = false;
      this.haltingFor = undefined;
      this.o.pending?.included(req.txs);
      this.blockHash = hexUpper(req.hash);
      const changed = block.upgraded && state.appVersion !== block.appVersionBefore;
      return {
        txResults: [...(injected ? [injected] : []), ...block.txResults.map(execTxResult)],
        events: block.events.map(abciEvent),
        appHash: block.appHash,
        // The header's app version follows the protocol version, as a Cosmos app's consensus params do.
        ...(changed ? { consensusParamUpdates: { version: { app: state.appVersion } } } : {}),
      };
    } catch (e) {
      const h = e instanceof BlockHaltError ? e : new BlockHaltError(req.height, 1, e);
      // The block consensus decided and the state it stops on: every validator halting at H logs the same two.
      const last = state.height > 0n ? hexUpper(state.appHash()) : "";
      logger.error("halting the node", {
        module: "node",
        height: h.height,
        exit_code: h.exitCode,
        err: h.message,
        block_hash: hexUpper(req.hash),
        app_hash: last,
      });
      throw (this.halted = new AbciConsensusHalt(h.message, { exitCode: h.exitCode, cause: h }));
    }
  }

  /**
   * The block's own transactions and, when it starts with the previous height's votes, those votes checked
   * again (FinalizeBlock also runs in CometBFT's replay, without ProcessProposal). Deterministic: votes that
   * fail a check tell the tally nothing, on every node alike.
   */
  private async takeVotes(req: RequestOf<"finalizeBlock">): Promise<{ txs: Uint8Array[]; votes?: ReadinessVote[]; injected?: DeepPartial<ExecTxResult> }> {
    const { state } = this.o;
    if (req.txs.length === 0 || !isInjection(req.txs[0]) || !state.votesRequired(req.height)) return { txs: req.txs };
    const txs = req.txs.slice(1);
    try {
      const votes = await checkInjection({ chainId: state.chainId, height: req.height, view: state.stores }, req.txs[0], req.decidedLastCommit);
      return { txs, votes, injected: { code: 0, log: `the votes of height ${req.height - 1n} with their extensions` } };
    } catch (e) {
      if (!(e instanceof InjectionError)) throw e;
      this.o.logger.error("the block's injected votes fail a check: the tally ignores them", {
        module: "readiness",
        height: req.height,
        check: e.kind,
        err: e.message,
      });
      return { txs, injected: { code: 1, codespace: "xupgrade", log: e.message } };
    }
  }

  async commit() {
    try {
      await this.o.state.commit({ blockHash: this.blockHash });
    } catch (e) {
      const h = e instanceof BlockHaltError ? e : new BlockHaltError(this.o.state.height + 1n, 1, e);
      this.o.logger.error("halting the node", { module: "node", height: h.height, exit_code: h.exitCode, err: h.message });
      throw (this.halted = new AbciHalt(`commit failed: ${h.message}`, { exitCode: h.exitCode, cause: h }));
    }
    return { retainHeight: 0n };
  }

  checkTx(req: RequestOf<"checkTx">) {
    if (isInjection(req.tx)) return { code: 2, codespace: "sdk", log: "only a proposer injects a vote list, first in its block: tx parse error" };
    const halting = this.haltingFor;
    if (halting) return { code: HALTED_TX.code, codespace: HALTED_TX.codespace, log: haltedTxLog(halting) };
    try {
      const r = this.o.state.checkTx(req.tx);
      if (r.code === 0) this.o.pending?.accepted(req.tx);
      else if (req.type === CHECK_TX_RECHECK) this.o.pending?.refused(req.tx);
      return { code: r.code, codespace: r.codespace, log: r.log, gasWanted: r.gasWanted, gasUsed: r.gasUsed };
    } catch (e) {
      return { code: 1, codespace: "undefined", log: messageOf(e) };
    }
  }

  query(req: RequestOf<"query">) {
    const router = this.o.queries();
    const height = this.o.state.height;
    if (!router) return { code: 1, codespace: "undefined", log: "the query services are not running yet", height };
    try {
      const r = router.query(req.path, req.data, req.height, req.prove);
      const proofOps = r.proofOps && { ops: r.proofOps.map((op) => ({ type: op.type, key: op.key, data: op.data })) };
      return { code: r.code, codespace: r.codespace, log: r.log, info: r.info, index: r.index, key: r.key, value: r.value, proofOps, height: r.height };
    } catch (e) {
      return { code: 1, codespace: "undefined", log: messageOf(e), height };
    }
  }
}

export function timestampNs(t: { seconds: bigint; nanos: number } | undefined): bigint {
  if (!t) return 0n;
  return t.seconds * 1_000_000_000n + BigInt(t.nanos);
}

function abciEvent(e: ChainEvent | TxResultJson["events"][number]) {
  const attributes = e.attributes.map((a) => (Array.isArray(a) ? { key: a[0], value: a[1], index: true } : a));
  return { type: e.type, attributes };
}

function execTxResult(r: TxResultJson): DeepPartial<ExecTxResult> {
  return {
    code: r.code,
    data: r.data === null ? EMPTY : new Uint8Array(Buffer.from(r.data, "base64")),
    log: r.log,
    info: r.info,
    gasWanted: BigInt(r.gas_wanted),
    gasUsed: BigInt(r.gas_used),
    events: r.events.map(abciEvent),
    codespace: r.codespace,
  };
}
