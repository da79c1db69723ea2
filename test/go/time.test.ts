/** RFC 3339 times as Go's time package reads and writes them. */
import { describe, expect, it } from "vitest";
import { formatRfc3339Nano, formatRfc3339NanoNs, normalizeRfc3339, parseRfc3339Nanos } from "../../bindings/go/time.js";

describe("RFC 3339 times", () => {
  it("parses and prints nanoseconds, trailing zeros trimmed", () => {
    expect(normalizeRfc3339("2021-04-10T04:37:57.085493838Z")).toBe("2021-04-10T04:37:57.085493838Z");
    expect(normalizeRfc3339("2021-04-10T04:37:57.500000000Z")).toBe("2021-04-10T04:37:57.5Z");
    expect(normalizeRfc3339("2021-04-10T06:37:57+02:00")).toBe("2021-04-10T04:37:57Z");
    expect(normalizeRfc3339("2021-02-30T00:00:00Z")).toBeUndefined();
    expect(formatRfc3339Nano(-62135596800n, 0)).toBe("0001-01-01T00:00:00Z");
    expect(parseRfc3339Nanos("0001-01-01T00:00:00Z")).toBe(-62135596800n * 1_000_000_000n);
    expect(parseRfc3339Nanos("1970-01-01T00:00:01.000000001Z")).toBe(1_000_000_001n);
  });

  it("formats nanoseconds since the epoch, before 1970 too", () => {
    expect(formatRfc3339NanoNs(1_618_029_477_085_493_838n)).toBe("2021-04-10T04:37:57.085493838Z");
    expect(formatRfc3339NanoNs(-1n)).toBe("1969-12-31T23:59:59.999999999Z");
    expect(formatRfc3339NanoNs(0n)).toBe("1970-01-01T00:00:00Z");
  });
});
