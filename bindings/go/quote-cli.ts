/** Go's strconv.Quote (what `%q` prints): printable Unicode kept, the rest escaped. */
const SHORT: Record<number, string> = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v", 0x22: '\\"', 0x5c: "\\\\" };

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (SHORT[c] !== undefined) out += SHORT[c];
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c >= 0xd800 && c <= 0xdfff) out += "\\ufffd"; // a lone surrogate is invalid UTF-8 to Go
    else if ((c >= 0x80 && c <= 0x9f) || c === 0xad || c === 0x2028 || c === 0x2029 || c === 0xfeff || (c >= 0xfff9 && c <= 0xfffb)) {
      out += c > 0xffff ? "\\U" + c.toString(16).padStart(8, "0") : "\\u" + c.toString(16).padStart(4, "0");
    } else out += ch;
  }
  return out + '"';
}
