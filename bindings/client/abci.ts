/**
 * Queries through `abci_query` (docs/spec/interfaces.md §4): request bytes in, response bytes out. A non-zero ABCI
 * code becomes the gRPC-style error the SDK's client shows (`rpc error: code = Unknown desc = <log>`).
 */
import { toHex } from "../core/errors.js";
import { ClientError } from "./errors.js";
import { type CometRpc, int, isObject } from "./rpc.js";

export interface AbciResult {
  value: Uint8Array;
  height: bigint;
}

/** ABCI error answered by the node: `code`/`codespace`/`log` as sent. */
export class AbciError extends ClientError {
  override name = "AbciError";
  constructor(
    readonly code: number,
    readonly codespace: string,
    readonly log: string,
  ) {
    super(`rpc error: code = ${grpcCodeName(code)} desc = ${log}`);
  }
}

/** The SDK client's mapping of an ABCI query error to a gRPC status (client/query.go sdkErrorToGRPCError). */
function grpcCodeName(code: number): string {
  switch (code) {
    case 18:
      return "InvalidArgument";
    case 4:
      return "Unauthenticated";
    case 22:
      return "NotFound";
    default:
      return "Unknown";
  }
}

export async function abciQuery(rpc: CometRpc, path: string, data: Uint8Array, height = 0n): Promise<AbciResult> {
  const method = "abci_query";
  const result = await rpc.call(method, { path, data: toHex(data), height: height.toString(), prove: false });
  const res = result.response;
  if (!isObject(res)) throw rpc.garbage(method, "no response object");
  const code = res.code === undefined ? 0 : res.code;
  if (typeof code !== "number" || !Number.isInteger(code)) throw rpc.garbage(method, "response.code is not a number");
  if (code !== 0) {
    throw new AbciError(code, typeof res.codespace === "string" ? res.codespace : "", typeof res.log === "string" ? res.log : "");
  }
  let value = new Uint8Array(0);
  if (res.value !== null && res.value !== undefined) {
    if (typeof res.value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(res.value)) throw rpc.garbage(method, "response.value is not base64");
    value = Uint8Array.from(atob(res.value), (c) => c.charCodeAt(0));
  }
  const h = res.height === undefined ? 0n : int(rpc, method, res, "height");
  return { value, height: h };
}

/** Decodes a response with a cosmjs-types decoder, turning a decode failure into a clear error. */
export function decodeWith<T>(rpc: CometRpc, path: string, decode: (b: Uint8Array) => T, bytes: Uint8Array): T {
  try {
    return decode(bytes);
  } catch (e) {
    throw rpc.garbage("abci_query", `cannot decode the ${path} response: ${(e as Error).message}`);
  }
}
