/** Go's text rules the gateway reproduces: strconv.ParseInt (base 10 and 0), strconv.Quote, encoding/json strings. */
import { describe, expect, it } from "vitest";
import { goJsonString, goParseInt64, goQuote } from "../../bindings/go/text.js";

const ok = (value: bigint) => ({ ok: true, value });
const syntax = (s: string) => ({ ok: false, error: `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax` });
const range = (s: string) => ({ ok: false, error: `strconv.ParseInt: parsing ${goQuote(s)}: value out of range` });

describe("Go text", () => {
  it("strconv.ParseInt(s, 0, 64): prefixes, underscores, sign, range", () => {
    const cases: [string, object][] = [
      ["0", ok(0n)],
      ["42", ok(42n)],
      ["+42", ok(42n)],
      ["-42", ok(-42n)],
      ["0x1F", ok(31n)],
      ["0X1f", ok(31n)],
      ["010", ok(8n)],
      ["0o17", ok(15n)],
      ["0b101", ok(5n)],
      ["1_000", ok(1000n)],
      ["0x_1F", ok(31n)],
      ["9223372036854775807", ok(9223372036854775807n)],
      ["-9223372036854775808", ok(-9223372036854775808n)],
      ["-0x8000000000000000", ok(-9223372036854775808n)],
      ["9223372036854775808", range("9223372036854775808")],
      ["-9223372036854775809", range("-9223372036854775809")],
      ["99999999999999999999999", range("99999999999999999999999")],
      ["", syntax("")],
      ["+", syntax("+")],
      ["-", syntax("-")],
      ["08", syntax("08")],
      ["0x", syntax("0x")],
      ["_1", syntax("_1")],
      ["1__0", syntax("1__0")],
      ["1_", syntax("1_")],
      ["abc", syntax("abc")],
      [" 1", syntax(" 1")],
      ["1.5", syntax("1.5")],
    ];
    for (const [s, want] of cases) expect(goParseInt64(s, 0), s).toEqual(want);
  });

  it("strconv.ParseInt(s, 10, 64) refuses prefixes and underscores", () => {
    expect(goParseInt64("0x10", 10)).toEqual(syntax("0x10"));
    expect(goParseInt64("1_0", 10)).toEqual(syntax("1_0"));
    expect(goParseInt64("010", 10)).toEqual(ok(10n));
    expect(goParseInt64("-5", 10)).toEqual(ok(-5n));
  });

  it("strconv.Quote", () => {
    expect(goQuote("abc")).toBe('"abc"');
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote("\n\t\x00\x7f")).toBe('"\\n\\t\\x00\\x7f"');
    expect(goQuote("名前 é")).toBe('"名前 é"');
    expect(goQuote("\u00a0\u2028")).toBe('"\\u00a0\\u2028"');
  });

  it("encoding/json strings: HTML-safe, U+2028/2029, short escapes, lone surrogates", () => {
    expect(goJsonString("plain")).toBe('"plain"');
    expect(goJsonString("<a href='x'>&</a>")).toBe('"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e"');
    expect(goJsonString("\b\f\n\r\t\x01\x1f\x7f")).toBe('"\\b\\f\\n\\r\\t\\u0001\\u001f\x7f"');
    expect(goJsonString("\u2028\u2029")).toBe('"\\u2028\\u2029"');
    expect(goJsonString('"\\')).toBe('"\\"\\\\"');
    expect(goJsonString("😀名")).toBe('"😀名"');
    expect(goJsonString("a\ud800b")).toBe('"a\\ufffdb"');
  });
});
