/**
 * HTTP for the page: every failure becomes a {@link Problem} whose message says, in words, what is wrong —
 * nothing answers, the server refuses cross-origin reads (CORS), no answer in time, an HTTP error, an answer
 * that is not JSON or not the expected shape.
 */

export type ProblemKind =
  | "bad-url" // the address typed in the page is not an http(s) URL
  | "unreachable" // nothing answers
  | "cors" // something answers, but the browser may not let the page read it
  | "timeout"
  | "http" // an HTTP error status
  | "garbage" // not JSON, or not the expected shape
  | "rpc" // a JSON-RPC error object
  | "abci" // abci_query answered with a non-zero code
  | "corrupt" // a store value the core refuses to decode
  | "internal";

export class Problem extends Error {
  /**
   * @param detail what is wrong, in words
   * @param subject the request it happened to ("REST current_plan"), shown before the detail
   */
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly subject = "",
  ) {
    super(subject ? `${subject}: ${detail}` : detail);
    this.name = "Problem";
  }
}

/** Any thrown value as a Problem (a bug in the page becomes an "internal" one rather than an uncaught error). */
export function toProblem(e: unknown, context = ""): Problem {
  if (e instanceof Problem) return e;
  const text = e instanceof Error ? e.message : String(e);
  return new Problem("internal", context ? `${context}: ${text}` : text);
}

const TIMEOUT_MS = 5000;

/** An http(s) base URL without a trailing slash, or a bad-url Problem naming the field. */
export function parseBaseUrl(text: string, field: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new Problem("bad-url", `The ${field} address is empty: enter a URL such as http://127.0.0.1:${field === "REST" ? 1317 : 26657}.`);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
  } catch {
    throw new Problem(
      "bad-url",
      `The ${field} address “${trimmed}” is not a URL: expected something like http://127.0.0.1:${field === "REST" ? 1317 : 26657}.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Problem("bad-url", `The ${field} address “${trimmed}” uses ${url.protocol.slice(0, -1)}: only http:// and https:// work in a browser.`);
  }
  if (url.search || url.hash) throw new Problem("bad-url", `The ${field} address “${trimmed}” has a query or fragment: give just the node's base URL.`);
  return url.href.replace(/\/+$/, "");
}

export interface JsonAnswer {
  json: unknown;
  status: number;
  headers: Headers;
}

/**
 * GET `url` and parse JSON. `what` names the request in messages ("REST current_plan"). Non-2xx answers
 * still return their JSON when `acceptErrorStatus` is set (the caller words google.rpc.Status / JSON-RPC
 * errors); otherwise they become an "http" Problem.
 */
export async function getJson(url: string, what: string, init: { headers?: Record<string, string>; acceptErrorStatus?: boolean } = {}): Promise<JsonAnswer> {
  const origin = originOf(url);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  let res: Response;
  let text: string;
  try {
    try {
      res = await fetch(url, { cache: "no-store", headers: init.headers, signal: controller.signal });
    } catch (e) {
      if (controller.signal.aborted) throw timeout(what, origin);
      throw await classifyNetworkFailure(url, what, origin, e);
    }
    try {
      text = await res.text();
    } catch {
      if (controller.signal.aborted) throw timeout(what, origin);
      throw new Problem("unreachable", `${origin} closed the connection in the middle of its answer.`, what);
    }
  } finally {
    clearTimeout(timer);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const type = res.headers.get("content-type") ?? "no content type";
    throw new Problem(
      "garbage",
      `${origin} answered HTTP ${res.status} with something that is not JSON (${type}): “${snippet(text)}”. Is this the node's ${what.startsWith("REST") ? "REST" : "RPC"} address?`,
      what,
    );
  }
  if (!res.ok && !init.acceptErrorStatus) throw httpProblem(what, origin, res.status, json);
  return { json, status: res.status, headers: res.headers };
}

/** A failed fetch is either "nothing answers" or "answers without CORS": a no-cors request tells them apart. */
async function classifyNetworkFailure(url: string, what: string, origin: string, e: unknown): Promise<Problem> {
  const detail = e instanceof Error ? e.message : String(e);
  try {
    await fetch(url, { mode: "no-cors", cache: "no-store", signal: AbortSignal.timeout(3000) });
  } catch {
    return new Problem(
      "unreachable",
      `cannot reach ${origin} — nothing answers there (the node is stopped or halted, or the address is wrong). The browser said: ${detail}.`,
      what,
    );
  }
  return new Problem(
    "cors",
    `${origin} answers, but refuses to let this page read the answer (no CORS header Access-Control-Allow-Origin for ${location.origin}). Is this the node's address? A devnet sends CORS headers; open the page from the node's /ui to avoid cross-origin reads.`,
    what,
  );
}

function timeout(what: string, origin: string): Problem {
  return new Problem("timeout", `${origin} did not answer within ${TIMEOUT_MS / 1000} s.`, what);
}

/** HTTP error statuses in words, with the google.rpc.Status or JSON-RPC message when there is one. */
export function httpProblem(what: string, origin: string, status: number, json: unknown): Problem {
  const o = json as { message?: unknown; error?: { message?: unknown; data?: unknown } } | null;
  let message = "";
  if (o && typeof o === "object") {
    if (typeof o.message === "string") message = o.message;
    else if (o.error && typeof o.error === "object") message = [o.error.message, o.error.data].filter((x) => typeof x === "string" && x).join(": ");
  }
  const hint = status === 501 || status === 404 ? " Is this the right address for it (REST vs RPC)?" : "";
  return new Problem("http", `${origin} answered HTTP ${status}${message ? `: ${message}` : ""}.${hint}`, what);
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function snippet(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}

/** What field() returns for the JSON type it expects ("any": present, of any type). */
interface FieldTypes {
  string: string;
  object: Record<string, unknown>;
  array: unknown[];
  number: number;
  any: unknown;
}

/** Reads a dotted path of a JSON value; a missing or mistyped field is a "garbage" Problem naming it. */
export function field(json: unknown, path: string, what: string, type?: "string"): string;
export function field<T extends keyof FieldTypes>(json: unknown, path: string, what: string, type: T): FieldTypes[T];
export function field(json: unknown, path: string, what: string, type: keyof FieldTypes = "string"): unknown {
  let v: unknown = json;
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object") {
      v = undefined;
      break;
    }
    v = (v as Record<string, unknown>)[key];
  }
  const ok =
    type === "any"
      ? v !== undefined
      : type === "array"
        ? Array.isArray(v)
        : type === "object"
          ? v !== null && typeof v === "object" && !Array.isArray(v)
          : typeof v === type;
  if (!ok)
    throw new Problem(
      "garbage",
      `${what} answered JSON without the expected ${type === "any" ? "" : `${type} `}field “${path}” — is this a Cosmos node of the expected kind?`,
    );
  return v;
}

/** A decimal int64 string (as Cosmos JSON writes them) as a bigint, or a garbage Problem. */
export function int(text: unknown, what: string, name: string): bigint {
  if (typeof text !== "string" || !/^-?[0-9]{1,19}$/.test(text)) {
    throw new Problem("garbage", `${what} answered “${String(text)}” for ${name}, which is not an integer.`);
  }
  return BigInt(text);
}
