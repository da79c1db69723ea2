/**
 * REST request targets → query method and request (docs/spec/interfaces.md §3). The raw request target is matched
 * without normalisation (`.`/`..` are names); `{name}` is one raw segment, percent-decoded; query strings
 * are parsed as Go's url.ParseQuery and bound as grpc-gateway v1 does.
 */
import type { QueryRequests } from "./codec.js";
import { goParseInt } from "../go/int.js";
import { goQuote } from "../go/quote.js";
import type { QueryMethod, ServiceNames } from "./names.js";
import { GrpcCode } from "./status.js";

export type RouteMatch =
  | { kind: "unmatched" }
  /** A known route whose parameters could not be bound: 400 with a google.rpc.Status. */
  | { kind: "invalid"; method: QueryMethod; code: number; message: string }
  | { kind: "route"; method: QueryMethod; request: QueryRequests[QueryMethod] };

type RouteSpec = { method: QueryMethod; param?: "name" | "last_height" };

const ROUTES: Record<string, RouteSpec> = {
  current_plan: { method: "CurrentPlan" },
  applied_plan: { method: "AppliedPlan", param: "name" },
  upgraded_consensus_state: { method: "UpgradedConsensusState", param: "last_height" },
  module_versions: { method: "ModuleVersions" },
  authority: { method: "Authority" },
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Splits a raw request target into path and query (origin form or absolute form). */
export function splitTarget(target: string): { path: string; query: string } | undefined {
  let rest = target;
  if (!rest.startsWith("/")) {
    const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(rest);
    if (!m) return undefined;
    rest = rest.slice(m[0].length);
    if (rest === "" || rest.startsWith("?")) rest = "/" + rest;
  }
  const q = rest.indexOf("?");
  return q < 0 ? { path: rest, query: "" } : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

export function matchRoute(names: ServiceNames, target: string): RouteMatch {
  const split = splitTarget(target);
  if (split === undefined || !split.path.startsWith(names.restPrefix)) return { kind: "unmatched" };
  const rest = split.path.slice(names.restPrefix.length);
  const slash = rest.indexOf("/");
  const head = slash < 0 ? rest : rest.slice(0, slash);
  const spec = Object.hasOwn(ROUTES, head) ? ROUTES[head] : undefined;
  if (spec === undefined) return { kind: "unmatched" };
  const { method, param } = spec;

  if (param === undefined) {
    if (slash >= 0) return { kind: "unmatched" };
    if (method !== "ModuleVersions") return { kind: "route", method, request: {} };
    return bindModuleVersions(split.query);
  }

  if (slash < 0) return { kind: "unmatched" };
  const segments = rest.slice(slash + 1).split("/");
  // grpc-gateway binds an empty last segment to "" (`applied_plan/` answers height 0, as simd does).
  if (segments[0] === "" && !(param === "name" && segments.length === 1)) return { kind: "unmatched" };
  const invalid = (reason: string): RouteMatch => ({
    kind: "invalid",
    method,
    code: GrpcCode.INVALID_ARGUMENT,
    message: `invalid path parameter "${param}": ${reason}`,
  });
  if (segments.length > 1) return invalid(`it must be one path segment, found a further "/" after ${goQuote(segments[0])}`);
  const decoded = unescape(segments[0], false);
  if (!decoded.ok) return invalid(decoded.error);
  let value: string;
  try {
    value = strictUtf8.decode(decoded.bytes);
  } catch {
    return invalid("not valid UTF-8 after percent-decoding");
  }
  if (param === "name") return { kind: "route", method, request: { name: value } };
  const parsed = goParseInt(value, 0);
  if (!parsed.ok) {
    return {
      kind: "invalid",
      method,
      code: GrpcCode.INVALID_ARGUMENT,
      message: `type mismatch, parameter: ${param}, error: ${parsed.error}`,
    };
  }
  return { kind: "route", method, request: { lastHeight: parsed.value } };
}

/** `?module_name=` (or its JSON name `moduleName`); unknown parameters are ignored. */
function bindModuleVersions(query: string): RouteMatch {
  const method = "ModuleVersions" as const;
  const form = parseQuery(query);
  if (form.error !== undefined) return { kind: "invalid", method, code: GrpcCode.INVALID_ARGUMENT, message: form.error };
  let moduleName = "";
  for (const key of ["module_name", "moduleName"]) {
    const values = form.values.get(key);
    if (values === undefined || values.length === 0) continue;
    const texts: string[] = [];
    for (const v of values) {
      try {
        texts.push(strictUtf8.decode(v));
      } catch {
        return { kind: "invalid", method, code: GrpcCode.INVALID_ARGUMENT, message: `invalid query parameter "${key}": not valid UTF-8` };
      }
    }
    if (texts.length > 1) {
      return { kind: "invalid", method, code: GrpcCode.INVALID_ARGUMENT, message: `too many values for field "${key}": ${texts.join(", ")}` };
    }
    moduleName = texts[0];
  }
  return { kind: "route", method, request: { moduleName } };
}

/** Go's url.ParseQuery: `&`-separated, `;` refused, `+` is a space, first error reported. */
export function parseQuery(query: string): { values: Map<string, Uint8Array[]>; error?: string } {
  const values = new Map<string, Uint8Array[]>();
  let error: string | undefined;
  for (const part of query.split("&")) {
    if (part.includes(";")) {
      error ??= "invalid semicolon separator in query";
      continue;
    }
    if (part === "") continue;
    const eq = part.indexOf("=");
    const k = unescape(eq < 0 ? part : part.slice(0, eq), true);
    if (!k.ok) {
      error ??= k.error;
      continue;
    }
    const v = unescape(eq < 0 ? "" : part.slice(eq + 1), true);
    if (!v.ok) {
      error ??= v.error;
      continue;
    }
    const key = Buffer.from(k.bytes).toString("latin1");
    const list = values.get(key);
    if (list) list.push(v.bytes);
    else values.set(key, [v.bytes]);
  }
  return { values, error };
}

const isHex = (c: number) => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/**
 * Percent-decoding as Go's url.PathUnescape (query: QueryUnescape, `+` → space) over the raw bytes of the
 * target (Node hands them over as latin1 characters). Error text as Go's EscapeError.
 */
export function unescape(s: string, query: boolean): { ok: true; bytes: Uint8Array } | { ok: false; error: string } {
  const raw = Buffer.from(s, "latin1");
  const out = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === 0x25) {
      if (i + 2 >= raw.length || !isHex(raw[i + 1]) || !isHex(raw[i + 2])) {
        const bad = raw.subarray(i, Math.min(i + 3, raw.length)).toString("latin1");
        return { ok: false, error: `invalid URL escape ${goQuote(bad)}` };
      }
      out[n++] = parseInt(String.fromCharCode(raw[i + 1], raw[i + 2]), 16);
      i += 2;
    } else if (c === 0x2b && query) out[n++] = 0x20;
    else out[n++] = c;
  }
  return { ok: true, bytes: out.subarray(0, n) };
}
