/**
 * The devnet's CometBFT-compatible RPC transport (docs/spec/interfaces.md §5): JSON-RPC 2.0 over POST / (single or
 * batch) and the URI form over GET (`/status`, `/abci_query?path="/store/upgrade/key"&data=0x00`), with
 * CORS. The methods themselves are in methods.ts.
 *
 * The server is the project's hardened one (docs/spec/interfaces.md §12.2) with 64 KiB heads and 2 MiB bodies; an
 * error a method did not word (anything but an RpcError) is answered -32603 `Internal error` with data
 * `internal error` and logged, never described (docs/spec/interfaces.md §12.1).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { parseAddress } from "../../../../services/address.js";
import { closeGracefully, createHardenedServer, HTTP_DEFAULTS, listen, resolveHttpLimits } from "../../../../services/http.js";
import { errorDetail, INTERNAL_MESSAGE } from "../../../../services/internal.js";
import { INT64_MAX, INT64_MIN } from "../../../../go/int.js";
import { fromBase64Strict, fromHexStrict } from "../../shared/util.js";
import { rpcMethods } from "./methods.js";
import { InvalidParamError, RpcError, internal, type Args, type Method, type RpcServerOptions } from "./types.js";
import { messageOf } from "../../../../base/errors.js";
import { joinHostPort } from "../../../../base/host-port.js";

export { RpcError, type RpcServerOptions };

/** The project's HTTP defaults, with CometBFT-sized room for the URI form's long `tx=` arguments and for bodies. */
export const RPC_HTTP_DEFAULTS = Object.freeze({ ...HTTP_DEFAULTS, maxHeaderBytes: 64 * 1024, maxBodyBytes: 2 * 1024 * 1024 });

export interface RpcServerHandle {
  readonly address: string;
  readonly url: string;
  readonly server: Server;
  close(graceMs?: number): Promise<void>;
}

const CORS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Origin, Accept, Content-Type, X-Requested-With, X-Server-Time, x-cosmos-block-height",
  "Access-Control-Expose-Headers": "x-cosmos-block-height, Grpc-Metadata-X-Cosmos-Block-Height",
};
/** Logs an unexpected error with its detail; the answer carries only `internal error` (docs/spec/interfaces.md §12.1). */
type Unexpected = (e: unknown) => RpcError;

/** A body over the limit, found while reading it: answered 413 and the connection closed. */
class BodyTooLarge extends Error {}

export async function startRpcServer(o: RpcServerOptions): Promise<RpcServerHandle> {
  const { host, port } = parseAddress(o.address, "rpc");
  const limits = resolveHttpLimits(o.http, RPC_HTTP_DEFAULTS);
  let boundAddress = o.address;
  const methods = rpcMethods(o, () => boundAddress);
  const unexpected: Unexpected = (e) => {
    try {
      o.logger.error("unexpected error answered as internal error", { module: "rpc", err: errorDetail(e) });
    } catch {
      /* a broken logger must not break the answer */
    }
    return internal(INTERNAL_MESSAGE);
  };
  const tooLarge = (res: ServerResponse, message: string) =>
    send(res, 413, { jsonrpc: "2.0", id: -1, error: { code: -32600, message: "Invalid Request", data: message } }, { Connection: "close" });
  const server = createHardenedServer(
    limits,
    (req, res) => {
      handle(methods, limits.maxBodyBytes, unexpected, req, res).catch((e) => {
        if (res.headersSent) return void res.destroy();
        if (e instanceof BodyTooLarge) return tooLarge(res, e.message);
        const err = unexpected(e);
        send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: err.code, message: err.rpcMessage, data: err.data } });
      });
    },
    tooLarge,
  );
  boundAddress = joinHostPort(host, await listen(server, host, port));
  let closing: Promise<void> | undefined;
  return {
    address: boundAddress,
    url: `http://${boundAddress}`,
    server,
    close(graceMs = 2000) {
      closing ??= closeGracefully(server, graceMs);
      return closing;
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  res.writeHead(status, {
    ...CORS,
    "Content-Type": typeof body === "string" ? "text/html" : "application/json",
    "Content-Length": Buffer.byteLength(text),
    ...extra,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > max) throw new BodyTooLarge(`request body larger than max (more than ${max} bytes)`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function handle(methods: Map<string, Method>, maxBody: number, unexpected: Unexpected, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "OPTIONS") return send(res, 204, "");
  let url: URL;
  try {
    url = new URL(req.url ?? "/", "http://rpc.local");
  } catch {
    return send(res, 400, { jsonrpc: "2.0", id: -1, error: { code: -32600, message: "Invalid Request", data: "invalid request target" } });
  }
  if (req.method === "POST" && (url.pathname === "/" || url.pathname === "")) {
    let text: string;
    try {
      text = await readBody(req, maxBody);
    } catch (e) {
      if (e instanceof BodyTooLarge) throw e;
      return void res.destroy(); // the client went away mid-body
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      const err = new RpcError(-32700, "Parse error", `error unmarshaling request: ${messageOf(e)}`);
      return send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: err.code, message: err.rpcMessage, data: err.data } });
    }
    const batch = Array.isArray(body);
    const requests = batch ? (body as unknown[]) : [body];
    if (requests.length === 0) return send(res, 400, { jsonrpc: "2.0", id: -1, error: { code: -32600, message: "Invalid Request", data: "empty batch" } });
    const responses: unknown[] = [];
    for (const r of requests) responses.push(await callJson(methods, unexpected, r));
    return send(res, 200, batch ? responses : responses[0]);
  }
  if (req.method !== "GET" && req.method !== "HEAD")
    return send(
      res,
      405,
      { jsonrpc: "2.0", id: -1, error: { code: -32600, message: "Invalid Request", data: `method ${req.method} not allowed` } },
      { Allow: "GET, POST, OPTIONS" },
    );
  const name = url.pathname.slice(1);
  if (name === "") return send(res, 200, indexPage(methods));
  const method = methods.get(name);
  if (!method) return send(res, 404, { jsonrpc: "2.0", id: -1, error: { code: -32601, message: "Method not found", data: "" } });
  let args: Args;
  try {
    args = uriArgs(method, url.searchParams);
  } catch (e) {
    return send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: -32602, message: "Invalid params", data: messageOf(e) } });
  }
  try {
    return send(res, 200, { jsonrpc: "2.0", id: -1, result: await method.run(args) });
  } catch (e) {
    const err = e instanceof RpcError ? e : unexpected(e);
    return send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: err.code, message: err.rpcMessage, data: err.data } });
  }
}

async function callJson(methods: Map<string, Method>, unexpected: Unexpected, r: unknown): Promise<unknown> {
  if (typeof r !== "object" || r === null || Array.isArray(r)) {
    return { jsonrpc: "2.0", id: -1, error: { code: -32600, message: "Invalid Request", data: "request must be an object" } };
  }
  const { id, method: name, params } = r as { id?: unknown; method?: unknown; params?: unknown };
  const rid = id ?? -1;
  const method = typeof name === "string" ? methods.get(name) : undefined;
  if (!method) return { jsonrpc: "2.0", id: rid, error: { code: -32601, message: "Method not found", data: "" } };
  let args: Args;
  try {
    args = jsonArgs(method, params);
  } catch (e) {
    return { jsonrpc: "2.0", id: rid, error: { code: -32602, message: "Invalid params", data: `error converting json params to arguments: ${messageOf(e)}` } };
  }
  try {
    return { jsonrpc: "2.0", id: rid, result: await method.run(args) };
  } catch (e) {
    const err = e instanceof RpcError ? e : unexpected(e);
    return { jsonrpc: "2.0", id: rid, error: { code: err.code, message: err.rpcMessage, data: err.data } };
  }
}

/** JSON params: an object by name or an array by position. []byte is base64; HexBytes (abci_query data) is hex. */
function jsonArgs(method: Method, params: unknown): Args {
  const out: Args = {};
  if (params === undefined || params === null) return out;
  const byName: Record<string, unknown> = {};
  if (Array.isArray(params)) method.args.forEach(([n], i) => (byName[n] = params[i]));
  else if (typeof params === "object") Object.assign(byName, params);
  else throw new InvalidParamError("params must be an object or an array");
  for (const [name, kind] of method.args) {
    const v = byName[name];
    if (v === undefined || v === null) continue;
    switch (kind) {
      case "int":
        if (typeof v === "number" && Number.isSafeInteger(v)) out[name] = BigInt(v);
        else if (typeof v === "string" && /^-?[0-9]+$/.test(v) && inInt64(v)) out[name] = BigInt(v);
        else if (v === "") continue;
        else throw new InvalidParamError(`${name}: invalid integer ${JSON.stringify(v)}`);
        break;
      case "bool":
        if (typeof v !== "boolean") throw new InvalidParamError(`${name}: expected a boolean`);
        out[name] = v;
        break;
      case "string":
        if (typeof v !== "string") throw new InvalidParamError(`${name}: expected a string`);
        out[name] = v;
        break;
      case "hexbytes":
        if (typeof v !== "string") throw new InvalidParamError(`${name}: expected a hex string`);
        out[name] = fromHexStrict(v.startsWith("0x") || v.startsWith("0X") ? v.slice(2) : v);
        break;
      case "bytes":
        if (typeof v !== "string") throw new InvalidParamError(`${name}: expected a base64 string`);
        out[name] = decodeFlexibleBytes(v);
        break;
    }
  }
  return out;
}

/** Whether decimal digits (with an optional `-`) fit an int64, as CometBFT's strconv.ParseInt requires. */
function inInt64(digits: string): boolean {
  if (digits.length > 21) return false;
  const v = BigInt(digits);
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** base64 (JSON []byte), or `0x…`/plain 64-hex for hashes typed by people. */
function decodeFlexibleBytes(v: string): Uint8Array {
  if (/^0x[0-9a-fA-F]*$/.test(v)) return fromHexStrict(v.slice(2));
  if (/^[0-9a-fA-F]{64}$/.test(v)) return fromHexStrict(v);
  return fromBase64Strict(v);
}

/** URI params: strings quoted (`"…"`), bytes as `0x…` hex (or a quoted string's bytes), numbers bare or quoted. */
function uriArgs(method: Method, q: URLSearchParams): Args {
  const out: Args = {};
  for (const [name, kind] of method.args) {
    const raw = q.get(name);
    if (raw === null || raw === "") continue;
    const unq = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : undefined;
    switch (kind) {
      case "int": {
        const t = unq ?? raw;
        if (!/^-?[0-9]+$/.test(t) || !inInt64(t)) throw new InvalidParamError(`${name}: invalid integer ${raw}`);
        out[name] = BigInt(t);
        break;
      }
      case "bool":
        if (raw !== "true" && raw !== "false") throw new InvalidParamError(`${name}: expected true or false`);
        out[name] = raw === "true";
        break;
      case "string":
        out[name] = unq ?? raw;
        break;
      case "hexbytes":
      case "bytes":
        if (/^0x/i.test(raw)) out[name] = fromHexStrict(raw.slice(2));
        else if (unq !== undefined) out[name] = kind === "bytes" ? decodeFlexibleBytes(unq) : new TextEncoder().encode(unq);
        else if (kind === "bytes") out[name] = decodeFlexibleBytes(raw);
        else out[name] = fromHexStrict(raw);
        break;
    }
  }
  return out;
}

function indexPage(methods: Map<string, Method>): string {
  const items = [...methods]
    .map(([n, m]) => `<li><a href="/${n}">/${n}</a>${m.args.length ? "?" + m.args.map(([a]) => `${a}=_`).join("&amp;") : ""}</li>`)
    .join("");
  return `<html><body><br>Available endpoints:<br><ul>${items}</ul></body></html>`;
}
