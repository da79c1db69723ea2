/** strconv's integer parsing with Go's exact error texts, and the int64/uint64 limits. */
import { describe, expect, it } from "vitest";
import { INT64_MAX, INT64_MIN, UINT64_MAX, goAtoi, goParseInt, goParseUint, isInt64, isUint64 } from "../../bindings/go/int.js";
import { goQuote } from "../../bindings/go/quote.js";

const ok = (value: bigint) => ({ ok: true, value });
const syntax = (s: string) => ({ ok: false, error: `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax` });
const range = (s: string) => ({ ok: false, error: `strconv.ParseInt: parsing ${goQuote(s)}: value out of range` });

describe("strconv", () => {
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
    for (const [s, want] of cases) expect(goParseInt(s, 0), s).toEqual(want);
  });

  it("strconv.ParseInt(s, 10, 64) refuses prefixes and underscores", () => {
    expect(goParseInt("0x10", 10)).toEqual(syntax("0x10"));
    expect(goParseInt("1_0", 10)).toEqual(syntax("1_0"));
    expect(goParseInt("010", 10)).toEqual(ok(10n));
    expect(goParseInt("-5", 10)).toEqual(ok(-5n));
  });

  it("Atoi and ParseUint name themselves in their errors", () => {
    expect(goAtoi("12")).toEqual(ok(12n));
    expect(goAtoi("x")).toEqual({ ok: false, error: 'strconv.Atoi: parsing "x": invalid syntax' });
    expect(goAtoi("9223372036854775808")).toEqual({ ok: false, error: 'strconv.Atoi: parsing "9223372036854775808": value out of range' });
    expect(goParseUint("18446744073709551615")).toEqual(ok(UINT64_MAX));
    expect(goParseUint("-1")).toEqual({ ok: false, error: 'strconv.ParseUint: parsing "-1": invalid syntax' });
    expect(goParseUint("18446744073709551616")).toEqual({ ok: false, error: 'strconv.ParseUint: parsing "18446744073709551616": value out of range' });
  });

  it("limits", () => {
    expect([INT64_MIN, INT64_MAX, UINT64_MAX]).toEqual([-(2n ** 63n), 2n ** 63n - 1n, 2n ** 64n - 1n]);
    expect([isInt64(INT64_MAX), isInt64(INT64_MAX + 1n), isInt64(INT64_MIN), isInt64(INT64_MIN - 1n)]).toEqual([true, false, true, false]);
    expect([isUint64(0n), isUint64(-1n), isUint64(UINT64_MAX), isUint64(UINT64_MAX + 1n)]).toEqual([true, false, true, false]);
  });
});
