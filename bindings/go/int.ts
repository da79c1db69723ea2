/** Go's integer limits and strconv's integer parsing, with its exact error texts. */
import { goQuote } from "./quote.js";

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

export const isInt64 = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;
export const isUint64 = (v: bigint): boolean => v >= 0n && v <= UINT64_MAX;

/** A Go parse result: the value, or Go's error text. */
export type GoParseResult = { ok: true; value: bigint } | { ok: false; error: string };

/** strconv.ParseInt(s, base, 64) for base 10 or 0 (0: Go literal prefixes 0b/0o/0x/0 and `_` separators). */
export function goParseInt(s: string, base: 0 | 10): GoParseResult {
  return parseSigned("strconv.ParseInt", s, base, 64);
}

/** strconv.Atoi(s): ParseInt(s, 10, 0) on a 64-bit platform, reported under Atoi's name. */
export function goAtoi(s: string): GoParseResult {
  return parseSigned("strconv.Atoi", s, 10, 64);
}

/** strconv.ParseUint(s, 10, 64). */
export function goParseUint(s: string): GoParseResult {
  const r = parseUnsigned(s, 10);
  if (r.ok) return r;
  return { ok: false, error: `strconv.ParseUint: parsing ${goQuote(s)}: ${r.error}` };
}

function parseSigned(fn: string, s0: string, base: 0 | 10, bits: 64): GoParseResult {
  const fail = (why: string): GoParseResult => ({ ok: false, error: `${fn}: parsing ${goQuote(s0)}: ${why}` });
  if (s0 === "") return fail("invalid syntax");
  let s = s0;
  let neg = false;
  if (s[0] === "+" || s[0] === "-") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  const u = parseUnsigned(s, base);
  if (!u.ok) return fail(u.error);
  const cutoff = 1n << BigInt(bits - 1);
  if (!neg && u.value >= cutoff) return fail("value out of range");
  if (neg && u.value > cutoff) return fail("value out of range");
  return { ok: true, value: neg ? -u.value : u.value };
}

/** strconv.ParseUint's core: the value or the bare reason ("invalid syntax" / "value out of range"). */
function parseUnsigned(s0: string, base: 0 | 10): GoParseResult {
  if (s0 === "") return { ok: false, error: "invalid syntax" };
  let s = s0;
  let b = 10;
  const base0 = base === 0;
  if (base0 && s[0] === "0") {
    const p = s.length >= 3 ? s[1].toLowerCase() : "";
    if (p === "b") [b, s] = [2, s.slice(2)];
    else if (p === "o") [b, s] = [8, s.slice(2)];
    else if (p === "x") [b, s] = [16, s.slice(2)];
    else [b, s] = [8, s.slice(1)];
  }
  const bigBase = BigInt(b);
  const cutoff = UINT64_MAX / bigBase + 1n;
  let n = 0n;
  let underscores = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let d: number;
    if (c === 0x5f && base0) {
      underscores = true;
      continue;
    } else if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) d = (c | 0x20) - 0x61 + 10;
    else return { ok: false, error: "invalid syntax" };
    if (d >= b) return { ok: false, error: "invalid syntax" };
    if (n >= cutoff) return { ok: false, error: "value out of range" };
    n *= bigBase;
    const n1 = n + BigInt(d);
    if (n1 > UINT64_MAX) return { ok: false, error: "value out of range" };
    n = n1;
  }
  if (underscores && !underscoreOK(s0)) return { ok: false, error: "invalid syntax" };
  return { ok: true, value: n };
}

/** strconv.underscoreOK: `_` only between digits (a base prefix counts as a digit). */
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s.length >= 1 && (s[0] === "-" || s[0] === "+")) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "box".includes(s[1].toLowerCase())) {
    i = 2;
    saw = "0";
    hex = s[1].toLowerCase() === "x";
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= "0" && c <= "9") || (hex && c.toLowerCase() >= "a" && c.toLowerCase() <= "f")) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}
