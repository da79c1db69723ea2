/** go/option.ts: option values in Go's syntax, one floor per kind (docs/spec/interfaces.md §7). */
import { describe, expect, it } from "vitest";
import {
  HEIGHT,
  OptionError,
  QUERY_HEIGHT,
  UINT64,
  parseDurationOption,
  parseEnvDuration,
  parseEnvInteger,
  parseIntegerOption,
} from "../../bindings/go/option.js";

const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(OptionError);
    return { problem: (e as OptionError).problem, message: (e as OptionError).message };
  }
  throw new Error("accepted");
};

describe("durations: one floor per kind", () => {
  it("margin ≥ 0, timeout > 0, period ≥ 1ms", () => {
    expect(parseDurationOption("0s", "margin")).toBe(0n);
    expect(refused(() => parseDurationOption("-1ns", "margin"))).toEqual({ problem: "range", message: "must not be negative" });
    expect(parseDurationOption("1ns", "timeout")).toBe(1n);
    expect(refused(() => parseDurationOption("0", "timeout"))).toEqual({ problem: "range", message: "must be greater than 0" });
    expect(refused(() => parseDurationOption("-3m", "timeout"))).toEqual({ problem: "range", message: "must be greater than 0" });
    expect(parseDurationOption("1ms", "period")).toBe(1_000_000n);
    expect(parseDurationOption("1h30m", "period")).toBe(5_400_000_000_000n);
    expect(refused(() => parseDurationOption("1us", "period"))).toEqual({ problem: "range", message: "must be at least 1ms" });
    expect(refused(() => parseDurationOption("999.999µs", "period"))).toEqual({ problem: "range", message: "must be at least 1ms" });
  });

  it("syntax errors are Go's own", () => {
    expect(refused(() => parseDurationOption("600", "timeout"))).toEqual({ problem: "syntax", message: 'time: missing unit in duration "600"' });
    expect(refused(() => parseDurationOption("bad", "period"))).toEqual({ problem: "syntax", message: 'time: invalid duration "bad"' });
  });

  it("a variable in cosmovisor's words", () => {
    expect(parseEnvDuration("DAEMON_POLL_INTERVAL", "300ms")).toBe(300_000_000n);
    expect(() => parseEnvDuration("DAEMON_POLL_INTERVAL", "bad")).toThrow(
      `invalid: DAEMON_POLL_INTERVAL: could not parse 'bad' into a duration: time: invalid duration "bad"`,
    );
    expect(() => parseEnvDuration("DAEMON_RESTART_DELAY", "0s")).toThrow("invalid: DAEMON_RESTART_DELAY: must be greater than 0");
  });
});

describe("integers: decimal digits in a range", () => {
  it("reads digits only, within the range", () => {
    expect(parseIntegerOption("0", QUERY_HEIGHT)).toBe(0n);
    expect(parseIntegerOption("9223372036854775807", HEIGHT)).toBe(9223372036854775807n);
    expect(parseIntegerOption("007", HEIGHT)).toBe(7n);
    expect(parseIntegerOption("18446744073709551615", UINT64)).toBe(18446744073709551615n);
  });

  it("names a machine-limited range by its least value, a small one by both ends", () => {
    for (const bad of ["", "-1", "+1", " 1", "1.5", "1e3", "0x10", "1_000"])
      expect(
        refused(() => parseIntegerOption(bad, QUERY_HEIGHT)),
        bad,
      ).toEqual({ problem: "syntax", message: "must be a non-negative integer" });
    expect(refused(() => parseIntegerOption("0", HEIGHT))).toEqual({ problem: "range", message: "must be a positive integer" });
    expect(refused(() => parseIntegerOption("9223372036854775808", HEIGHT))).toEqual({ problem: "range", message: "must be a positive integer" });
    expect(refused(() => parseIntegerOption("18446744073709551616", UINT64))).toEqual({ problem: "range", message: "must be a non-negative integer" });
    expect(refused(() => parseIntegerOption("101", { min: 1n, max: 100n }))).toEqual({ problem: "range", message: "must be an integer from 1 to 100" });
  });

  it('a variable: `invalid: <NAME>: <reason>, got "<value>"`', () => {
    const safe = { min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) };
    expect(parseEnvInteger("DAEMON_DOWNLOAD_MAX_BYTES", "1024", safe)).toBe(1024n);
    expect(() => parseEnvInteger("DAEMON_DOWNLOAD_MAX_BYTES", "0", safe)).toThrow('invalid: DAEMON_DOWNLOAD_MAX_BYTES: must be a positive integer, got "0"');
    expect(() => parseEnvInteger("DAEMON_DOWNLOAD_MAX_BYTES", "9007199254740992", safe)).toThrow(
      'invalid: DAEMON_DOWNLOAD_MAX_BYTES: must be a positive integer, got "9007199254740992"',
    );
  });
});
