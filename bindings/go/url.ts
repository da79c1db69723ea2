/**
 * The parts of Go's net/url the project depends on: url.Parse's errors (the detail after
 * `parse "<url>": `, for plan-info validation, docs/spec/interfaces.md §9), the scheme, Query().Get(key), and
 * url.PathEscape (the sidecar's upgrade directory names).
 */
import { goQuote } from "./quote.js";

export interface GoUrl {
  /** lower-cased scheme, "" when none */
  scheme: string;
  rawQuery: string;
  /** true for `scheme://authority…` */
  hasAuthority: boolean;
}

export class GoUrlError extends Error {}

const isAlpha = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
const isDigit = (c: string) => c >= "0" && c <= "9";

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (isAlpha(c)) continue;
    if (isDigit(c) || c === "+" || c === "-" || c === ".") {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === ":") {
      if (i === 0) throw new GoUrlError("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

function checkEscapes(s: string, where: "path" | "host" | "userinfo"): void {
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== "%") continue;
    const hex = s.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
      let bad = s.slice(i, i + 3);
      if (bad.length > 3) bad = bad.slice(0, 3);
      throw new GoUrlError(`invalid URL escape ${goQuote(bad)}`);
    }
    if (where === "host" && hex.toLowerCase() !== "25") {
      // Go allows only %25 (zone ids) in hosts; other escapes in host names are rejected.
      throw new GoUrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
    }
  }
}

function parseHost(host: string): void {
  if (host.startsWith("[")) {
    const close = host.lastIndexOf("]");
    if (close < 0) throw new GoUrlError("missing ']' in host");
    const port = host.slice(close + 1);
    if (!validOptionalPort(port)) throw new GoUrlError(`invalid port ${goQuote(port)} after host`);
    return;
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0) {
    const port = host.slice(colon);
    if (!validOptionalPort(port)) throw new GoUrlError(`invalid port ${goQuote(port)} after host`);
  }
  checkEscapes(host, "host");
  for (const c of host) {
    if (c === " " || c === "<" || c === ">" || c === '"' || c === "{" || c === "}" || c === "|" || c === "\\" || c === "^" || c === "`") {
      throw new GoUrlError(`invalid character ${goQuote(c)} in host name`);
    }
  }
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  return /^[0-9]*$/.test(port.slice(1));
}

const USERINFO_OK = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

/** url.Parse(raw); throws GoUrlError with Go's detail. */
export function parseGoUrl(raw: string): GoUrl {
  // eslint-disable-next-line no-control-regex -- Go refuses exactly these control bytes
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new GoUrlError("net/url: invalid control character in URL");
  let rest = raw;
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    checkEscapes(rest.slice(hash + 1), "path");
    rest = rest.slice(0, hash);
  }
  if (rest === "*") return { scheme: "", rawQuery: "", hasAuthority: false };
  const [scheme, afterScheme] = getScheme(rest);
  rest = afterScheme;
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith("/")) {
    if (scheme !== "") return { scheme: scheme.toLowerCase(), rawQuery, hasAuthority: false }; // opaque, e.g. mailto:x
    const colon = rest.indexOf(":");
    const slash = rest.indexOf("/");
    if (colon >= 0 && (slash < 0 || colon < slash)) throw new GoUrlError("first path segment in URL cannot contain colon");
  }
  let hasAuthority = false;
  if ((scheme !== "" || !raw.startsWith("///")) && rest.startsWith("//")) {
    hasAuthority = true;
    let authority = rest.slice(2);
    const slash = authority.indexOf("/");
    let path = "";
    if (slash >= 0) {
      path = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf("@");
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!USERINFO_OK.test(userinfo)) throw new GoUrlError("net/url: invalid userinfo");
      checkEscapes(userinfo, "userinfo");
      authority = authority.slice(at + 1);
    }
    parseHost(authority);
    rest = path;
  }
  checkEscapes(rest, "path");
  return { scheme: scheme.toLowerCase(), rawQuery, hasAuthority };
}

function queryUnescape(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

/** Query().Get(key): the first value of `key`; pairs with `;` or bad escapes are skipped as Go does. */
export function queryGet(rawQuery: string, key: string): string {
  for (const pair of rawQuery.split("&")) {
    if (pair === "" || pair.includes(";")) continue;
    const eq = pair.indexOf("=");
    const k = queryUnescape(eq >= 0 ? pair.slice(0, eq) : pair);
    const v = queryUnescape(eq >= 0 ? pair.slice(eq + 1) : "");
    if (k === undefined || v === undefined) continue;
    if (k === key) return v;
  }
  return "";
}

const UNRESERVED = /^[A-Za-z0-9\-_.~$&+:=@]$/;

/** Go's url.PathEscape: every UTF-8 byte outside `A–Z a–z 0–9 - _ . ~ $ & + : = @` as `%XX`. */
export function pathEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    if (UNRESERVED.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of new TextEncoder().encode(ch)) out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}
