/** Property tests: the two cores agree on everything, and decode(encode(x)) = x. */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Core } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import { UpgradeKeeper } from "../../bindings/module/keeper.js";
import { MemoryStore } from "../../bindings/store/memory.js";
import { CacheStore } from "../../bindings/store/cache.js";
import { SwitchStore } from "./cached.js";

let wasm: Core;
let js: Core;
beforeAll(async () => {
  wasm = await loadCore("wasm");
  js = await loadCore("js");
});

const INT64_MAX = 2n ** 63n - 1n;
/** Any Unicode, lone surrogates excluded (they are not UTF-8), NUL included. */
const name = fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 });
const anyName = fc.oneof(
  name,
  fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).filter((s) => s.isWellFormed()),
);
const height = fc.bigInt({ min: 1n, max: INT64_MAX });
const plan = fc.record({ name: anyName, height, info: fc.string({ unit: "grapheme", maxLength: 200 }) });

/** Runs fn on a core and returns its result or its error message, so that failures compare too. */
function outcome<T>(fn: () => T): { ok: T } | { error: string } {
  try {
    return { ok: fn() };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

describe("wasm and js cores agree", () => {
  it("on plan bytes, and decode(encode(plan)) = plan", () => {
    fc.assert(
      fc.property(plan, (p) => {
        const a = wasm.encodePlan(p);
        expect(a).toEqual(js.encodePlan(p));
        expect(wasm.decodePlan(a)).toEqual(p);
        expect(js.decodePlan(a)).toEqual(p);
      }),
      { numRuns: 500 },
    );
  });

  it("on arbitrary bytes given to decodePlan (same plan or same error)", () => {
    const zeroTime = Uint8Array.of(0x12, 0x0b, 0x08, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x01);
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      // valid plans with random corruption: truncation, a flipped byte, trailing garbage
      fc.tuple(plan, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 8 })).map(([p, i, b, tail]) => {
        const enc = js.encodePlan(p);
        const copy = Uint8Array.from([...enc, ...tail]);
        copy[i % copy.length] = b;
        return copy.subarray(0, (i * 7) % (copy.length + 1));
      }),
      fc.uint8Array({ maxLength: 24 }).map((tail) => Uint8Array.from([...zeroTime, ...tail])),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        expect(outcome(() => wasm.decodePlan(b))).toEqual(outcome(() => js.decodePlan(b)));
      }),
      { numRuns: 3000 },
    );
  });

  it("on keys and big-endian values", () => {
    fc.assert(
      fc.property(anyName, fc.bigInt({ min: -(2n ** 63n), max: INT64_MAX }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n, i, u) => {
        expect(wasm.doneKey(n)).toEqual(js.doneKey(n));
        expect(wasm.moduleVersionKey(n)).toEqual(js.moduleVersionKey(n));
        expect(wasm.encodeInt64BE(i)).toEqual(js.encodeInt64BE(i));
        expect(wasm.decodeInt64BE(js.encodeInt64BE(i))).toBe(i);
        expect(wasm.encodeUint64BE(u)).toEqual(js.encodeUint64BE(u));
        expect(wasm.decodeUint64BE(js.encodeUint64BE(u))).toBe(u);
        expect(wasm.upgradedClientKey(i)).toEqual(js.upgradedClientKey(i));
      }),
      { numRuns: 500 },
    );
  });

  it("on raw store entries of any bytes", () => {
    const entry = fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 12 }), fc.uint8Array({ maxLength: 10 }));
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.constantFrom(1, 2), (entries, prefix) => {
        const keys = entries.map(([k]) => Uint8Array.from([prefix, ...k.subarray(1)]));
        if (entries.length > 0 && entries[0][0][0] % 5 === 0) keys[0][0] = 7; // sometimes a key outside the range
        const values = entries.map(([, v]) => v);
        const decode = (c: Core) => outcome(() => (prefix === 1 ? c.decodeDoneEntries(keys, values) : c.decodeModuleVersionEntries(keys, values)));
        expect(decode(wasm)).toEqual(decode(js));
      }),
      { numRuns: 1000 },
    );
  });

  it("on keeper histories: the same store bytes and the same answers", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("schedule" as const), plan, at: height }),
      fc.record({ kind: fc.constant("clear" as const) }),
      fc.record({ kind: fc.constant("handler" as const), name: anyName }),
      fc.record({ kind: fc.constant("versions" as const), vm: fc.dictionary(name, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { maxKeys: 5 }) }),
      fc.record({ kind: fc.constant("preBlock" as const), h: fc.bigInt({ min: 1n, max: 30n }) }),
      fc.record({ kind: fc.constant("apply" as const), name: anyName, h: fc.bigInt({ min: 1n, max: 30n }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), fc.array(fc.bigInt({ min: 1n, max: 30n }), { maxLength: 3 }), async (ops, skip) => {
        const run = async (core: Core) => {
          const store = new MemoryStore();
          const k = new UpgradeKeeper(core, { store, skipUpgradeHeights: skip });
          const log: unknown[] = [];
          for (const o of ops) {
            const step = async () => {
              switch (o.kind) {
                case "schedule":
                  return k.scheduleUpgrade({ ...o.plan, height: o.plan.height % 40n || 1n }, o.at % 30n || 1n);
                case "clear":
                  return k.clearUpgradePlan();
                case "handler":
                  return k.setUpgradeHandler(o.name, (_c, _p, vm) => vm.set("upgraded", (vm.get("upgraded") ?? 0n) + 1n));
                case "versions":
                  return k.setModuleVersionMap(o.vm);
                case "preBlock":
                  return k.preBlock(o.h);
                case "apply":
                  return k.hasHandler(o.name) ? k.applyUpgrade({ name: o.name, height: o.h }, o.h) : undefined;
              }
            };
            try {
              log.push({ ok: await step() });
            } catch (e) {
              log.push({ error: (e as Error).message });
            }
            log.push(k.getUpgradePlan(), k.getLastCompletedUpgrade(), k.getProtocolVersion(), k.downgradeVerified);
          }
          return { log, store: [...store.iterate(new Uint8Array(0), undefined)], versions: k.getModuleVersions() };
        };
        expect(await run(wasm)).toEqual(await run(js));
      }),
      { numRuns: 200 },
    );
  });

  // The cached answers of docs/spec/core.md §12 (the wasm bindings' quiet bound and done keys, both cores'
  // plan cache) under everything that changes the store behind the keeper's back: a second keeper, raw
  // writes, a CacheStore branch written or discarded, another store swapped in, the downgrade flag reset.
  it("on keeper histories with outside writes, discarded branches and swapped stores", async () => {
    const small = fc.constantFrom("a", "b", "c", "名前");
    const h12 = fc.bigInt({ min: 1n, max: 12n }); // few heights, so plans, bounds and blocks meet often
    const op = fc.oneof(
      fc.record({ kind: fc.constant("preBlock" as const), h: h12 }),
      fc.record({ kind: fc.constant("preBlock" as const), h: h12 }),
      fc.record({ kind: fc.constant("schedule" as const), name: small, height: h12 }),
      fc.record({ kind: fc.constant("clear" as const) }),
      fc.record({ kind: fc.constant("handler" as const), name: small }),
      fc.record({ kind: fc.constant("done" as const), name: small }),
      fc.record({ kind: fc.constant("query" as const) }),
      fc.record({ kind: fc.constant("unverify" as const) }),
      // a second keeper on the store underneath (not the branch): schedules, clears or applies
      fc.record({ kind: fc.constant("outside" as const), name: fc.option(small), height: h12 }),
      fc.record({ kind: fc.constant("outsideApply" as const), name: small, height: h12 }),
      // raw bytes at the plan key of whatever the keeper sees: a plan, a corrupt value, or a delete
      fc.record({ kind: fc.constant("raw" as const), name: fc.option(small), height: h12, corrupt: fc.boolean() }),
      fc.record({ kind: fc.constant("branch" as const) }),
      fc.record({ kind: fc.constant("write" as const) }),
      fc.record({ kind: fc.constant("discard" as const) }),
      fc.record({ kind: fc.constant("swap" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 40, size: "max" }), fc.array(h12, { maxLength: 2 }), async (ops, skip) => {
        const run = async (core: Core) => {
          const bases = [new MemoryStore(), new MemoryStore()];
          let base = 0;
          let branch: CacheStore | undefined;
          const sw = new SwitchStore(bases[0]);
          const k = new UpgradeKeeper(core, { store: sw, skipUpgradeHeights: skip });
          const handler = (_c: unknown, _p: unknown, vm: Map<string, bigint>) => vm.set("upgraded", (vm.get("upgraded") ?? 0n) + 1n);
          const log: unknown[] = [];
          for (const o of ops) {
            const step = async () => {
              switch (o.kind) {
                case "preBlock":
                  return k.preBlock(o.h);
                case "schedule":
                  return k.scheduleUpgrade({ name: o.name, height: o.height }, 1n);
                case "clear":
                  return k.clearUpgradePlan();
                case "handler":
                  return k.setUpgradeHandler(o.name, handler);
                case "done":
                  return k.getDoneHeight(o.name);
                case "query":
                  return k.getUpgradePlan();
                case "unverify":
                  k.downgradeVerified = false;
                  return;
                case "outside": {
                  const other = new UpgradeKeeper(core, { store: bases[base] });
                  return o.name === null ? other.clearUpgradePlan() : other.scheduleUpgrade({ name: o.name, height: o.height }, 1n);
                }
                case "outsideApply": {
                  const other = new UpgradeKeeper(core, { store: bases[base] });
                  other.setUpgradeHandler(o.name, handler);
                  return other.applyUpgrade({ name: o.name, height: o.height }, o.height);
                }
                case "raw":
                  if (o.name === null) return sw.delete(PLAN);
                  return sw.set(PLAN, o.corrupt ? Uint8Array.of(0x0a, 0x09, 0x61) : js.encodePlan({ name: o.name, height: o.height, info: "" }));
                case "branch":
                  branch ??= new CacheStore(bases[base]);
                  sw.target = branch;
                  return;
                case "write":
                case "discard":
                  if (o.kind === "write") branch?.write();
                  else branch?.discard();
                  branch = undefined;
                  sw.target = bases[base];
                  return;
                case "swap":
                  branch = undefined;
                  base = 1 - base;
                  sw.target = bases[base];
                  return;
              }
            };
            try {
              log.push({ ok: await step() });
            } catch (e) {
              log.push({ error: (e as Error).message });
            }
          }
          log.push(
            outcome(() => k.getUpgradePlan()),
            k.downgradeVerified,
          );
          return { log, stores: bases.map((b) => [...b.iterate(new Uint8Array(0), undefined)]) };
        };
        expect(await run(wasm)).toEqual(await run(js));
      }),
      { numRuns: 1000 },
    );
  });
});

const PLAN = Uint8Array.of(0);
