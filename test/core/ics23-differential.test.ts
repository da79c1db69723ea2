/**
 * The ICS23 differential suite, bounded (docs/spec/core.md §14.6): seeded adversarial encodings of genuine proofs
 * against both cores, @confio/ics23 and, when it is built, the Go oracle (cosmos/ics23 v0.11). The long run is
 * `npm run fuzz:ics23 -- --cases N [--seed S]` (scripts/ics23-differential.mjs); what must hold per case is in
 * ics23-differential.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Core } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import { missingPeerReason, peerBinaries } from "../../scripts/peers/paths.mjs";
import { GoOracle, MUTATION_KINDS, runDifferential, type RunReport } from "./ics23-differential.js";

const SEED = 20261128;
const CASES = 2000;
// About 3 s of CPU each on a quiet machine; the bound is for a loaded one (the suite runs files in parallel).
const TIMEOUT = 180_000;

const goMissing = missingPeerReason("light-oracle");

function expectNoDisagreement(report: RunReport): void {
  const shown = report.disagreements.map((d) => `case ${d.index} (${d.kind}, ${d.pool}): ${d.problems.join("; ")}\n  ${d.reproducer}`);
  expect(shown, `seed ${report.seed}`).toEqual([]);
}

describe("ICS23 differential: adversarial encodings of genuine proofs", () => {
  let wasm: Core;
  let js: Core;
  let go: GoOracle | undefined;
  beforeAll(async () => {
    wasm = await loadCore("wasm");
    js = await loadCore("js");
  });
  afterAll(async () => {
    await go?.close();
  });

  it(
    `both cores and @confio/ics23: ${CASES} cases, every mutation kind`,
    async () => {
      const report = await runDifferential({ seed: SEED, cases: CASES, wasm, js });
      expectNoDisagreement(report);
      // every kind ran, and the suite is not vacuous: honest and canonically wrapped proofs are accepted, and
      // every stacked or forged encoding the references read one way or another is refused
      for (const kind of MUTATION_KINDS) expect(report.counts[kind]?.cases ?? 0, kind).toBeGreaterThan(0);
      const c = report.counts;
      expect(c.honest.accepted).toBeGreaterThan(c.honest.cases * 0.9);
      expect(c["wrap-batch"].accepted + c["wrap-compressed"].accepted).toBeGreaterThan((c["wrap-batch"].cases + c["wrap-compressed"].cases) * 0.9);
      for (const kind of ["forged-range", "stack-oneof", "unknown-field", "reorder-fields", "overlong-varint"]) expect(c[kind].accepted, kind).toBe(0);
      expect(c["forged-range"].nonCanonical).toBe(c["forged-range"].cases);
    },
    TIMEOUT,
  );

  it.skipIf(goMissing !== undefined)(
    `and the Go oracle (cosmos/ics23 v0.11): ${CASES} cases${goMissing ? ` — skipped: ${goMissing}` : ""}`,
    async () => {
      go = new GoOracle(peerBinaries().lightOracle!);
      const report = await runDifferential({ seed: SEED + 1, cases: CASES, wasm, js, go });
      expectNoDisagreement(report);
      // the references do read some stacked encodings differently (the forged range among them): the core refused those
      const disagreeing = Object.values(report.counts).reduce((n, k) => n + k.refsDisagree, 0);
      expect(disagreeing).toBeGreaterThan(0);
      expect(report.counts["forged-range"].refsDisagree).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});
