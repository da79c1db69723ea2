/**
 * A small CometBFT JSON-RPC client (docs/spec/interfaces.md §5): POST `{"jsonrpc":"2.0","id":n,"method":…,"params":…}`
 * to the node's root. Every way a node can fail — down, slow, not HTTP, not JSON-RPC, an RPC error — ends
 * as one clear ClientError naming the node.
 */
import { ClientError, NodeAddressError } from "./errors.js";
import { messageOf } from "../base/errors.js";

export const DEFAULT_NODE = "tcp://localhost:26657";

/** An error the node itself reported (`{"error":{code,message,data}}`). */
export class RpcError extends ClientError {
  override name = "RpcError";
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    readonly data: string,
  ) {
    super(`node error on ${method}: ${data !== "" ? data : rpcMessage} (${rpcMessage}, code ${code})`);
  }
}

/** `tcp://host:port` is read as `http://host:port` (docs/spec/interfaces.md §7). */
export function nodeUrl(node: string): URL {
  const text = node.startsWith("tcp://") ? "http://" + node.slice(6) : node;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NodeAddressError(node, "not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new NodeAddressError(node, "scheme must be tcp, http or https");
  }
  return url;
}

let nextId = 1;

/** The part of a fetch Response a CometRpc reads. */
export interface RpcResponse {
  readonly ok: boolean;
  readonly status: number;
  text(): Promise<string>;
}

/**
 * How a CometRpc sends one request: POST `body` (JSON) to `url` within `timeoutMs`. It fails as fetch does (a
 * TimeoutError, or an error whose `cause` carries the socket's `code`), so every transport gets the same messages.
 */
export type RpcTransport = (url: URL, body: string, timeoutMs: number) => Promise<RpcResponse>;

/** The default transport: fetch (Node and browsers). */
export const fetchTransport: RpcTransport = (url, body, timeoutMs) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(timeoutMs) });

export class CometRpc {
  readonly url: URL;
  /** The endpoint as the user wrote it, for messages. */
  readonly label: string;

  constructor(
    node: string,
    private readonly timeoutMs = 15_000,
    private readonly transport: RpcTransport = fetchTransport,
  ) {
    this.url = nodeUrl(node);
    this.label = this.url.origin + (this.url.pathname === "/" ? "" : this.url.pathname);
  }

  async call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = nextId++;
    let res: RpcResponse;
    try {
      res = await this.transport(this.url, JSON.stringify({ jsonrpc: "2.0", id, method, params }), this.timeoutMs);
    } catch (e) {
      throw new ClientError(`cannot reach node ${this.label}: ${networkReason(e, this.timeoutMs)}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new ClientError(`cannot read the answer of node ${this.label}: ${networkReason(e, this.timeoutMs)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      const status = res.ok ? "" : `HTTP ${res.status}, `;
      throw new ClientError(`invalid response from node ${this.label} to ${method}: ${status}not JSON (${preview(text)})`);
    }
    if (!isObject(body) || body.jsonrpc !== "2.0") {
      throw new ClientError(`invalid response from node ${this.label} to ${method}: not a JSON-RPC 2.0 answer (${preview(text)})`);
    }
    if (isObject(body.error)) {
      const err = body.error;
      throw new RpcError(
        method,
        typeof err.code === "number" ? err.code : 0,
        typeof err.message === "string" ? err.message : "",
        typeof err.data === "string" ? err.data : err.data === undefined ? "" : JSON.stringify(err.data),
      );
    }
    if (!isObject(body.result)) {
      throw new ClientError(`invalid response from node ${this.label} to ${method}: no result object (${preview(text)})`);
    }
    return body.result;
  }

  /** Reports a malformed field of a result. */
  garbage(method: string, what: string): ClientError {
    return new ClientError(`invalid response from node ${this.label} to ${method}: ${what}`);
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function preview(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (t === "") return "empty body";
  return JSON.stringify(t.length > 60 ? t.slice(0, 60) + "…" : t);
}

function networkReason(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) return `no answer within ${timeoutMs / 1000}s`;
  const cause = e instanceof Error ? (e as { cause?: unknown }).cause : undefined;
  if (cause instanceof Error) {
    const code = (cause as { code?: string }).code;
    if (code === "ECONNREFUSED") return "connection refused (is the node running?)";
    if (code === "ENOTFOUND") return `host not found (${(cause as { hostname?: string }).hostname ?? ""})`.replace(" ()", "");
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "connection closed by the node";
    return cause.message || messageOf(e);
  }
  return messageOf(e);
}

// ---- typed accessors for results ----

export function str(rpc: CometRpc, method: string, o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (typeof v !== "string") throw rpc.garbage(method, `field ${key} is not a string`);
  return v;
}

export function obj(rpc: CometRpc, method: string, o: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = o[key];
  if (!isObject(v)) throw rpc.garbage(method, `field ${key} is not an object`);
  return v;
}

/** An int64 carried as a decimal string (or, leniently, a safe JSON number). */
export function int(rpc: CometRpc, method: string, o: Record<string, unknown>, key: string): bigint {
  const v = o[key];
  if (typeof v === "string" && /^-?\d{1,19}$/.test(v)) return BigInt(v);
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  throw rpc.garbage(method, `field ${key} is not an integer`);
}
