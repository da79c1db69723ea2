/**
 * The ABCI++ methods of CometBFT v0.38 (`tendermint.abci`): the oneof field number each has in `Request`,
 * its message codecs, and the connection CometBFT sends it on. The Response oneof numbers are one higher
 * (Response field 1 is `exception`); cosmjs-types already knows them, so only the Request side is listed.
 */
import {
  RequestApplySnapshotChunk,
  RequestCheckTx,
  RequestCommit,
  RequestEcho,
  RequestExtendVote,
  RequestFinalizeBlock,
  RequestFlush,
  RequestInfo,
  RequestInitChain,
  RequestListSnapshots,
  RequestLoadSnapshotChunk,
  RequestOfferSnapshot,
  RequestPrepareProposal,
  RequestProcessProposal,
  RequestQuery,
  RequestVerifyVoteExtension,
  ResponseApplySnapshotChunk,
  ResponseCheckTx,
  ResponseCommit,
  ResponseEcho,
  ResponseExtendVote,
  ResponseFinalizeBlock,
  ResponseFlush,
  ResponseInfo,
  ResponseInitChain,
  ResponseListSnapshots,
  ResponseLoadSnapshotChunk,
  ResponseOfferSnapshot,
  ResponsePrepareProposal,
  ResponseProcessProposal,
  ResponseQuery,
  ResponseVerifyVoteExtension,
  type Request,
  type Response,
} from "cosmjs-types/tendermint/abci/types";

/** Every method name, as the oneof field is called in cosmjs-types' Request and Response. */
export type MethodName = keyof Request & keyof Response;

/** The request message of a method, e.g. RequestFinalizeBlock for "finalizeBlock". */
export type RequestOf<M extends MethodName> = NonNullable<Request[M]>;
/** The response message of a method, e.g. ResponseFinalizeBlock for "finalizeBlock". */
export type ResponseOf<M extends MethodName> = NonNullable<Response[M]>;

/** The four connections CometBFT opens to `proxy_app` (it opens them in the order query, snapshot, mempool, consensus). */
export type ConnectionRole = "consensus" | "mempool" | "query" | "snapshot";

interface MethodSpec<M extends MethodName> {
  /** Field number of the method in the Request oneof. */
  readonly field: number;
  /** The connection CometBFT uses for it; undefined for echo/flush, which any connection may send. */
  readonly role: ConnectionRole | undefined;
  readonly decodeRequest: (bytes: Uint8Array) => RequestOf<M>;
  /** Completes a partial response with protobuf defaults (and normalises numbers to bigint). */
  readonly completeResponse: (partial: unknown) => ResponseOf<M>;
}

// fromPartial's generic signature rejects `unknown`; the values handed in are checked by encoding them.
type Codec<T> = { decode(b: Uint8Array): T; fromPartial(o: never): T };
function spec<M extends MethodName>(field: number, role: ConnectionRole | undefined, req: Codec<RequestOf<M>>, res: Codec<ResponseOf<M>>): MethodSpec<M> {
  return { field, role, decodeRequest: (b) => req.decode(b), completeResponse: (p) => res.fromPartial(p as never) };
}

export const METHODS: { readonly [M in MethodName]: MethodSpec<M> } = {
  echo: spec<"echo">(1, undefined, RequestEcho, ResponseEcho),
  flush: spec<"flush">(2, undefined, RequestFlush, ResponseFlush),
  info: spec<"info">(3, "query", RequestInfo, ResponseInfo),
  initChain: spec<"initChain">(5, "consensus", RequestInitChain, ResponseInitChain),
  query: spec<"query">(6, "query", RequestQuery, ResponseQuery),
  checkTx: spec<"checkTx">(8, "mempool", RequestCheckTx, ResponseCheckTx),
  commit: spec<"commit">(11, "consensus", RequestCommit, ResponseCommit),
  listSnapshots: spec<"listSnapshots">(12, "snapshot", RequestListSnapshots, ResponseListSnapshots),
  offerSnapshot: spec<"offerSnapshot">(13, "snapshot", RequestOfferSnapshot, ResponseOfferSnapshot),
  loadSnapshotChunk: spec<"loadSnapshotChunk">(14, "snapshot", RequestLoadSnapshotChunk, ResponseLoadSnapshotChunk),
  applySnapshotChunk: spec<"applySnapshotChunk">(15, "snapshot", RequestApplySnapshotChunk, ResponseApplySnapshotChunk),
  prepareProposal: spec<"prepareProposal">(16, "consensus", RequestPrepareProposal, ResponsePrepareProposal),
  processProposal: spec<"processProposal">(17, "consensus", RequestProcessProposal, ResponseProcessProposal),
  extendVote: spec<"extendVote">(18, "consensus", RequestExtendVote, ResponseExtendVote),
  verifyVoteExtension: spec<"verifyVoteExtension">(19, "consensus", RequestVerifyVoteExtension, ResponseVerifyVoteExtension),
  finalizeBlock: spec<"finalizeBlock">(20, "consensus", RequestFinalizeBlock, ResponseFinalizeBlock),
};

/** Request oneof field number → method. */
export const METHOD_BY_FIELD: ReadonlyMap<number, MethodName> = new Map((Object.keys(METHODS) as MethodName[]).map((name) => [METHODS[name].field, name]));
