/**
 * What an ABCI++ application implements: one optional method per request CometBFT v0.38 sends. Messages
 * are cosmjs-types' `tendermint.abci` types (64-bit numbers as bigint). A method may return its response
 * or a promise of it, and may leave out fields that keep their protobuf default (`{ code: 1 }` is a whole
 * ResponseCheckTx; returning nothing sends the all-default message, not the method's default answer). A
 * method the app does not define gets the default documented on it below.
 *
 * The server calls the application one request at a time, in arrival order across all four connections,
 * as CometBFT's own socket server does with its application mutex: no method runs while another one has
 * not finished.
 *
 * To stop the node, throw. Any error escaping a method (an AbciHalt, or anything else) is answered with
 * `Response.exception`; CometBFT then drops the connection, logs "… connection terminated. Did the
 * application crash?", and sends SIGTERM to itself. The server closes every connection and resolves
 * `stopped`, so the host process can exit.
 *
 * To stop consensus at a block and nothing else, as a Go application's FinalizeBlock error does, throw an
 * AbciConsensusHalt from finalizeBlock: CometBFT stops deciding blocks but keeps its p2p (the votes it
 * holds keep reaching the other validators), its RPC and the other connections (Query, CheckTx and Info are
 * still answered); the server keeps serving and resolves `consensusHalt`. The host stops the node when it
 * chooses.
 */
import type { DeepPartial } from "cosmjs-types/helpers";
import {
  ResponseApplySnapshotChunk_Result,
  ResponseOfferSnapshot_Result,
  ResponseProcessProposal_ProposalStatus,
  ResponseVerifyVoteExtension_VerifyStatus,
} from "cosmjs-types/tendermint/abci/types";
import type { MethodName, RequestOf, ResponseOf } from "./methods.js";

export type AbciReturn<M extends MethodName> = DeepPartial<ResponseOf<M>> | Promise<DeepPartial<ResponseOf<M>>>;

export interface AbciApplication {
  /** Default: echoes the message. (Flush is answered by the server itself and never reaches the app.) */
  echo?(req: RequestOf<"echo">): AbciReturn<"echo">;
  /**
   * The handshake on the query connection, at every CometBFT start. Default: empty, i.e. height 0 — then
   * CometBFT sends InitChain (when its own state is at genesis) or replays every stored block.
   * `lastBlockHeight`/`lastBlockAppHash` must be those of the last Commit the app has made durable.
   */
  info?(req: RequestOf<"info">): AbciReturn<"info">;
  /** Default: empty (keeps the genesis validators and consensus params; the genesis app hash stays). */
  initChain?(req: RequestOf<"initChain">): AbciReturn<"initChain">;
  /** Default: code 0, no value. */
  query?(req: RequestOf<"query">): AbciReturn<"query">;
  /** Default: code 0 (every transaction is accepted into the mempool). */
  checkTx?(req: RequestOf<"checkTx">): AbciReturn<"checkTx">;
  /** Default: empty (retain every block). */
  commit?(req: RequestOf<"commit">): AbciReturn<"commit">;
  /** Default: no snapshots. */
  listSnapshots?(req: RequestOf<"listSnapshots">): AbciReturn<"listSnapshots">;
  /** Default: REJECT (state sync is not supported). */
  offerSnapshot?(req: RequestOf<"offerSnapshot">): AbciReturn<"offerSnapshot">;
  /** Default: an empty chunk. */
  loadSnapshotChunk?(req: RequestOf<"loadSnapshotChunk">): AbciReturn<"loadSnapshotChunk">;
  /** Default: REJECT_SNAPSHOT. */
  applySnapshotChunk?(req: RequestOf<"applySnapshotChunk">): AbciReturn<"applySnapshotChunk">;
  /** Default: the mempool's transactions, in order, as long as they fit in `maxTxBytes` (see fitTxs). */
  prepareProposal?(req: RequestOf<"prepareProposal">): AbciReturn<"prepareProposal">;
  /** Default: ACCEPT. Must answer ACCEPT or REJECT: CometBFT panics on UNKNOWN (0), so the server halts instead. */
  processProposal?(req: RequestOf<"processProposal">): AbciReturn<"processProposal">;
  /** Default: an empty vote extension (only called once vote extensions are enabled in the consensus params). */
  extendVote?(req: RequestOf<"extendVote">): AbciReturn<"extendVote">;
  /** Default: ACCEPT. Must answer ACCEPT or REJECT: CometBFT panics on UNKNOWN (0), so the server halts instead. */
  verifyVoteExtension?(req: RequestOf<"verifyVoteExtension">): AbciReturn<"verifyVoteExtension">;
  /**
   * Default: code 0 for every transaction, no app hash. `txResults` must have one entry per transaction
   * (CometBFT fails the block otherwise, so the server halts instead).
   */
  finalizeBlock?(req: RequestOf<"finalizeBlock">): AbciReturn<"finalizeBlock">;
}

/** Methods an application can define (every request kind but flush). */
export type AppMethodName = Exclude<MethodName, "flush">;

/**
 * The error an application throws to stop the node on purpose (an upgrade height reached, a state it
 * cannot go on from). `exitCode` is for the host process; the server only reports it.
 */
export class AbciHalt extends Error {
  override readonly name: string = "AbciHalt";
  readonly exitCode: number | undefined;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode;
  }
}

/**
 * Thrown from finalizeBlock: CometBFT's consensus stops at this block, nothing else does. The server answers
 * with a block result CometBFT v0.38 refuses before it stores anything (one tx result more than the block
 * has transactions: state/execution.go checks the count right after the call and returns an error), and
 * finalizeCommit's panic on that error is recovered as "CONSENSUS FAILURE!!!" — the path a Go application's
 * FinalizeBlock error takes. The block itself is in CometBFT's block store (it is saved before it is
 * executed), so a restart replays it to the next binary. An exception would instead end the connection, and
 * CometBFT kills itself on any ABCI client error (proxy/multi_app_conn.go), taking its p2p down with it.
 * Thrown from any other method it is an AbciHalt.
 */
export class AbciConsensusHalt extends AbciHalt {
  override readonly name: string = "AbciConsensusHalt";
}

/** Bytes a transaction takes in a block's data, as CometBFT counts it (proto size of `Data{txs: [tx]}`). */
export function txDataSize(tx: Uint8Array): number {
  let lengthBytes = 1;
  for (let n = tx.length; n >= 0x80; n = Math.floor(n / 0x80)) lengthBytes++;
  return 1 + lengthBytes + tx.length;
}

/**
 * The leading transactions that fit in `maxTxBytes`, stopping at the first that does not. Sizes are
 * counted the way CometBFT validates a proposal (tag + length prefix + bytes per transaction); counting raw
 * lengths only, as Go's BaseApplication does, can return a list CometBFT then refuses to propose.
 */
export function fitTxs(txs: readonly Uint8Array[], maxTxBytes: bigint): Uint8Array[] {
  const out: Uint8Array[] = [];
  let total = 0n;
  for (const tx of txs) {
    total += BigInt(txDataSize(tx));
    if (total > maxTxBytes) break;
    out.push(tx);
  }
  return out;
}

type Defaults = { readonly [M in AppMethodName]: (req: RequestOf<M>) => DeepPartial<ResponseOf<M>> };

/** The answers for methods an application leaves out. */
export const DEFAULT_RESPONSES: Defaults = {
  echo: (req) => ({ message: req.message }),
  info: () => ({}),
  initChain: () => ({}),
  query: () => ({ code: 0 }),
  checkTx: () => ({ code: 0 }),
  commit: () => ({}),
  listSnapshots: () => ({ snapshots: [] }),
  offerSnapshot: () => ({ result: ResponseOfferSnapshot_Result.REJECT }),
  loadSnapshotChunk: () => ({}),
  applySnapshotChunk: () => ({ result: ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT }),
  prepareProposal: (req) => ({ txs: fitTxs(req.txs, req.maxTxBytes) }),
  processProposal: () => ({ status: ResponseProcessProposal_ProposalStatus.ACCEPT }),
  extendVote: () => ({}),
  verifyVoteExtension: () => ({ status: ResponseVerifyVoteExtension_VerifyStatus.ACCEPT }),
  finalizeBlock: (req) => ({ txResults: req.txs.map(() => ({ code: 0 })) }),
};
