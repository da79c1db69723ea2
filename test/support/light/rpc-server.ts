/**
 * A CometBFT-style JSON-RPC server on loopback for tests: POST `{jsonrpc, id, method, params}` (one call or a
 * batch) and GET `/<method>?k=v`, CORS open (the page reads it from another origin). The handler returns a
 * result or throws an RpcFault, which becomes `{"error": {code, message, data}}` as CometBFT sends it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { httpServer, type TestServer } from "../http.js";

export class RpcFault extends Error {
  constructor(
    readonly data: string,
    readonly code = -32603,
    readonly rpcMessage = "Internal error",
  ) {
    super(data);
  }
}

export type RpcHandler = (method: string, params: Record<string, unknown>) => unknown;

interface Call {
  id: unknown;
  method: string;
  params: Record<string, unknown>;
}

async function answer(handler: RpcHandler, call: Call): Promise<unknown> {
  try {
    return { jsonrpc: "2.0", id: call.id, result: await handler(call.method, call.params ?? {}) };
  } catch (e) {
    const f = e instanceof RpcFault ? e : new RpcFault(String((e as Error).message ?? e));
    return { jsonrpc: "2.0", id: call.id, error: { code: f.code, message: f.rpcMessage, data: f.data } };
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "access-control-allow-origin": "*", "access-control-allow-headers": "content-type" });
  res.end(JSON.stringify(body));
}

export function serveJsonRpc(handler: RpcHandler): Promise<TestServer> {
  return httpServer(async (req, res) => {
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type", "access-control-allow-methods": "GET, POST" });
      return res.end();
    }
    if (req.method === "GET") {
      const url = new URL(req.url ?? "/", "http://x");
      // CometBFT's URI form, read into the JSON-RPC params a POST would carry: quoted strings unquoted, 0x-hex as
      // bare hex, booleans as booleans, integers as their digits.
      const value = (v: string): unknown => (/^".*"$/.test(v) ? v.slice(1, -1) : /^0x/i.test(v) ? v.slice(2) : v === "true" ? true : v === "false" ? false : v);
      const params = Object.fromEntries([...url.searchParams].map(([k, v]) => [k, value(v)]));
      return send(res, 200, await answer(handler, { id: -1, method: url.pathname.slice(1), params }));
    }
    const body = JSON.parse(await readBody(req)) as Call | Call[];
    if (Array.isArray(body)) return send(res, 200, await Promise.all(body.map((c) => answer(handler, c))));
    return send(res, 200, await answer(handler, body));
  });
}
