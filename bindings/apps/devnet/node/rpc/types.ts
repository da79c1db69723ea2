/** What the RPC transport and its methods share: the method shape, JSON-RPC errors and the server's options. */
import type { AbciQueryRouter } from "../../../../services/abci.js";
import type { HttpLimits } from "../../../../services/http.js";
import type { Chain } from "./chain.js";
import type { Logger } from "../../../../base/logger.js";

/** A JSON-RPC error: -32601 Method not found, -32602 Invalid params, -32603 Internal error, -32700 Parse error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly data: string,
  ) {
    super(data);
  }
}

/** A request's params that do not fit the method's arguments; answered -32602 Invalid params with this text. */
export class InvalidParamError extends Error {
  override name = "InvalidParamError";
}

export const internal = (data: string) => new RpcError(-32603, "Internal error", data);
export const invalidParams = (data: string) => new RpcError(-32602, "Invalid params", data);

/** A typed argument as a method declares it. */
export type ArgKind = "int" | "string" | "hexbytes" | "bytes" | "bool";
export type Args = Record<string, string | bigint | boolean | Uint8Array | undefined>;
export interface Method {
  args: [string, ArgKind][];
  run(args: Args): unknown | Promise<unknown>;
}

export interface RpcServerOptions {
  address: string;
  chain: Chain;
  abci: AbciQueryRouter;
  nodeId: string;
  moniker: string;
  appName: string;
  appVersionText: string;
  logger: Required<Logger>;
  /** HTTP limits (docs/spec/interfaces.md §12.2); defaults RPC_HTTP_DEFAULTS (server.ts). */
  http?: HttpLimits;
}
