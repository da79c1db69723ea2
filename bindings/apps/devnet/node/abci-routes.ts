/**
 * The devnet's extra ABCI query routes (docs/spec/interfaces.md §4), served through the query services' router:
 * gov v1 (Params, Proposal, Proposals, Vote, TallyResult), auth (Account) and bank (Balance, AllBalances).
 * Errors follow baseapp's gRPC→ABCI conversion: NotFound → sdk/22, InvalidArgument → sdk/18.
 */
import {
  QueryParamsRequest,
  QueryParamsResponse,
  QueryProposalRequest,
  QueryProposalResponse,
  QueryProposalsRequest,
  QueryProposalsResponse,
  QueryTallyResultRequest,
  QueryTallyResultResponse,
  QueryVoteRequest,
  QueryVoteResponse,
} from "cosmjs-types/cosmos/gov/v1/query";
import { ProposalStatus } from "cosmjs-types/cosmos/gov/v1/gov";
import { QueryAccountRequest, QueryAccountResponse } from "cosmjs-types/cosmos/auth/v1beta1/query";
import { Any } from "cosmjs-types/google/protobuf/any";
import { QueryAllBalancesRequest, QueryAllBalancesResponse, QueryBalanceRequest, QueryBalanceResponse } from "cosmjs-types/cosmos/bank/v1beta1/query";
import { SimulateRequest, SimulateResponse } from "cosmjs-types/cosmos/tx/v1beta1/service";
import type { AbciRoute } from "../../../services/abci.js";
import type { QueryContext } from "../../../services/height.js";
import { GrpcCode, QueryError } from "../../../services/status.js";
import { AUTH_STORE, getAccountAnyBytes } from "../modules/auth.js";
import { balance, balances } from "../modules/bank.js";
import type { StoreView } from "../shared/branch.js";
import { isDenom, toProtoCoins } from "../modules/coins.js";
import type { GovModule } from "../modules/gov.js";
import type { ChainState } from "../chain/state.js";
import { toTxError } from "../shared/errors.js";
import { isAddress } from "../../../client/address.js";
import { messageOf } from "../../../base/errors.js";

const notFound = (msg: string) =>
  new QueryError(GrpcCode.NOT_FOUND, msg, { codespace: "sdk", code: 22, log: `rpc error: code = NotFound desc = ${msg}: key not found` });
const invalidArgument = (msg: string) =>
  new QueryError(GrpcCode.INVALID_ARGUMENT, msg, { codespace: "sdk", code: 18, log: `rpc error: code = InvalidArgument desc = ${msg}: invalid request` });

function decode<T>(fn: (b: Uint8Array) => T, data: Uint8Array): T {
  try {
    return fn(data);
  } catch (e) {
    throw new QueryError(GrpcCode.INTERNAL, `grpc: error unmarshalling request: ${messageOf(e)}`, {
      codespace: "sdk",
      code: 18,
      log: `${messageOf(e)}: invalid request`,
    });
  }
}

/**
 * Routes reading the committed stores of the height asked for (`viewAt`: the stores of a retained height);
 * Simulate runs on a throwaway branch of the latest state.
 */
export function devnetAbciRoutes(
  viewAt: (height: bigint) => StoreView | undefined,
  gov: GovModule,
  chain: Pick<ChainState, "simulate">,
): Record<string, AbciRoute> {
  const routes = handlers(gov, chain);
  return Object.fromEntries(
    Object.entries(routes).map(([path, handle]) => [
      path,
      (data: Uint8Array, ctx: QueryContext) => {
        // An invariant: the height was resolved (and found retained) before the route runs.
        const view = viewAt(ctx.height);
        if (!view) throw new Error(`height ${ctx.height} is not retained`);
        return handle(data, view);
      },
    ]),
  );
}

function handlers(gov: GovModule, chain: Pick<ChainState, "simulate">): Record<string, (data: Uint8Array, view: StoreView) => Uint8Array> {
  return {
    "/cosmos.tx.v1beta1.Service/Simulate": (data) => {
      const req = decode(SimulateRequest.decode, data);
      if (req.txBytes.length === 0) throw invalidArgument("empty txBytes is not allowed");
      try {
        const r = chain.simulate(req.txBytes);
        return SimulateResponse.encode({
          gasInfo: { gasWanted: r.gasWanted, gasUsed: r.gasUsed },
          result: {
            data: r.data,
            log: "",
            events: r.events.map((e) => ({ type: e.type, attributes: e.attributes.map(([key, value]) => ({ key, value, index: true })) })),
            msgResponses: r.msgResponses,
          },
        }).finish();
      } catch (e) {
        const t = toTxError(e);
        throw new QueryError(GrpcCode.UNKNOWN, t.log, { codespace: t.codespace, code: t.code, log: t.log });
      }
    },
    "/cosmos.gov.v1.Query/Params": (data, view) => {
      const req = decode(QueryParamsRequest.decode, data);
      const params = gov.params(view);
      const res = QueryParamsResponse.fromPartial({ params });
      switch (req.paramsType) {
        case "":
          break;
        case "deposit":
          res.depositParams = { minDeposit: params.minDeposit, maxDepositPeriod: params.maxDepositPeriod };
          break;
        case "voting":
          res.votingParams = { votingPeriod: params.votingPeriod };
          break;
        case "tallying":
          res.tallyParams = { quorum: params.quorum, threshold: params.threshold, vetoThreshold: params.vetoThreshold };
          break;
        default:
          throw invalidArgument(`unknown params type: ${req.paramsType}`);
      }
      return QueryParamsResponse.encode(res).finish();
    },
    "/cosmos.gov.v1.Query/Proposal": (data, view) => {
      const { proposalId } = decode(QueryProposalRequest.decode, data);
      if (proposalId === 0n) throw invalidArgument("proposal id can not be 0");
      const proposal = gov.getProposal(view, proposalId);
      if (!proposal) throw notFound(`proposal ${proposalId} doesn't exist`);
      return QueryProposalResponse.encode({ proposal }).finish();
    },
    "/cosmos.gov.v1.Query/Proposals": (data, view) => {
      const req = decode(QueryProposalsRequest.decode, data);
      let proposals = gov.proposals(view);
      if (req.proposalStatus !== ProposalStatus.PROPOSAL_STATUS_UNSPECIFIED) proposals = proposals.filter((p) => p.status === req.proposalStatus);
      if (req.voter !== "") proposals = proposals.filter((p) => gov.getVote(view, p.id, req.voter) !== undefined);
      if (req.depositor !== "") proposals = proposals.filter((p) => gov.deposits(view, p.id).some((d) => d.depositor === req.depositor));
      if (req.pagination?.reverse) proposals.reverse();
      const offset = Number(req.pagination?.offset ?? 0n);
      const limit = Number(req.pagination?.limit || 100n);
      const page = proposals.slice(offset, offset + limit);
      return QueryProposalsResponse.encode({
        proposals: page,
        pagination: { nextKey: new Uint8Array(0), total: req.pagination?.countTotal ? BigInt(proposals.length) : 0n },
      }).finish();
    },
    "/cosmos.gov.v1.Query/Vote": (data, view) => {
      const req = decode(QueryVoteRequest.decode, data);
      if (req.proposalId === 0n) throw invalidArgument("proposal id can not be 0");
      if (!isAddress(req.voter)) throw invalidArgument(`invalid voter address: ${req.voter}`);
      const vote = gov.getVote(view, req.proposalId, req.voter);
      if (!vote) throw notFound(`voter: ${req.voter} not found for proposal: ${req.proposalId}`);
      return QueryVoteResponse.encode({ vote }).finish();
    },
    "/cosmos.gov.v1.Query/TallyResult": (data, view) => {
      const { proposalId } = decode(QueryTallyResultRequest.decode, data);
      if (proposalId === 0n) throw invalidArgument("proposal id can not be 0");
      const p = gov.getProposal(view, proposalId);
      if (!p) throw notFound(`proposal ${proposalId} doesn't exist`);
      const tally = p.status === ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD ? gov.tally(view, p, gov.params(view)).tally : p.finalTallyResult;
      return QueryTallyResultResponse.encode({ tally }).finish();
    },
    "/cosmos.auth.v1beta1.Query/Account": (data, view) => {
      const { address } = decode(QueryAccountRequest.decode, data);
      if (address === "") throw invalidArgument("Address cannot be empty");
      if (!isAddress(address)) throw invalidArgument(`invalid address ${address}`);
      const raw = getAccountAnyBytes(view.store(AUTH_STORE), address);
      if (raw === undefined) throw notFound(`account ${address} not found`);
      return QueryAccountResponse.encode({ account: Any.decode(raw) }).finish();
    },
    "/cosmos.bank.v1beta1.Query/Balance": (data, view) => {
      const { address, denom } = decode(QueryBalanceRequest.decode, data);
      if (!isAddress(address)) throw invalidArgument(`invalid address: ${address}`);
      if (!isDenom(denom)) throw invalidArgument(`invalid denom: ${denom}`);
      return QueryBalanceResponse.encode({ balance: { denom, amount: balance(view, address, denom).toString() } }).finish();
    },
    "/cosmos.bank.v1beta1.Query/AllBalances": (data, view) => {
      const { address } = decode(QueryAllBalancesRequest.decode, data);
      if (!isAddress(address)) throw invalidArgument(`invalid address: ${address}`);
      return QueryAllBalancesResponse.encode({ balances: toProtoCoins(balances(view, address)), pagination: undefined }).finish();
    },
  };
}
