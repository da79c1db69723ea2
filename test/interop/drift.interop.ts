/**
 * Drift (live only), for every SDK line: the peer's answers as the interop run just captured them from the
 * real binaries, beside the recorded fixture the `npm test` comparisons use. Everything must be the same except what changes
 * from run to run on the same software (block hashes and times inside `applied`'s block record, the
 * height simd happened to be at when the halt plan of the upgrade-info capture was scheduled). A drift means
 * the fixture no longer describes the peers: re-record it with `node scripts/capture-simd.mjs` and review.
 */
import { describe, expect, it } from "vitest";
import { driftText, type AnyRecord } from "./support/compare.js";
import { fixturePath, lineSources, loadFixture } from "./support/fixture.js";
import { STATES } from "./support/suite.js";

for (const live of lineSources()) {
  const recorded = loadFixture(fixturePath(live.line));
  describe.runIf(live.source === "live")(`drift: ${live.line.label} now beside its recorded fixture`, () => {
    it("the same peer versions and pins", () => {
      expect(live.capture.simd).toEqual(recorded.simd);
    });

    for (const state of STATES) {
      for (const kind of ["rest", "grpc", "cli"] as const) {
        it(`state "${state}", ${kind}: every answer as recorded`, () => {
          const now = live.capture.states[state][kind] as AnyRecord[];
          const then = recorded.states[state][kind] as AnyRecord[];
          expect(now.map((r) => r.id)).toEqual(then.map((r) => r.id));
          const drifted = now.map((r, i) => ({ id: r.id, now: driftText(r), then: driftText(then[i]) })).filter((d) => d.now !== d.then);
          expect(drifted).toEqual([]);
        });
      }
      it(`state "${state}": the same plan`, () => {
        expect(live.capture.states[state].plan).toEqual(recorded.states[state].plan);
      });
    }

    it("upgrade-info.json: the same bytes and modes (the halt plan's height aside)", () => {
      const norm = (r: (typeof recorded.upgrade_info)[number]) => ({
        writer: r.writer,
        name: r.plan.name,
        info: r.plan.info,
        mode: r.mode,
        bytes: r.bytes.replace(`"height":${r.plan.height}`, '"height":<H>'),
        height: r.plan.name === live.line.upgrade.name ? r.plan.height : "<H>",
      });
      expect(live.capture.upgrade_info.map(norm)).toEqual(recorded.upgrade_info.map(norm));
    });
  });
}
