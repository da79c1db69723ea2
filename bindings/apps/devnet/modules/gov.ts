/**
 * x/gov v1, minimal: MsgSubmitProposal, MsgDeposit, MsgVote; the deposit and voting periods; a tally over
 * the validators' voting power with quorum, threshold and veto; a passed proposal's messages executed on a
 * branch that is written only if all succeed (else the proposal ends FAILED and nothing is kept).
 *
 * Store `gov`: `00 ‖ BE64(id)` → Proposal; `03` → BE64 next proposal id; `10 ‖ BE64(id) ‖ addr` → Deposit;
 * `20 ‖ BE64(id) ‖ addr` → Vote; `30` → Params (all cosmos.gov.v1 protobuf).
 */
import type { Any } from "cosmjs-types/google/protobuf/any";
import { Deposit, Params, Proposal, ProposalStatus, TallyResult, Vote, VoteOption, voteOptionToJSON } from "cosmjs-types/cosmos/gov/v1/gov";
import { MsgDeposit, MsgSubmitProposal, MsgSubmitProposalResponse, MsgVote } from "cosmjs-types/cosmos/gov/v1/tx";
import { GOV_AUTHORITY } from "../../../module/keeper.js";
import { burn, send } from "./bank.js";
import type { Branch, StoreView } from "../shared/branch.js";
import { DEC_ONE, coinsToString, fromProtoCoins, InvalidCoinsError, normalize, parseDec, toProtoCoins, type Coin } from "./coins.js";
import { txErrors, toTxError } from "../shared/errors.js";
import type { ChainEvent } from "../shared/events.js";
import { addressBytes, isAddress } from "../../../client/address.js";
import type { VotingValidator } from "./staking.js";
import { be64, fromTimestamp, readBe64, toTimestamp } from "../shared/util.js";
import { CorruptStoreError } from "../../../store/errors.js";

const GOV_STORE = "gov";
export const GOV_MODULE_ADDRESS = GOV_AUTHORITY;
const MAX_METADATA = 255;
const MAX_TITLE = 255;
const MAX_SUMMARY = 10_000;
const WEIGHT_ONE = "1.000000000000000000";

const PARAMS_KEY = Uint8Array.of(0x30);
const NEXT_ID_KEY = Uint8Array.of(0x03);
const proposalKey = (id: bigint) => concatBytes(Uint8Array.of(0x00), be64(id));
const depositPrefix = (id: bigint) => concatBytes(Uint8Array.of(0x10), be64(id));
const votePrefix = (id: bigint) => concatBytes(Uint8Array.of(0x20), be64(id));

/** Routes a proposal's messages (the gov router of the app). */
export interface ProposalRouter {
  /** The one signer a proposal message declares, or undefined for a type the node does not know. */
  signer(msg: Any): string | undefined;
  /** Whether a handler is registered for the type URL. */
  routable(typeUrl: string): boolean;
  /** Checks the message can be decoded (a malformed message fails the tx as a parse error). */
  check(msg: Any): void;
  /** Executes the message on `view`; throws on failure. Returns the events it emitted. */
  execute(view: Branch, msg: Any, height: bigint): Promise<ChainEvent[]> | ChainEvent[];
}

export type { VotingValidator } from "./staking.js";
import type { Logger } from "../../../base/logger.js";
import { coversAll } from "../../../core/coin.js";
import { concatBytes } from "../../../base/bytes.js";

export interface MsgResult {
  /** MsgXxxResponse bytes. */
  data: Uint8Array;
  responseTypeUrl: string;
  events: ChainEvent[];
}

export interface BlockInfo {
  height: bigint;
  /** Block time, nanoseconds since the epoch. */
  timeNs: bigint;
}

export class GovModule {
  constructor(
    private readonly router: ProposalRouter,
    /** The voting validators as the state being tallied holds them (see staking.ts). */
    private readonly validators: (view: StoreView) => readonly VotingValidator[],
    private readonly logger: Required<Logger>,
  ) {}

  // ---- state ----

  params(view: StoreView): Params {
    const raw = view.store(GOV_STORE).get(PARAMS_KEY);
    // InitChain writes them from the genesis: their absence is a damaged state.
    if (raw === undefined) throw new CorruptStoreError("gov params are not set");
    return Params.decode(raw);
  }

  setParams(view: StoreView, params: Params): void {
    view.store(GOV_STORE).set(PARAMS_KEY, Params.encode(params).finish());
  }

  getProposal(view: StoreView, id: bigint): Proposal | undefined {
    const raw = view.store(GOV_STORE).get(proposalKey(id));
    return raw === undefined ? undefined : Proposal.decode(raw);
  }

  proposals(view: StoreView): Proposal[] {
    const out: Proposal[] = [];
    for (const [, v] of view.store(GOV_STORE).iterate(Uint8Array.of(0x00), Uint8Array.of(0x01))) out.push(Proposal.decode(v));
    return out;
  }

  getVote(view: StoreView, id: bigint, voter: string): Vote | undefined {
    const raw = view.store(GOV_STORE).get(concatBytes(votePrefix(id), addressBytes(voter)));
    return raw === undefined ? undefined : Vote.decode(raw);
  }

  votes(view: StoreView, id: bigint): Vote[] {
    return this.scan(view, votePrefix(id)).map((v) => Vote.decode(v));
  }

  deposits(view: StoreView, id: bigint): Deposit[] {
    return this.scan(view, depositPrefix(id)).map((v) => Deposit.decode(v));
  }

  private scan(view: StoreView, prefix: Uint8Array): Uint8Array[] {
    const end = prefix.slice();
    end[end.length - 1]++;
    return [...view.store(GOV_STORE).iterate(prefix, end)].map(([, v]) => v);
  }

  private setProposal(view: StoreView, p: Proposal): void {
    view.store(GOV_STORE).set(proposalKey(p.id), Proposal.encode(p).finish());
  }

  private nextId(view: StoreView): bigint {
    const store = view.store(GOV_STORE);
    const raw = store.get(NEXT_ID_KEY);
    const id = raw === undefined ? 1n : readBe64(raw);
    store.set(NEXT_ID_KEY, be64(id + 1n));
    return id;
  }

  // ---- messages ----

  submitProposal(view: StoreView, msg: MsgSubmitProposal, block: BlockInfo): MsgResult {
    if (!isAddress(msg.proposer)) throw txErrors.invalidAddress(`invalid proposer address ${JSON.stringify(msg.proposer)}`);
    const deposit = this.depositCoins(msg.initialDeposit);
    if (msg.title === "") throw txErrors.govInvalidProposalMsg("proposal title cannot be empty");
    if (msg.summary === "") throw txErrors.govInvalidProposalMsg("proposal summary cannot be empty");
    if (msg.title.length > MAX_TITLE) throw txErrors.govInvalidProposalMsg(`title too long: got ${msg.title.length} characters, at most ${MAX_TITLE}`);
    if (msg.summary.length > MAX_SUMMARY) throw txErrors.govSummaryTooLong(`got summary with length ${msg.summary.length}`);
    if (msg.metadata.length > MAX_METADATA) throw txErrors.govMetadataTooLong(`got metadata with length ${msg.metadata.length}`);
    if (msg.expedited) throw txErrors.govInvalidProposal("expedited proposals are not supported by the devnet");
    if (msg.messages.length === 0) throw txErrors.govNoMessages();
    for (const m of msg.messages) {
      const signer = this.router.signer(m);
      if (signer === undefined || !this.router.routable(m.typeUrl)) throw txErrors.govUnroutable(m.typeUrl);
      if (signer !== GOV_MODULE_ADDRESS) throw txErrors.govInvalidSigner(signer);
      this.router.check(m);
    }
    const params = this.params(view);
    this.checkDenoms(params, deposit);

    const id = this.nextId(view);
    const submitTime = block.timeNs;
    const proposal: Proposal = Proposal.fromPartial({
      id,
      messages: msg.messages,
      status: ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD,
      finalTallyResult: { yesCount: "0", abstainCount: "0", noCount: "0", noWithVetoCount: "0" },
      submitTime: toTimestamp(submitTime),
      depositEndTime: toTimestamp(submitTime + durationNs(params.maxDepositPeriod)),
      totalDeposit: [],
      metadata: msg.metadata,
      title: msg.title,
      summary: msg.summary,
      proposer: msg.proposer,
      expedited: false,
      failedReason: "",
    });
    this.setProposal(view, proposal);
    const events: ChainEvent[] = [
      {
        type: "submit_proposal",
        attributes: [
          ["proposal_id", id.toString()],
          ["proposal_proposer", msg.proposer],
          ["proposal_messages", msg.messages.map((m) => `,${m.typeUrl}`).join("")],
        ],
      },
    ];
    events.push(...this.addDeposit(view, id, msg.proposer, deposit, block));
    return {
      data: MsgSubmitProposalResponse.encode({ proposalId: id }).finish(),
      responseTypeUrl: "/cosmos.gov.v1.MsgSubmitProposalResponse",
      events,
    };
  }

  deposit(view: StoreView, msg: MsgDeposit, block: BlockInfo): MsgResult {
    if (!isAddress(msg.depositor)) throw txErrors.invalidAddress(`invalid depositor address ${JSON.stringify(msg.depositor)}`);
    const coins = this.depositCoins(msg.amount);
    if (coins.length === 0) throw txErrors.invalidCoins(`${coinsToString(coins)}`);
    this.checkDenoms(this.params(view), coins);
    const events = this.addDeposit(view, msg.proposalId, msg.depositor, coins, block);
    return { data: new Uint8Array(0), responseTypeUrl: "/cosmos.gov.v1.MsgDepositResponse", events };
  }

  vote(view: StoreView, msg: MsgVote): MsgResult {
    if (!isAddress(msg.voter)) throw txErrors.invalidAddress(`invalid voter address ${JSON.stringify(msg.voter)}`);
    const option = msg.option as number;
    if (![1, 2, 3, 4].includes(option)) {
      const name = voteOptionToJSON(msg.option);
      throw txErrors.govInvalidVote(name === "UNRECOGNIZED" ? String(option) : name);
    }
    if (msg.metadata.length > MAX_METADATA) throw txErrors.govMetadataTooLong(`got metadata with length ${msg.metadata.length}`);
    const p = this.getProposal(view, msg.proposalId);
    if (!p) throw txErrors.govUnknownProposal(msg.proposalId.toString());
    if (p.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) throw txErrors.govInactiveProposal(msg.proposalId.toString());
    const vote: Vote = { proposalId: msg.proposalId, voter: msg.voter, options: [{ option: msg.option, weight: WEIGHT_ONE }], metadata: msg.metadata };
    view.store(GOV_STORE).set(concatBytes(votePrefix(msg.proposalId), addressBytes(msg.voter)), Vote.encode(vote).finish());
    return {
      data: new Uint8Array(0),
      responseTypeUrl: "/cosmos.gov.v1.MsgVoteResponse",
      events: [
        {
          type: "proposal_vote",
          attributes: [
            ["voter", msg.voter],
            ["option", `[{"option":${option},"weight":"${WEIGHT_ONE}"}]`],
            ["proposal_id", msg.proposalId.toString()],
          ],
        },
      ],
    };
  }

  private depositCoins(coins: { denom: string; amount: string }[]): Coin[] {
    try {
      return fromProtoCoins(coins);
    } catch (e) {
      if (e instanceof InvalidCoinsError) throw txErrors.invalidCoins(e.coins);
      throw e;
    }
  }

  private checkDenoms(params: Params, coins: readonly Coin[]): void {
    const denoms = params.minDeposit.map((c) => c.denom);
    if (coins.some((c) => !denoms.includes(c.denom))) {
      throw txErrors.govInvalidDepositDenom(`deposited ${coinsToString(coins)}, but gov accepts only the following denom(s): [${denoms.join(" ")}]`);
    }
  }

  private addDeposit(view: StoreView, id: bigint, depositor: string, coins: Coin[], block: BlockInfo): ChainEvent[] {
    const p = this.getProposal(view, id);
    if (!p) throw txErrors.govUnknownProposal(id.toString());
    if (p.status !== ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && p.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) {
      throw txErrors.govInactiveProposal(id.toString());
    }
    const events: ChainEvent[] = [];
    if (coins.length > 0) events.push(...send(view, depositor, GOV_MODULE_ADDRESS, coins));
    const key = concatBytes(depositPrefix(id), addressBytes(depositor));
    const store = view.store(GOV_STORE);
    const prev = store.get(key);
    const total = normalize([...(prev ? fromProtoCoins(Deposit.decode(prev).amount) : []), ...coins]);
    if (total.length > 0) store.set(key, Deposit.encode({ proposalId: id, depositor, amount: toProtoCoins(total) }).finish());
    p.totalDeposit = toProtoCoins(normalize([...fromProtoCoins(p.totalDeposit), ...coins]));
    events.push({
      type: "proposal_deposit",
      attributes: [
        ["amount", coinsToString(coins)],
        ["proposal_id", id.toString()],
        ["depositor", depositor],
      ],
    });
    const params = this.params(view);
    if (p.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && coversAll(fromProtoCoins(p.totalDeposit), fromProtoCoins(params.minDeposit))) {
      p.status = ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD;
      p.votingStartTime = toTimestamp(block.timeNs);
      p.votingEndTime = toTimestamp(block.timeNs + durationNs(params.votingPeriod));
      events.push({ type: "proposal_deposit", attributes: [["voting_period_start", id.toString()]] });
      this.logger.info("proposal entered the voting period", {
        module: "x/gov",
        proposal: id,
        voting_end_time: new Date(Number(fromTimestamp(p.votingEndTime) / 1_000_000n)).toISOString(),
      });
    }
    this.setProposal(view, p);
    return events;
  }

  // ---- end block ----

  /** Drops proposals whose deposit period ended; tallies those whose voting period ended and executes the passed ones. */
  async endBlock(view: Branch, block: BlockInfo): Promise<ChainEvent[]> {
    const events: ChainEvent[] = [];
    const params = this.params(view);
    for (const p of this.proposals(view)) {
      if (p.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && fromTimestamp(p.depositEndTime) <= block.timeNs) {
        if (params.burnProposalDepositPrevote) this.burnDeposits(view, p.id);
        else this.refundDeposits(view, p.id);
        view.store(GOV_STORE).delete(proposalKey(p.id));
        events.push({
          type: "inactive_proposal",
          attributes: [
            ["proposal_id", p.id.toString()],
            ["proposal_result", "proposal_dropped"],
          ],
        });
        this.logger.info("proposal did not meet minimum deposit; deleted", {
          module: "x/gov",
          proposal: p.id,
          min_deposit: coinsToString(fromProtoCoins(params.minDeposit)),
          total_deposit: coinsToString(fromProtoCoins(p.totalDeposit)),
        });
        continue;
      }
      if (p.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD || fromTimestamp(p.votingEndTime) > block.timeNs) continue;

      const { passes, burnDeposits, tally } = this.tally(view, p, params);
      if (burnDeposits) this.burnDeposits(view, p.id);
      else this.refundDeposits(view, p.id);
      let result: string;
      let log: string;
      if (passes) {
        const branch = view.branch();
        let failure: { index: number; typeUrl: string; error: string } | undefined;
        const msgEvents: ChainEvent[] = [];
        for (const [index, m] of p.messages.entries()) {
          try {
            msgEvents.push(...(await this.router.execute(branch, m, block.height)));
          } catch (e) {
            failure = { index, typeUrl: m.typeUrl, error: toTxError(e).log };
            break;
          }
        }
        if (!failure) {
          branch.write();
          events.push(...msgEvents);
          p.status = ProposalStatus.PROPOSAL_STATUS_PASSED;
          result = "proposal_passed";
          log = "passed";
        } else {
          branch.discard();
          p.status = ProposalStatus.PROPOSAL_STATUS_FAILED;
          p.failedReason = failure.error;
          result = "proposal_failed";
          log = `passed, but msg ${failure.index} (${failure.typeUrl}) failed on execution: ${failure.error}`;
        }
      } else {
        p.status = ProposalStatus.PROPOSAL_STATUS_REJECTED;
        result = "proposal_rejected";
        log = "rejected";
      }
      p.finalTallyResult = tally;
      this.setProposal(view, p);
      for (const [, k] of this.keysUnder(view, votePrefix(p.id))) view.store(GOV_STORE).delete(k);
      events.push({
        type: "active_proposal",
        attributes: [
          ["proposal_id", p.id.toString()],
          ["proposal_result", result],
          ["proposal_log", log],
        ],
      });
      const log_ = p.status === ProposalStatus.PROPOSAL_STATUS_FAILED ? this.logger.error : this.logger.info;
      log_("proposal tallied", {
        module: "x/gov",
        proposal: p.id,
        status: ProposalStatus[p.status],
        results: log,
        yes: tally.yesCount,
        no: tally.noCount,
        abstain: tally.abstainCount,
        no_with_veto: tally.noWithVetoCount,
      });
    }
    return events;
  }

  private keysUnder(view: StoreView, prefix: Uint8Array): [number, Uint8Array][] {
    const end = prefix.slice();
    end[end.length - 1]++;
    return [...view.store(GOV_STORE).iterate(prefix, end)].map(([k], i) => [i, k.slice()]);
  }

  /**
   * The v0.50 tally: votes weighted by the voters' bonded tokens (validators only: the devnet has no
   * delegators). Quorum over all bonded tokens; veto and threshold over the tokens that voted.
   */
  tally(view: StoreView, p: Proposal, params: Params): { passes: boolean; burnDeposits: boolean; tally: TallyResult } {
    const power = new Map(this.validators(view).map((v) => [v.account, v.tokens]));
    const totalBonded = [...power.values()].reduce((a, b) => a + b, 0n);
    const results = new Map<VoteOption, bigint>([
      [VoteOption.VOTE_OPTION_YES, 0n],
      [VoteOption.VOTE_OPTION_ABSTAIN, 0n],
      [VoteOption.VOTE_OPTION_NO, 0n],
      [VoteOption.VOTE_OPTION_NO_WITH_VETO, 0n],
    ]);
    let voted = 0n;
    for (const v of this.votes(view, p.id)) {
      const tokens = power.get(v.voter);
      if (tokens === undefined) continue;
      for (const o of v.options) {
        const share = (tokens * parseDec(o.weight)) / DEC_ONE;
        results.set(o.option, (results.get(o.option) ?? 0n) + share);
      }
      voted += tokens;
    }
    const tally: TallyResult = {
      yesCount: results.get(VoteOption.VOTE_OPTION_YES)!.toString(),
      abstainCount: results.get(VoteOption.VOTE_OPTION_ABSTAIN)!.toString(),
      noCount: results.get(VoteOption.VOTE_OPTION_NO)!.toString(),
      noWithVetoCount: results.get(VoteOption.VOTE_OPTION_NO_WITH_VETO)!.toString(),
    };
    const quorum = parseDec(params.quorum);
    const threshold = parseDec(params.threshold);
    const veto = parseDec(params.vetoThreshold);
    if (totalBonded === 0n) return { passes: false, burnDeposits: false, tally };
    // voted / totalBonded < quorum
    if (voted * DEC_ONE < quorum * totalBonded) return { passes: false, burnDeposits: params.burnVoteQuorum, tally };
    const abstain = results.get(VoteOption.VOTE_OPTION_ABSTAIN)!;
    if (voted - abstain === 0n) return { passes: false, burnDeposits: false, tally };
    // veto / voted > vetoThreshold
    if (results.get(VoteOption.VOTE_OPTION_NO_WITH_VETO)! * DEC_ONE > veto * voted) {
      return { passes: false, burnDeposits: params.burnVoteVeto, tally };
    }
    // yes / (voted - abstain) > threshold
    if (results.get(VoteOption.VOTE_OPTION_YES)! * DEC_ONE > threshold * (voted - abstain)) {
      return { passes: true, burnDeposits: false, tally };
    }
    return { passes: false, burnDeposits: false, tally };
  }

  private refundDeposits(view: StoreView, id: bigint): void {
    for (const [, key] of this.keysUnder(view, depositPrefix(id))) {
      const d = Deposit.decode(view.store(GOV_STORE).get(key)!);
      const coins = fromProtoCoins(d.amount);
      if (coins.length > 0) send(view, GOV_MODULE_ADDRESS, d.depositor, coins);
      view.store(GOV_STORE).delete(key);
    }
  }

  private burnDeposits(view: StoreView, id: bigint): void {
    for (const [, key] of this.keysUnder(view, depositPrefix(id))) {
      const d = Deposit.decode(view.store(GOV_STORE).get(key)!);
      const coins = fromProtoCoins(d.amount);
      if (coins.length > 0) burn(view, GOV_MODULE_ADDRESS, coins);
      view.store(GOV_STORE).delete(key);
    }
  }
}

export function durationNs(d: { seconds: bigint; nanos: number } | undefined): bigint {
  return d ? d.seconds * 1_000_000_000n + BigInt(d.nanos) : 0n;
}

function toDuration(ns: bigint): { seconds: bigint; nanos: number } {
  return { seconds: ns / 1_000_000_000n, nanos: Number(ns % 1_000_000_000n) };
}

/** Gov params of the devnet genesis (v0.50 defaults apart from the deposit, periods and thresholds given). */
export function makeGovParams(p: {
  minDeposit: Coin[];
  maxDepositPeriodNs: bigint;
  votingPeriodNs: bigint;
  quorum: string;
  threshold: string;
  vetoThreshold: string;
}): Params {
  return Params.fromPartial({
    minDeposit: toProtoCoins(p.minDeposit),
    maxDepositPeriod: toDuration(p.maxDepositPeriodNs),
    votingPeriod: toDuration(p.votingPeriodNs),
    quorum: p.quorum,
    threshold: p.threshold,
    vetoThreshold: p.vetoThreshold,
    minInitialDepositRatio: "0.000000000000000000",
    proposalCancelRatio: "0.500000000000000000",
    proposalCancelDest: "",
    expeditedVotingPeriod: toDuration(p.votingPeriodNs / 2n > 0n ? p.votingPeriodNs / 2n : p.votingPeriodNs),
    expeditedThreshold: "0.667000000000000000",
    expeditedMinDeposit: toProtoCoins(p.minDeposit.map((c) => ({ denom: c.denom, amount: c.amount * 5n }))),
    burnVoteQuorum: false,
    burnProposalDepositPrevote: false,
    burnVoteVeto: true,
    minDepositRatio: "0.010000000000000000",
  });
}
