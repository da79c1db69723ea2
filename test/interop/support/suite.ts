/**
 * The shape every side-by-side suite shares: for each state, one test per record pair — identical, or
 * different only as a listed difference says (./differences.ts) — and at the end, one test that every
 * listed difference of the area still occurs (a fixed difference must leave the list and the docs).
 * Pairs covered by a `bug` entry also get an `it.fails` asserting identity, which turns red once fixed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comparable, pairUp, type AnyRecord, type Pair } from "./compare.js";
import { DIFFERENCES, inArea, judge, onLine, type Area, type Verdict } from "./differences.js";
import type { LineKey } from "./lines.js";
import type { StateName } from "./wire.js";

export const STATES: StateName[] = ["none", "scheduled", "applied"];

const short = (r: AnyRecord) => JSON.stringify(comparable(r)).slice(0, 1500);

export interface ComparisonOptions<R extends AnyRecord> {
  area: Area;
  /** The SDK line compared (entries of differences.ts name the lines they occur on). */
  line?: LineKey;
  /** describe() title of one state. */
  title: (state: StateName) => string;
  /** simd's records of a state (fixture or live). */
  simd: (state: StateName) => R[];
  /** Our records of the same state (may start a devnet; called once per state in beforeAll). */
  ours: (state: StateName) => Promise<R[]>;
  /** Pairs ids (default: pairUp by record id). */
  pair?: (simd: R[], ours: R[]) => Pair<R>[];
  /** Ids of simd's records, for the test titles (default: record ids). */
  ids?: (state: StateName) => string[];
  /** Called after the state's tests (stop the devnet). */
  after?: (state: StateName) => Promise<void> | void;
  timeoutMs?: number;
}

export function describeComparison<R extends AnyRecord>(o: ComparisonOptions<R>): void {
  const verdicts: Verdict[] = [];
  for (const state of STATES) {
    describe(o.title(state), () => {
      let pairs = new Map<string, Pair<R>>();
      beforeAll(async () => {
        const simd = o.simd(state);
        const ours = await o.ours(state);
        pairs = new Map((o.pair ?? pairUp)(simd, ours).map((p) => [p.id, p]));
      }, o.timeoutMs ?? 120_000);
      afterAll(async () => {
        await o.after?.(state);
      });
      const ids = o.ids ? o.ids(state) : o.simd(state).map((r) => r.id);
      for (const id of ids) {
        it(id, () => {
          const p = pairs.get(id);
          if (!p) throw new Error(`no pair ${id}`);
          const v = judge(o.area, p, o.line);
          verdicts.push(v);
          const listed = v.covered.map((d) => `${d.key} (${d.kind})`).join(", ");
          expect(
            v.uncovered,
            `${id} differs in ${v.uncovered.join(", ")}, which no entry of ${o.area} lists${listed ? ` (listed: ${listed})` : ""}\nsimd: ${short(p.simd)}\nours: ${short(p.ours)}`,
          ).toEqual([]);
        });
        const bug = DIFFERENCES.find((d) => inArea(d, o.area) && onLine(d, o.line) && d.kind === "bug" && d.ids.includes(id));
        if (bug) {
          it.fails(`${id} is identical to simd — fails until ${bug.key} is fixed: ${bug.fix ?? ""}`.slice(0, 300), () => {
            const p = pairs.get(id)!;
            expect(comparable(p.ours)).toEqual(comparable(p.simd));
          });
        }
      }
    });
  }
  describe(`${o.area}${o.line ? ` on ${o.line}` : ""}: the listed differences`, () => {
    it("every difference listed for this area (and line) occurs in some pair (a fixed one must leave differences.ts and docs/spec/interop.md)", () => {
      const entries = DIFFERENCES.filter((d) => inArea(d, o.area) && onLine(d, o.line) && !d.unstable);
      const unused = entries.filter((d) => !verdicts.some((v) => v.covered.includes(d))).map((d) => d.key);
      expect(unused).toEqual([]);
    });
  });
}
