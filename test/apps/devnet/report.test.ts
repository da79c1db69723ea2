/**
 * The rehearsal report's block time (docs/spec/rehearse.md §4) is Go's RFC3339Nano in UTC, the one formatter
 * of bindings/go/time.ts. Its own copy used to truncate towards zero, so a block just before the epoch
 * (-1 ns) read `1970-01-01T00:00:00.999999999Z`, a second late.
 */
import { describe, expect, it } from "vitest";
import { formatRehearsal, rehearsalToJson } from "../../../bindings/apps/devnet/index.js";
import type { RehearsalReport } from "../../../bindings/apps/devnet/rehearse/rehearse.js";

function report(timeNs: bigint): RehearsalReport {
  return {
    ok: true,
    exitCode: 0,
    error: "",
    plan: { name: "v2", height: 10n, info: "", source: "given" },
    app: { name: "example", version: "2.0.0" },
    snapshot: { height: 9n, source: "copy", engine: "local", durationMs: 1, pinned: false },
    block: { height: 10n, timeNs },
    appHashBefore: new Uint8Array(32),
    appHashAfter: new Uint8Array(32),
    modules: [],
    modulesMigrated: 0,
    stores: [],
    warnings: [],
    log: [],
    timings: { snapshotMs: 1, prepareMs: 0, startMs: 0, blockMs: 0, commitMs: 0, diffMs: 0 },
    durationMs: 2,
  };
}

describe("the rehearsal report's block time", () => {
  it.each([
    [-1n, "1969-12-31T23:59:59.999999999Z"],
    [-1_000_000_000n, "1969-12-31T23:59:59Z"],
    [-1_500_000_000n, "1969-12-31T23:59:58.5Z"],
    [0n, "1970-01-01T00:00:00Z"],
    [1_700_000_000_123_456_789n, "2023-11-14T22:13:20.123456789Z"],
  ])("%s ns is %s in the JSON and the text", (ns, text) => {
    expect(rehearsalToJson(report(ns)).block.time).toBe(text);
    expect(formatRehearsal(report(ns))).toContain(`block:         10 at ${text} (no txs)`);
  });
});
