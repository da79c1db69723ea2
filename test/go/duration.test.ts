/** time.ParseDuration and Duration.String(), with Go's error texts. */
import { describe, expect, it } from "vitest";
import { formatGoDuration, parseGoDuration } from "../../bindings/go/duration.js";

describe("Go durations", () => {
  it("formats as Duration.String()", () => {
    const cases: [bigint, string][] = [
      [0n, "0s"],
      [1n, "1ns"],
      [1500n, "1.5µs"],
      [200_000_000n, "200ms"],
      [1_000_000_000n, "1s"],
      [100_000_000_000n, "1m40s"],
      [3_600_000_000_000n, "1h0m0s"],
      [5_400_000_000_000n, "1h30m0s"],
      [202_800_075n, "202.800075ms"],
      [10_545_603_900n, "10.5456039s"],
      [-2_000_000_000n, "-2s"],
    ];
    for (const [ns, text] of cases) expect(formatGoDuration(ns)).toBe(text);
  });

  it("parses Go syntax with Go's errors", () => {
    expect(parseGoDuration("300ms")).toBe(300_000_000n);
    expect(parseGoDuration("1.5s")).toBe(1_500_000_000n);
    expect(parseGoDuration("1h30m")).toBe(5_400_000_000_000n);
    expect(parseGoDuration("2us")).toBe(2000n);
    expect(parseGoDuration("2µs")).toBe(2000n);
    expect(parseGoDuration("0")).toBe(0n);
    expect(() => parseGoDuration("600")).toThrow('time: missing unit in duration "600"');
    expect(() => parseGoDuration("5x")).toThrow('time: unknown unit "x" in duration "5x"');
    expect(() => parseGoDuration("")).toThrow('time: invalid duration ""');
    expect(() => parseGoDuration(".s")).toThrow('time: invalid duration ".s"');
  });

  it("parses and formats the devnet durations", () => {
    expect(parseGoDuration("10s")).toBe(10_000_000_000n);
    expect(parseGoDuration("200ms")).toBe(200_000_000n);
    expect(parseGoDuration("1m30s")).toBe(90_000_000_000n);
    expect(parseGoDuration("1.5s")).toBe(1_500_000_000n);
    expect(formatGoDuration(100_000_000_000n)).toBe("1m40s");
    expect(formatGoDuration(200_000_000n)).toBe("200ms");
    expect(formatGoDuration(1_500_000_000n)).toBe("1.5s");
    expect(formatGoDuration(0n)).toBe("0s");
    expect(() => parseGoDuration("10")).toThrow('time: missing unit in duration "10"');
    expect(() => parseGoDuration("abc")).toThrow();
  });

  it("rounds fractions as Go's float64 arithmetic does, and refuses overflow", () => {
    expect(parseGoDuration("1.0000000001h")).toBe(3_600_000_000_360n);
    expect(parseGoDuration("0.1s")).toBe(100_000_000n);
    expect(parseGoDuration("1.5µs")).toBe(1500n);
    expect(parseGoDuration("2562047h47m16.854775807s")).toBe(2n ** 63n - 1n);
    expect(parseGoDuration("-2562047h47m16.854775808s")).toBe(-(2n ** 63n));
    expect(() => parseGoDuration("2562047h47m16.854775808s")).toThrow('time: invalid duration "2562047h47m16.854775808s"');
    expect(() => parseGoDuration("9223372036854775808ns")).toThrow("time: invalid duration");
    expect(() => parseGoDuration("1µ")).toThrow('time: unknown unit "\\xc2\\xb5" in duration "1\\xc2\\xb5"');
  });
});
