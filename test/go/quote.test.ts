/** strconv.Quote and the time package's quote. */
import { describe, expect, it } from "vitest";
import { goQuote, goTimeQuote } from "../../bindings/go/quote.js";

describe("quoting", () => {
  it("strconv.Quote", () => {
    expect(goQuote("abc")).toBe('"abc"');
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote("\n\t\x00\x7f")).toBe('"\\n\\t\\x00\\x7f"');
    expect(goQuote("名前 é")).toBe('"名前 é"');
    expect(goQuote("\u00a0\u2028")).toBe('"\\u00a0\\u2028"');
  });

  it("quotes as Go's %q", () => {
    expect(goQuote('a"b\\c\n\u0007é')).toBe('"a\\"b\\\\c\\n\\aé"');
    expect(goQuote("\u0000\u007f")).toBe('"\\x00\\x7f"');
  });

  it("prints a lone surrogate as the U+FFFD Go would have received", () => {
    expect(goQuote("a\ud800b")).toBe('"a\ufffdb"');
  });

  it("time's quote escapes every non-ASCII byte", () => {
    expect(goTimeQuote('5µs"\\')).toBe('"5\\xc2\\xb5s\\"\\\\"');
    expect(goTimeQuote("\u00e9", true)).toBe('"\\xe9"');
  });
});
