/**
 * The devnet's CometBFT-compatible RPC transport (docs/spec/interfaces.md §5): JSON-RPC 2.0 over POST / (single or
 * batch) and the URI form over GET (`/status`, `/abci_query?path="/store/upgrade/key"&data=0x00`), with
 * CORS. The methods themselves are in methods.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AbciQueryRouter } from "../../../services/abci.js";
import { formatAddress, parseAddress } from "../../../services/address.js";
import type { Chain } from "../chain.js";
import type { DevnetLogger } from "../logger.js";
import { errorMessage, fromBase64Strict, fromHexStrict } from "../util.js";
import { rpcMethods } from "./methods.js";
import { RpcError, internal, type Args, type Method } from "./types.js";

export { RpcError };

export interface RpcServerOptions {
  address: string;
  chain: Chain;
  abci: AbciQueryRouter;
  nodeId: string;
  moniker: string;
  appName: string;
  appVersionText: string;
  logger: Required<DevnetLogger>;
}

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
const MAX_BODY = 2 * 1024 * 1024;

export async function startRpcServer(o: RpcServerOptions): Promise<RpcServerHandle> {
  const { host, port } = parseAddress(o.address, "rpc");
  let boundAddress = o.address;
  const methods = rpcMethods(o, () => boundAddress);
  const server = createServer({ maxHeaderSize: 64 * 1024, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    handle(methods, req, res).catch((e) => {
      if (!res.headersSent) send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: -32603, message: "Internal error", data: errorMessage(e) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address();
  boundAddress = formatAddress(host, typeof bound === "object" && bound !== null ? bound.port : port);
  let closing: Promise<void> | undefined;
  return {
    address: boundAddress,
    url: `http://${boundAddress}`,
    server,
    close(graceMs = 2000) {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  res.writeHead(status, { ...CORS, "Content-Type": typeof body === "string" ? "text/html" : "application/json", "Content-Length": Buffer.byteLength(text), ...extra });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > MAX_BODY) throw new RpcError(-32700, "Parse error", `request body larger than ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function handle(methods: Map<string, Method>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "OPTIONS") return send(res, 204, "");
  const url = new URL(req.url ?? "/", "http://rpc.local");
  if (req.method === "POST" && (url.pathname === "/" || url.pathname === "")) {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      const err = e instanceof RpcError ? e : new RpcError(-32700, "Parse error", `error unmarshaling request: ${errorMessage(e)}`);
      return send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: err.code, message: err.rpcMessage, data: err.data } });
    }
    const batch = Array.isArray(body);
    const requests = batch ? (body as unknown[]) : [body];
    if (requests.length === 0) return send(res, 400, { jsonrpc: "2.0", id: -1, error: { code: -32600, message: "Invalid Request", data: "empty batch" } });
    const responses = [];
    for (const r of requests) responses.push(await callJson(methods, r));
    return send(res, 200, batch ? responses : responses[0]);
  }
  if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, { jsonrpc: "2.0", id: -1, error: { code: -32600, message: "Invalid Request", data: `method ${req.method} not allowed` } }, { Allow: "GET, POST, OPTIONS" });
  const name = url.pathname.slice(1);
  if (name === "") return send(res, 200, indexPage(methods));
  const method = methods.get(name);
  if (!method) return send(res, 404, { jsonrpc: "2.0", id: -1, error: { code: -32601, message: "Method not found", data: "" } });
  let args: Args;
  try {
    args = uriArgs(method, url.searchParams);
  } catch (e) {
    return send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: -32602, message: "Invalid params", data: errorMessage(e) } });
  }
  try {
    return send(res, 200, { jsonrpc: "2.0", id: -1, result: await method.run(args) });
  } catch (e) {
    const err = e instanceof RpcError ? e : internal(errorMessage(e));
    return send(res, 500, { jsonrpc: "2.0", id: -1, error: { code: err.code, message: err.rpcMessage, data: err.data } });
  }
}

async function callJson(methods: Map<string, Method>, r: unknown): Promise<unknown> {
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
    return { jsonrpc: "2.0", id: rid, error: { code: -32602, message: "Invalid params", data: `error converting json params to arguments: ${errorMessage(e)}` } };
  }
  try {
    return { jsonrpc: "2.0", id: rid, result: await method.run(args) };
  } catch (e) {
    const err = e instanceof RpcError ? e : internal(errorMessage(e));
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
  else throw new Error("params must be an object or an array");
  for (const [name, kind] of method.args) {
    const v = byName[name];
    if (v === undefined || v === null) continue;
    switch (kind) {
      case "int":
        if (typeof v === "number" && Number.isSafeInteger(v)) out[name] = BigInt(v);
        else if (typeof v === "string" && /^-?[0-9]+$/.test(v)) out[name] = BigInt(v);
        else if (v === "") continue;
        else throw new Error(`${name}: invalid integer ${JSON.stringify(v)}`);
        break;
      case "bool":
        if (typeof v !== "boolean") throw new Error(`${name}: expected a boolean`);
        out[name] = v;
        break;
      case "string":
        if (typeof v !== "string") throw new Error(`${name}: expected a string`);
        out[name] = v;
        break;
      case "hexbytes":
        if (typeof v !== "string") throw new Error(`${name}: expected a hex string`);
        out[name] = fromHexStrict(v.startsWith("0x") || v.startsWith("0X") ? v.slice(2) : v);
        break;
      case "bytes":
        if (typeof v !== "string") throw new Error(`${name}: expected a base64 string`);
        out[name] = decodeFlexibleBytes(v);
        break;
    }
  }
  return out;
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
        if (!/^-?[0-9]+$/.test(t)) throw new Error(`${name}: invalid integer ${raw}`);
        out[name] = BigInt(t);
        break;
      }
      case "bool":
        if (raw !== "true" && raw !== "false") throw new Error(`${name}: expected true or false`);
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

