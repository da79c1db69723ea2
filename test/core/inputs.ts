/**
 * Ill-formed arguments at the core's entry points (docs/spec/core.md §2.5), as properties over both
 * cores: a string argument with a lone surrogate, or that is no string at all, is refused by both cores
 * with the same TypeError, the same message, before any work (no store traffic, nothing registered); and
 * for any argument whatever, the two cores give the same result or the same error. Registered by the Node
 * suite (inputs.test.ts) and the browser suite (inputs.browser.test.ts).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Core, CoreSession } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import type { KVStore } from "../../bindings/core/kv.js";
import type { Plan } from "../../bindings/core/types.js";
import { MemoryStore } from "../../bindings/store/memory.js";

/** A string with at least one lone surrogate: unpaired high, unpaired low, or a pair in the wrong order. */
export const illFormedString: fc.Arbitrary<string> = fc
  .oneof(
    fc
      .tuple(
        fc.string({ unit: "grapheme", maxLength: 8 }),
        fc.oneof(
          fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
          fc.constant("\udc00\ud800"),
        ),
        fc.string({ unit: "grapheme", maxLength: 8 }),
      )
      .map(([a, s, b]) => a + s + b),
    fc.string({ unit: "binary", minLength: 1, maxLength: 16 }),
    fc.string({ unit: "grapheme", maxLength: 8 }).map((s) => `10stake${s}\ud800`),
  )
  .filter((s) => !s.isWellFormed());

/** Anything but a string. */
export const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.bigInt(),
  fc.boolean(),
  fc.constantFrom(undefined, null, Symbol("name")),
  fc.uint8Array({ maxLength: 4 }),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

/** A store that records every call, to show a refused call did no work. */
function recording(): { store: KVStore; calls: string[] } {
  const inner = new MemoryStore();
  const calls: string[] = [];
  const store: KVStore = {
    get: (k) => (calls.push("get"), inner.get(k)),
    has: (k) => (calls.push("has"), inner.has(k)),
    set: (k, v) => (calls.push("set"), inner.set(k, v)),
    delete: (k) => (calls.push("delete"), inner.delete(k)),
    iterate: (s, e, r) => (calls.push("iterate"), inner.iterate(s, e, r)),
  };
  return { store, calls };
}

/** The result of a call, or its error's class and message, so that failures compare too. */
function outcome(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch (e) {
    if (!(e instanceof Error)) return { thrown: e };
    return { error: e.constructor.name, name: e.name, message: e.message };
  }
}

const plan = (p: Partial<Plan>) => ({ name: "v2", height: 10n, info: "", ...p });

/** Every contract entry point that takes a string, by the argument's name in its TypeError. */
const CORE_STRING_ENTRIES: [string, string, (c: Core, s: string) => unknown][] = [
  ["doneKey", "name", (c, s) => c.doneKey(s)],
  ["moduleVersionKey", "module name", (c, s) => c.moduleVersionKey(s)],
  ["encodePlan (name)", "plan name", (c, s) => c.encodePlan(plan({ name: s }))],
  ["encodePlan (info)", "plan info", (c, s) => c.encodePlan(plan({ info: s }))],
  ["validateBasic (name)", "plan name", (c, s) => c.validateBasic(plan({ name: s }))],
  ["validateBasic (info)", "plan info", (c, s) => c.validateBasic(plan({ info: s }), false)],
  ["parseCoin", "coin expression", (c, s) => c.parseCoin(s)],
];

const SESSION_STRING_ENTRIES: [string, string, (s: CoreSession, x: string) => unknown][] = [
  ["schedule (name)", "plan name", (s, x) => s.schedule(plan({ name: x }), 1n)],
  ["schedule (info)", "plan info", (s, x) => s.schedule(plan({ info: x }), 1n)],
  ["doneHeight", "name", (s, x) => s.doneHeight(x)],
  ["moduleVersion", "module name", (s, x) => s.moduleVersion(x)],
  ["registerHandler", "name", (s, x) => s.registerHandler(x)],
  ["hasHandler", "name", (s, x) => s.hasHandler(x)],
  [
    "setModuleVersions (module name)",
    "version map module name",
    (s, x) =>
      s.setModuleVersions(
        new Map([
          ["bank", 1n],
          [x, 2n],
        ]),
      ),
  ],
  ["finishUpgrade (name)", "plan name", (s, x) => s.finishUpgrade(plan({ name: x }), 10n, new Map())],
  ["finishUpgrade (info)", "plan info", (s, x) => s.finishUpgrade(plan({ info: x }), 10n, new Map())],
  ["finishUpgrade (module name)", "version map module name", (s, x) => s.finishUpgrade(plan({}), 10n, new Map([[x, 1n]]))],
];

const expectedMessage = (what: string, value: unknown) =>
  typeof value === "string" ? `${what} is not valid UTF-8 (it holds a lone surrogate)` : `${what} must be a string, got ${typeof value}`;

export function defineInputCases(): void {
  let wasm: Core;
  let js: Core;
  beforeAll(async () => {
    wasm = await loadCore("wasm");
    js = await loadCore("js");
  });

  describe("a lone surrogate never reaches either core", () => {
    it('parseCoin("10stake\\ud800") is the same TypeError in both cores', () => {
      for (const core of [wasm, js]) {
        expect(() => core.parseCoin("10stake\ud800")).toThrow(new TypeError("coin expression is not valid UTF-8 (it holds a lone surrogate)"));
        expect(() => core.parseCoin("10stake\ud800")).toThrow(TypeError);
      }
    });

    it('registerHandler("\\ud800") registers nothing, so "\\ufffd" has no handler', () => {
      for (const core of [wasm, js]) {
        const s = core.session(new MemoryStore(), []);
        expect(() => s.registerHandler("\ud800")).toThrow(TypeError);
        expect(s.hasHandler("\ufffd")).toBe(false);
      }
    });

    for (const [entry, what, call] of CORE_STRING_ENTRIES) {
      it(`Core.${entry}: the same TypeError for a lone surrogate or a non-string`, () => {
        fc.assert(
          fc.property(fc.oneof(illFormedString, notAString), (x) => {
            const a = outcome(() => call(wasm, x as string));
            const b = outcome(() => call(js, x as string));
            expect(a).toEqual({ error: "TypeError", name: "TypeError", message: expectedMessage(what, x) });
            expect(b).toEqual(a);
          }),
          { numRuns: 150 },
        );
      });
    }

    for (const [entry, what, call] of SESSION_STRING_ENTRIES) {
      it(`CoreSession.${entry}: the same TypeError, and the store untouched`, () => {
        fc.assert(
          fc.property(fc.oneof(illFormedString, notAString), (x) => {
            const results = [wasm, js].map((core) => {
              const { store, calls } = recording();
              const session = core.session(store, []);
              const result = outcome(() => call(session, x as string));
              return { result, calls };
            });
            expect(results[0]).toEqual({
              result: { error: "TypeError", name: "TypeError", message: expectedMessage(what, x) },
              calls: [],
            });
            expect(results[1]).toEqual(results[0]);
          }),
          { numRuns: 100 },
        );
      });
    }

    it("well-formed strings still pass at every string entry point, with the same results", () => {
      fc.assert(
        fc.property(fc.string({ unit: "grapheme", maxLength: 12 }), (x) => {
          for (const [, , call] of CORE_STRING_ENTRIES) {
            expect(outcome(() => call(wasm, x))).toEqual(outcome(() => call(js, x)));
          }
          for (const [, , call] of SESSION_STRING_ENTRIES) {
            const run = (core: Core) => {
              const store = new MemoryStore();
              const result = outcome(() => call(core.session(store, []), x));
              return { result, entries: [...store.iterate(new Uint8Array(0), undefined)] };
            };
            expect(run(wasm)).toEqual(run(js));
          }
        }),
        { numRuns: 100 },
      );
    });
  });

  describe("both cores agree on any argument", () => {
    const bytes = fc.uint8Array({ maxLength: 12 });
    const int = fc.oneof(fc.bigInt({ min: -(2n ** 65n), max: 2n ** 65n }), fc.bigInt({ min: -3n, max: 3n }), fc.integer({ min: -5, max: 5 }));
    const junk: fc.Arbitrary<unknown> = fc.oneof(
      fc.anything({ maxDepth: 1 }),
      int,
      illFormedString,
      fc.string({ maxLength: 6 }),
      bytes,
      fc.array(bytes, { maxLength: 3 }),
      fc.array(int, { maxLength: 3 }),
      fc.constant(BigInt64Array.of(1n, -1n)),
      fc.constant(new Map<unknown, unknown>([["bank", 1n]])),
      fc
        .tuple(fc.oneof(fc.string({ maxLength: 4 }), illFormedString, fc.integer()), fc.oneof(int, fc.string({ maxLength: 3 })))
        .map(([k, v]) => new Map([[k, v]])),
      fc.record(
        {
          name: fc.oneof(fc.string({ maxLength: 4 }), notAString, illFormedString),
          height: fc.oneof(int, notAString),
          info: fc.oneof(fc.string({ maxLength: 4 }), notAString, illFormedString),
        },
        { requiredKeys: [] },
      ),
    );
    const args = (n: number) => fc.tuple(...Array.from({ length: n }, () => junk));

    /** Entry points of Core with their arity. */
    const CORE: [string, number, (c: Core, a: unknown[]) => unknown][] = [
      ["doneKey", 1, (c, [a]) => c.doneKey(a as string)],
      ["moduleVersionKey", 1, (c, [a]) => c.moduleVersionKey(a as string)],
      ["upgradedClientKey", 1, (c, [a]) => c.upgradedClientKey(a as bigint)],
      ["upgradedConsStateKey", 1, (c, [a]) => c.upgradedConsStateKey(a as bigint)],
      ["encodeInt64BE", 1, (c, [a]) => c.encodeInt64BE(a as bigint)],
      ["encodeUint64BE", 1, (c, [a]) => c.encodeUint64BE(a as bigint)],
      ["decodeInt64BE", 1, (c, [a]) => c.decodeInt64BE(a as Uint8Array)],
      ["decodeUint64BE", 1, (c, [a]) => c.decodeUint64BE(a as Uint8Array)],
      ["encodePlan", 1, (c, [a]) => c.encodePlan(a as Plan)],
      ["decodePlan", 1, (c, [a]) => c.decodePlan(a as Uint8Array)],
      ["validateBasic", 2, (c, [a, b]) => c.validateBasic(a as Plan, b as boolean)],
      ["shouldExecute", 2, (c, [a, b]) => c.shouldExecute(a as bigint, b as bigint)],
      ["decodeDoneEntries", 2, (c, [a, b]) => c.decodeDoneEntries(a as Uint8Array[], b as Uint8Array[])],
      ["decodeDoneEntriesAnyLayout", 2, (c, [a, b]) => c.decodeDoneEntriesAnyLayout(a as Uint8Array[], b as Uint8Array[])],
      ["decodeModuleVersionEntries", 2, (c, [a, b]) => c.decodeModuleVersionEntries(a as Uint8Array[], b as Uint8Array[])],
      ["encodeHeightsBE", 1, (c, [a]) => c.encodeHeightsBE(a as BigInt64Array)],
      ["parseCoin", 1, (c, [a]) => c.parseCoin(a as string)],
      ["session", 2, (c, [a, b]) => (c.session(a as KVStore, b as bigint[]), "a session")],
      ["session (skip heights)", 1, (c, [a]) => (c.session(new MemoryStore(), a as bigint[]), "a session")],
    ];

    /** Entry points of CoreSession (preBlock excepted: the per-block path checks nothing). */
    const SESSION: [string, number, (s: CoreSession, a: unknown[]) => unknown][] = [
      ["schedule", 2, (s, [a, b]) => s.schedule(a as Plan, b as bigint)],
      ["doneHeight", 1, (s, [a]) => s.doneHeight(a as string)],
      ["moduleVersion", 1, (s, [a]) => s.moduleVersion(a as string)],
      ["setModuleVersions", 1, (s, [a]) => s.setModuleVersions(a as Map<string, bigint>)],
      ["finishUpgrade", 3, (s, [a, b, c]) => s.finishUpgrade(a as Plan, b as bigint, c as Map<string, bigint>)],
      ["registerHandler", 1, (s, [a]) => (s.registerHandler(a as string), s.hasHandler(typeof a === "string" ? a : ""))],
      ["hasHandler", 1, (s, [a]) => s.hasHandler(a as string)],
      ["isSkipHeight", 1, (s, [a]) => s.isSkipHeight(a as bigint)],
      ["downgradeVerified", 1, (s, [a]) => ((s.downgradeVerified = a as boolean), s.downgradeVerified)],
    ];

    for (const [entry, arity, call] of CORE) {
      it(`Core.${entry}`, () => {
        fc.assert(
          fc.property(args(arity), (a) => {
            expect(outcome(() => call(wasm, a))).toEqual(outcome(() => call(js, a)));
          }),
          { numRuns: 200 },
        );
      });
    }

    for (const [entry, arity, call] of SESSION) {
      it(`CoreSession.${entry}, with the same store traffic`, () => {
        fc.assert(
          fc.property(args(arity), (a) => {
            const run = (core: Core) => {
              const { store, calls } = recording();
              const session = core.session(store, [5n]);
              const result = outcome(() => call(session, a));
              return { result, calls: calls.filter((c) => c !== "has") };
            };
            expect(run(wasm)).toEqual(run(js));
          }),
          { numRuns: 200 },
        );
      });
    }
  });
}
