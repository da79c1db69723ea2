/**
 * An ABCI++ socket server for CometBFT v0.38: `startAbciServer({ address, app })`, where `app` implements
 * the methods it needs of `AbciApplication` with cosmjs-types' `tendermint.abci` messages.
 *
 * ```ts
 * const server = await startAbciServer({ address: "unix:///home/node/app.sock", app: myApp, logger });
 * // run: cometbft start --proxy_app unix:///home/node/app.sock
 * const { reason, error } = await server.stopped; // the app threw (or close() was called)
 * process.exit(error instanceof AbciHalt ? (error.exitCode ?? 1) : reason === "closed" ? 0 : 1);
 * ```
 *
 * @module xupgrade/abci
 */
export { startAbciServer, type AbciServer, type AbciServerOptions, type AbciStopped, type AbciStopReason } from "./server.js";
export {
  AbciConsensusHalt,
  AbciHalt,
  DEFAULT_RESPONSES,
  fitTxs,
  txDataSize,
  type AbciApplication,
  type AbciReturn,
  type AppMethodName,
} from "./application.js";
export { METHODS, type ConnectionRole, type MethodName, type RequestOf, type ResponseOf } from "./methods.js";
export { decodeRequest, RequestError, type DecodedRequest } from "./decode.js";
export { DEFAULT_MAX_FRAME_BYTES, encodeFrame, encodeUvarint, FrameError, FrameReader } from "./framing.js";
export { formatAddress, parseAddress, type ListenAddress } from "./address.js";
export { AbciAddressError, AbciAnswerError, SocketInUseError } from "./errors.js";
export type { LogFields, Logger } from "../base/logger.js";
