/**
 * Go's text conventions that leak into the wire: encoding/json string escaping (what the SDK's gateway
 * emits), strconv.Quote and strconv.ParseInt with its exact error strings.
 */

const HEX = "0123456789abcdef";

/** A JSON string literal exactly as Go's encoding/json writes it (HTML-safe escaping on, as jsonpb uses). */
export function goJsonString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) {
      switch (c) {
        case 0x22: esc = '\\"'; break;
        case 0x5c: esc = "\\\\"; break;
        case 0x08: esc = "\\b"; break;
        case 0x0c: esc = "\\f"; break;
        case 0x0a: esc = "\\n"; break;
        case 0x0d: esc = "\\r"; break;
        case 0x09: esc = "\\t"; break;
        default: esc = "\\u00" + HEX[c >> 4] + HEX[c & 0xf];
      }
    } else if (c === 0x2028 || c === 0x2029) {
      esc = c === 0x2028 ? "\\u2028" : "\\u2029";
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate is invalid UTF-8 in Go's view: it writes U+FFFD.
      const pair = c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (pair) {
        i++;
        continue;
      }
      esc = "\\ufffd";
    }
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** strconv.Quote for a well-formed string (unicode.IsPrint approximated by the L/M/N/P/S classes plus space). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const r = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (PRINTABLE.test(ch)) out += ch;
    else if (r === 0x07) out += "\\a";
    else if (r === 0x08) out += "\\b";
    else if (r === 0x0c) out += "\\f";
    else if (r === 0x0a) out += "\\n";
    else if (r === 0x0d) out += "\\r";
    else if (r === 0x09) out += "\\t";
    else if (r === 0x0b) out += "\\v";
    else if (r < 0x20 || r === 0x7f) out += "\\x" + HEX[r >> 4] + HEX[r & 0xf];
    else if (r < 0x10000) out += "\\u" + r.toString(16).padStart(4, "0");
    else out += "\\U" + r.toString(16).padStart(8, "0");
  }
  return out + '"';
}

const UINT64_MAX = (1n << 64n) - 1n;
const INT64_CUTOFF = 1n << 63n;

/** The result of Go's strconv.ParseInt(s, base, 64): the value, or Go's error text. */
export type GoParseResult = { ok: true; value: bigint } | { ok: false; error: string };

/** strconv.ParseInt(s, base, 64) for base 10 or 0 (0: Go literal prefixes 0b/0o/0x/0 and `_` separators). */
export function goParseInt64(s0: string, base: 0 | 10): GoParseResult {
  const syntax = (): GoParseResult => ({ ok: false, error: `strconv.ParseInt: parsing ${goQuote(s0)}: invalid syntax` });
  const range = (): GoParseResult => ({ ok: false, error: `strconv.ParseInt: parsing ${goQuote(s0)}: value out of range` });
  if (s0 === "") return syntax();
  let s = s0;
  let neg = false;
  if (s[0] === "+" || s[0] === "-") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  // ParseUint(s, base, 64)
  if (s === "") return syntax();
  const unsigned = s;
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
    else return syntax();
    if (d >= b) return syntax();
    if (n >= cutoff) return range();
    n *= bigBase;
    const n1 = n + BigInt(d);
    if (n1 > UINT64_MAX) return range();
    n = n1;
  }
  if (underscores && !underscoreOK(unsigned)) return syntax();
  if (!neg && n >= INT64_CUTOFF) return range();
  if (neg && n > INT64_CUTOFF) return range();
  return { ok: true, value: neg ? -n : n };
}

/** Go's strconv.underscoreOK: `_` only between digits (a base prefix counts as a digit). */
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
