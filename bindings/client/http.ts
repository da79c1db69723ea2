/**
 * The CLI's and the sidecar's transport to a node's RPC: node:http (node:https when the URL says so) instead of fetch. A query
 * is one or two small POSTs, and fetch's first call loads and compiles undici and its llhttp WebAssembly
 * parser: ~40 ms and ~8 MB of a ~100 ms command (bench/README.md, "peers"). node:http is part of Node's
 * startup snapshot and parses with the native llhttp.
 *
 * It behaves as the fetch transport does, so every message stays the same: errors carry the socket's error
 * as `cause` (`TypeError("fetch failed", { cause })`), the deadline covers the whole exchange and fails as a
 * `TimeoutError`, redirects are followed as fetch follows them (at most 20; 301/302/303 turn the POST into a
 * GET), and the body is decoded as UTF-8 with a leading BOM dropped (Response.text()). An https request trusts
 * what Node trusts, NODE_EXTRA_CA_CERTS included when the bin kept it out of Node's start-up (ca-certs.ts).
 */
import type * as Http from "node:http";
import type { IncomingMessage } from "node:http";
import type { RpcResponse, RpcTransport } from "./rpc.js";
import { extraCaCerts } from "../base/ca-certs.js";

const MAX_REDIRECTS = 20;

/**
 * Ports fetch refuses to connect to ("bad port", https://fetch.spec.whatwg.org/#port-blocking): refused here
 * too, so `--node http://host:9` says what it said before.
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

class TimeoutError extends Error {
  override name = "TimeoutError";
}

/** A failure before the response, shaped as fetch's. */
const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause });

/**
 * The messages undici gave. A response that is not HTTP/1.1: Node's parser says `Parse Error: Expected HTTP/, RTSP/ or ICE/`, undici's
 * `Response does not match the HTTP/1.1 protocol (Expected HTTP/)`; the latter is what the CLI has printed.
 */
function asUndici(e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  if (e instanceof Error && typeof code === "string" && code.startsWith("HPE_")) {
    const reason = ((e as { reason?: unknown }).reason as string | undefined) ?? e.message.replace(/^Parse Error: /, "");
    e.message = `Response does not match the HTTP/1.1 protocol (${reason.replace(/, RTSP\/ or ICE\/$/, "")})`;
  }
  // A TLS failure (https:// to a plain HTTP port): undici reports OpenSSL's words without node:net's `write EPROTO`.
  if (e instanceof Error && code === "EPROTO") e.message = e.message.replace(/^write EPROTO /, "");
  return e;
}

export const httpTransport: RpcTransport = async (url, body, timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  let method = "POST";
  let payload: string | undefined = body;
  let target = url;
  for (let hop = 0; ; hop++) {
    const res = await send(target, method, payload, deadline);
    const location = res.message.headers.location;
    if (![301, 302, 303, 307, 308].includes(res.status) || location === undefined) return res;
    res.message.resume(); // drain the redirect's body
    if (hop === MAX_REDIRECTS) throw fetchFailed(new Error("redirect count exceeded"));
    let next: URL;
    try {
      next = new URL(location, target);
    } catch (e) {
      throw fetchFailed(e);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") throw fetchFailed(new Error("URL scheme must be a HTTP(S) scheme"));
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      payload = undefined;
    }
    target = next;
  }
};

interface Sent extends RpcResponse {
  message: IncomingMessage;
}

async function send(url: URL, method: string, body: string | undefined, deadline: number): Promise<Sent> {
  if (BAD_PORTS.has(Number(url.port || (url.protocol === "https:" ? 443 : 80)))) throw fetchFailed(new Error("bad port"));
  // node:https (and TLS) only when the URL asks for it, node:http when a request is made (the sidecar holds this
  // module for months before its first one); getBuiltinModule keeps it synchronous in every bundle.
  const tls = url.protocol === "https:";
  const { request } = process.getBuiltinModule(tls ? "node:https" : "node:http") as typeof Http;
  const headers: Record<string, string | number> = { accept: "*/*" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = Buffer.byteLength(body);
  }
  return new Promise<Sent>((resolve, reject) => {
    const req = request(url, { method, headers, ...(tls ? extraCaCerts() : {}) });
    let message: IncomingMessage | undefined;
    let failBody: ((e: unknown) => void) | undefined;
    let timedOut: TimeoutError | undefined;
    const timer = setTimeout(() => req.destroy((timedOut = new TimeoutError("The operation was aborted due to timeout"))), Math.max(0, deadline - Date.now()));
    req.on("error", (e) => {
      clearTimeout(timer);
      if (message === undefined) reject(timedOut ?? fetchFailed(asUndici(e)));
      else failBody?.(timedOut ?? new TypeError("terminated", { cause: e }));
    });
    req.on("response", (res) => {
      message = res;
      const chunks: Buffer[] = [];
      let done = false;
      let outcome: { text?: string; error?: unknown } | undefined;
      const waiters: ((o: { text?: string; error?: unknown }) => void)[] = [];
      const settle = (o: { text?: string; error?: unknown }) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        outcome = o;
        waiters.splice(0).forEach((w) => w(o));
      };
      failBody = (error) => settle({ error });
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => settle({ text: new TextDecoder().decode(Buffer.concat(chunks)) }));
      res.on("aborted", () =>
        settle({ error: timedOut ?? new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) }) }),
      );
      res.on("error", (e) => settle({ error: timedOut ?? new TypeError("terminated", { cause: e }) }));
      const status = res.statusCode ?? 0;
      resolve({
        message: res,
        status,
        ok: status >= 200 && status <= 299,
        text: () =>
          new Promise<string>((ok, fail) => {
            const take = (o: { text?: string; error?: unknown }) => (o.error !== undefined ? fail(o.error) : ok(o.text!));
            if (outcome) take(outcome);
            else waiters.push(take);
          }),
      });
    });
    req.end(body);
  });
}
