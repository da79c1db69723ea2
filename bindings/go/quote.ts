/**
 * Go's two ways of quoting text in error messages: strconv.Quote (what `%q` prints) and the time
 * package's own cheaper quote (used by ParseDuration and time.Parse errors).
 */

const HEX = "0123456789abcdef";

/** unicode.IsPrint: letters, marks, numbers, punctuation and symbols, plus the ASCII space only. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const SHORT: Record<number, string> = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v" };

/**
 * strconv.Quote. A lone surrogate cannot reach Go as a string: it would have been encoded as U+FFFD,
 * which is printable, so that is what it prints as.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const r = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (r >= 0xd800 && r <= 0xdfff) out += "\ufffd";
    else if (PRINTABLE.test(ch)) out += ch;
    else if (SHORT[r] !== undefined) out += SHORT[r];
    else if (r < 0x20 || r === 0x7f) out += "\\x" + HEX[r >> 4] + HEX[r & 0xf];
    else if (r < 0x10000) out += "\\u" + r.toString(16).padStart(4, "0");
    else out += "\\U" + r.toString(16).padStart(8, "0");
  }
  return out + '"';
}

/**
 * The time package's quote: every byte of a non-ASCII character and every control byte as `\xNN`,
 * `"` and `\` backslashed. `s` is text; pass `bytes: true` for a byte string (one char per byte).
 */
export function goTimeQuote(s: string, bytes = false): string {
  const b = bytes ? s : utf8ByteString(s);
  let out = '"';
  for (let k = 0; k < b.length; k++) {
    const c = b.charCodeAt(k);
    if (c < 0x20 || c >= 0x80) out += "\\x" + HEX[c >> 4] + HEX[c & 0xf];
    else out += c === 0x22 || c === 0x5c ? "\\" + b[k] : b[k];
  }
  return out + '"';
}

/** One char per UTF-8 byte, so string indexes are Go's byte indexes (a lone surrogate becomes U+FFFD). */
export function utf8ByteString(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) out += String.fromCharCode(b);
  return out;
}
