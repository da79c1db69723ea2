/**
 * CometBFT's URI form of JSON-RPC over GET (`/<method>?height=5&path="/store/upgrade/key"&data=0x00&prove=true`):
 * the same answers as a POST, but a browser sends it as a simple cross-origin request, without the CORS
 * preflight a JSON POST needs — half the round trips for a page that asks a node dozens of things per refresh.
 * Integers, booleans and hex `data` go as they are, every other string JSON-quoted, as CometBFT reads them.
 */
import { fetchTransport, type RpcTransport } from "./rpc.js";

/** Parameters CometBFT reads as integers (heights, pages): written bare. */
const INTEGER = /^(height|page|per_page|minHeight|maxHeight|limit)$/;

function uriValue(key: string, v: unknown): string {
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  const s = String(v);
  if (INTEGER.test(key) && /^-?\d+$/.test(s)) return s;
  if (key === "data" || key === "hash") return `0x${s}`;
  return JSON.stringify(s);
}

export const uriTransport: RpcTransport = (url, body, timeoutMs) => {
  const { method, params } = JSON.parse(body) as { method: string; params?: Record<string, unknown> };
  // A broadcast is rare and its parameters can be large (evidence over 150 validators is ~96 KB of JSON, more than
  // a proxy takes in a URL): it goes as a POST.
  if (method.startsWith("broadcast_")) return fetchTransport(url, body, timeoutMs);
  const target = new URL(url.href.replace(/\/?$/, "/") + method);
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null) target.searchParams.set(k, uriValue(k, v));
  return fetch(target, { method: "GET", signal: AbortSignal.timeout(timeoutMs) });
};

/** fetchTransport for Node and anything that is not a browser page; uriTransport in a page (no preflight). */
export const browserTransport: RpcTransport = (url, body, timeoutMs) => (typeof document === "undefined" ? fetchTransport : uriTransport)(url, body, timeoutMs);
