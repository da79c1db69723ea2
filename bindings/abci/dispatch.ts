/**
 * One request through the application: the app's method (or its default), the response completed with
 * protobuf defaults, checked for the answers CometBFT would panic on, and encoded as a frame. Whatever goes
 * wrong on the way becomes a failure carrying the `Response.exception` frame to send instead.
 */
import { Response } from "cosmjs-types/tendermint/abci/types";
import { AbciConsensusHalt, DEFAULT_RESPONSES, type AbciApplication, type AppMethodName } from "./application.js";
import type { DecodedRequest } from "./decode.js";
import { encodeFrame } from "./framing.js";
import { METHODS, type MethodName, type RequestOf, type ResponseOf } from "./methods.js";
import { AbciAnswerError } from "./errors.js";

/** `consensusHalt`: the app stopped consensus at this block (the frame is the refused block result). */
export type Outcome = { ok: true; frame: Uint8Array; consensusHalt?: AbciConsensusHalt } | { ok: false; error: Error; frame: Uint8Array };

/** ResponseFlush, constant. */
export const FLUSH_FRAME = responseFrame({ flush: {} });

export function exceptionFrame(message: string): Uint8Array {
  return responseFrame({ exception: { error: message } });
}

function responseFrame(response: Response): Uint8Array {
  return encodeFrame(Response.encode(response).finish());
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(typeof e === "string" ? e : `non-Error thrown: ${String(e)}`);
}

export async function dispatch(app: AbciApplication, decoded: DecodedRequest): Promise<Outcome> {
  try {
    return { ok: true, frame: await call(app, decoded.method as AppMethodName, decoded.request) };
  } catch (e) {
    const error = asError(e);
    if (error instanceof AbciConsensusHalt && decoded.method === "finalizeBlock") {
      return { ok: true, frame: refusedBlockFrame(decoded.request, error), consensusHalt: error };
    }
    return { ok: false, error, frame: exceptionFrame(error.message) };
  }
}

/**
 * The FinalizeBlock answer that stops CometBFT v0.38's consensus and nothing else (see AbciConsensusHalt):
 * one tx result more than the block has transactions, each carrying the halt's message.
 */
export function refusedBlockFrame(request: RequestOf<"finalizeBlock">, halt: Error): Uint8Array {
  const result = { code: 1, codespace: "halt", log: halt.message };
  const txResults = Array.from({ length: request.txs.length + 1 }, () => result);
  return responseFrame({ finalizeBlock: METHODS.finalizeBlock.completeResponse({ txResults }) });
}

async function call<M extends AppMethodName>(app: AbciApplication, method: M, request: RequestOf<M>): Promise<Uint8Array> {
  const own = app[method] as ((req: RequestOf<M>) => unknown) | undefined;
  const partial = own ? await own.call(app, request) : DEFAULT_RESPONSES[method](request);
  const response = METHODS[method].completeResponse(partial ?? {});
  check(method, request, response);
  return responseFrame({ [method]: response });
}

const ACCEPT_OR_REJECT = new Set([1, 2]);

/** Answers on which CometBFT v0.38 panics or fails the block: halt cleanly with a clear reason instead. */
function check<M extends MethodName>(method: M, request: RequestOf<M>, response: ResponseOf<M>): void {
  switch (method) {
    case "processProposal":
    case "verifyVoteExtension": {
      const status = (response as ResponseOf<"processProposal" | "verifyVoteExtension">).status;
      if (!ACCEPT_OR_REJECT.has(status)) throw new AbciAnswerError(`${method} answered status ${status}; it must be ACCEPT (1) or REJECT (2)`);
      return;
    }
    case "finalizeBlock": {
      const txs = (request as RequestOf<"finalizeBlock">).txs.length;
      const results = (response as ResponseOf<"finalizeBlock">).txResults.length;
      if (txs !== results) throw new AbciAnswerError(`finalizeBlock answered ${results} tx results for ${txs} transactions`);
      return;
    }
    case "info": {
      const height = (response as ResponseOf<"info">).lastBlockHeight;
      if (height < 0n) throw new AbciAnswerError(`info answered a negative last block height (${height})`);
      return;
    }
  }
}
