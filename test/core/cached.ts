/**
 * Cached answers must never be stale (docs/spec/core.md §12). The WebAssembly bindings answer a block
 * below the core's quiet bound without calling the core, and look done records up with keys they kept;
 * both cores keep the last decoded plan by the identity of the stored value. Every case changes what the
 * keeper's store holds behind its back — a second keeper, a direct write, a CacheStore discard, a store
 * swapped under it, memory grown in between — and expects the answer the store's contents give. Registered
 * for both backends in Node and in Chromium (cases.ts); the DurableStore rollback is in
 * test/module/keeper-cache.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Backend, Core } from "../../bindings/core/contract.js";
import type { KVStore } from "../../bindings/core/kv.js";
import { loadCore } from "../../bindings/core/index.js";
import { UpgradeError } from "../../bindings/core/errors.js";
import { UpgradeKeeper } from "../../bindings/module/keeper.js";
import { CacheStore } from "../../bindings/store/cache.js";
import { MemoryStore } from "../../bindings/store/memory.js";

const INT64_MAX = 2n ** 63n - 1n;
const PLAN_KEY = Uint8Array.of(0);
const noop = (_ctx: unknown, _plan: unknown, vm: Map<string, bigint>) => vm;

/** A store that forwards to a target the host replaces (as the devnet's SwitchableStore does). */
export class SwitchStore implements KVStore {
  constructor(public target: KVStore) {}
  get(key: Uint8Array) {
    return this.target.get(key);
  }
  has(key: Uint8Array) {
    return this.target.has(key);
  }
  set(key: Uint8Array, value: Uint8Array) {
    this.target.set(key, value);
  }
  delete(key: Uint8Array) {
    this.target.delete(key);
  }
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse?: boolean) {
    return this.target.iterate(start, end, reverse);
  }
}

/** A store whose every get returns a fresh copy: no identity ever repeats. */
class CopyingStore extends MemoryStore {
  override get(key: Uint8Array) {
    return super.get(key)?.slice();
  }
}

/** What a block does, as a comparable value: the result, or the error's message and exit code. */
async function block(k: UpgradeKeeper, h: bigint | number): Promise<unknown> {
  try {
    return await k.preBlock(h);
  } catch (e) {
    return { error: (e as Error).message.replace(/^unable to write upgrade info to filesystem: .*/, "upgrade-needed"), exit: (e as UpgradeError).exitCode };
  }
}

const NOTHING = { consensusParamsChanged: false };
const APPLIED = { consensusParamsChanged: true };
/** upgrade-needed halts; without a home directory the upgrade-info.json write fails first (exit 24). */
const NEEDED = { error: "upgrade-needed", exit: 24 };
const tooEarly = (name: string) => ({
  error: `BINARY UPDATED BEFORE TRIGGER! UPGRADE "${name}" - in binary but not executed on chain. Downgrade your binary`,
  exit: 21,
});

export function defineCachedAnswerCases(backend: Backend): void {
  let core: Core;
  const keeper = async (store: KVStore, skip: number[] = []) => {
    core ??= await loadCore(backend);
    return new UpgradeKeeper(core, { store, skipUpgradeHeights: skip });
  };
  const planBytes = (name: string, height: bigint) => core.encodePlan({ name, height, info: "" });

  describe(`cached answers stay current (${backend})`, () => {
    it("a plan scheduled, replaced or cleared by a second keeper on the same store is seen at the next block", async () => {
      const store = new MemoryStore();
      const k = await keeper(store);
      const other = await keeper(store);
      expect(await block(k, 10)).toEqual(NOTHING); // no plan: quiet at every height
      other.scheduleUpgrade({ name: "near", height: 11 }, 10);
      expect(await block(k, 11)).toEqual(NEEDED);

      other.scheduleUpgrade({ name: "far", height: 1000 }, 11);
      expect(await block(k, 11)).toEqual(NOTHING); // quiet below 1000
      other.scheduleUpgrade({ name: "soon", height: 12 }, 11);
      expect(await block(k, 12)).toEqual(NEEDED);
      other.clearUpgradePlan();
      expect(await block(k, 12)).toEqual(NOTHING);
      other.scheduleUpgrade({ name: "far", height: 1000 }, 12);
      expect(await block(k, 13)).toEqual(NOTHING);
      k.setUpgradeHandler("soon", noop);
      other.scheduleUpgrade({ name: "soon", height: 14 }, 13);
      expect(await block(k, 14)).toEqual(APPLIED);
      expect(other.getDoneHeight("soon")).toBe(14n);
    });

    it("a plan written straight into the store, with new bytes, the same bytes in a new array, or corrupt bytes", async () => {
      const store = new MemoryStore();
      const k = await keeper(store);
      store.set(PLAN_KEY, planBytes("a", 100n));
      expect(await block(k, 50)).toEqual(NOTHING);
      store.set(PLAN_KEY, planBytes("a", 100n)); // same bytes, another array
      expect(await block(k, 51)).toEqual(NOTHING);
      store.set(PLAN_KEY, planBytes("b", 52n)); // same length, lower height
      expect(await block(k, 51)).toEqual(NOTHING);
      expect(await block(k, 52)).toEqual(NEEDED);
      store.set(PLAN_KEY, planBytes("c", 900n));
      expect(await block(k, 60)).toEqual(NOTHING);
      store.set(PLAN_KEY, Uint8Array.of(0x0a, 0x04, 0x74));
      expect(await block(k, 60)).toEqual({
        error: "cannot decode plan at key 0x00: proto: field 1: length exceeds the remaining bytes: corrupt store value",
        exit: 25,
      });
      store.delete(PLAN_KEY);
      expect(await block(k, 60)).toEqual(NOTHING);
      store.set(PLAN_KEY, planBytes("d", 60n));
      expect(await block(k, 60)).toEqual(NEEDED);
    });

    it("the bound's edges: the plan's own height, heights going back, int64's last height", async () => {
      const store = new MemoryStore();
      const k = await keeper(store);
      k.scheduleUpgrade({ name: "x", height: 100 }, 1);
      expect(await block(k, 99)).toEqual(NOTHING);
      expect(await block(k, 1)).toEqual(NOTHING);
      expect(await block(k, 100)).toEqual(NEEDED);
      expect(await block(k, 99)).toEqual(NOTHING);
      expect(await block(k, 101)).toEqual(NEEDED);
      k.scheduleUpgrade({ name: "last", height: INT64_MAX }, 1);
      expect(await block(k, INT64_MAX - 1n)).toEqual(NOTHING);
      expect(await block(k, INT64_MAX)).toEqual(NEEDED);
      k.clearUpgradePlan();
      expect(await block(k, INT64_MAX)).toEqual(NOTHING);
      expect(await block(k, 1)).toEqual(NOTHING);
    });

    it("a handler registered after a quiet block makes the next one halt as too early", async () => {
      const k = await keeper(new MemoryStore());
      k.scheduleUpgrade({ name: "v2", height: 100 }, 1);
      expect(await block(k, 50)).toEqual(NOTHING);
      k.setUpgradeHandler("v2", noop);
      expect(await block(k, 51)).toEqual(tooEarly("v2"));
      expect(await block(k, 100)).toEqual(APPLIED);
      expect(await block(k, 101)).toEqual(NOTHING);
    });

    it("downgradeVerified set back to false runs the downgrade check again", async () => {
      const store = new MemoryStore();
      const first = await keeper(store);
      first.setUpgradeHandler("old", noop);
      first.scheduleUpgrade({ name: "old", height: 3 }, 1);
      expect(await block(first, 3)).toEqual(APPLIED);

      const k = await keeper(store);
      k.downgradeVerified = true;
      expect(await block(k, 5)).toEqual(NOTHING);
      expect(await block(k, 6)).toEqual(NOTHING);
      k.downgradeVerified = false;
      expect(await block(k, 7)).toEqual({ error: "wrong app version 0, upgrade handler is missing for old upgrade plan", exit: 22 });
      expect(await block(k, 8)).toEqual(NOTHING);
    });

    it("skip heights: a plan due at a skip height is skipped, not answered from the bound", async () => {
      const k = await keeper(new MemoryStore(), [20]);
      k.scheduleUpgrade({ name: "s", height: 20 }, 1);
      expect(await block(k, 19)).toEqual(NOTHING);
      expect(await block(k, 20)).toEqual(NOTHING); // skipped: the plan is cleared
      expect(k.getUpgradePlan()).toBeUndefined();
      k.scheduleUpgrade({ name: "t", height: 30 }, 20);
      expect(await block(k, 29)).toEqual(NOTHING);
      expect(await block(k, 30)).toEqual(NEEDED);
    });

    it("a CacheStore discard brings the parent's plan back", async () => {
      const parent = new MemoryStore();
      (await keeper(parent)).scheduleUpgrade({ name: "p1", height: 10 }, 1);
      const cache = new CacheStore(parent);
      const k = await keeper(cache);
      k.scheduleUpgrade({ name: "p2", height: 30 }, 5); // buffered in the cache
      expect(await block(k, 20)).toEqual(NOTHING); // quiet below 30, for p2
      cache.discard();
      expect(k.getUpgradePlan()?.name).toBe("p1");
      expect(await block(k, 20)).toEqual(NEEDED); // p1 is due: the bound of p2 must not apply

      k.clearUpgradePlan(); // buffered delete
      expect(await block(k, 20)).toEqual(NOTHING); // no plan: quiet at every height
      cache.discard();
      expect(await block(k, 20)).toEqual(NEEDED);

      k.scheduleUpgrade({ name: "p3", height: 40 }, 20);
      cache.write();
      expect(await block(k, 39)).toEqual(NOTHING);
      expect(await block(k, 40)).toEqual(NEEDED);
    });

    it("a store swapped under the keeper", async () => {
      const a = new MemoryStore();
      const b = new MemoryStore();
      (await keeper(a)).scheduleUpgrade({ name: "a", height: 100 }, 1);
      (await keeper(b)).scheduleUpgrade({ name: "b", height: 10 }, 1);
      const sw = new SwitchStore(a);
      const k = await keeper(sw);
      expect(await block(k, 50)).toEqual(NOTHING);
      sw.target = b;
      expect(await block(k, 50)).toEqual(NEEDED);
      sw.target = a;
      expect(await block(k, 50)).toEqual(NOTHING);
      sw.target = new MemoryStore();
      expect(await block(k, 50)).toEqual(NOTHING);
      sw.target = b;
      expect(await block(k, 50)).toEqual(NEEDED);
      sw.target = a.clone(); // another store holding the very same value array: same bytes, same answer
      expect(await block(k, 99)).toEqual(NOTHING);
      expect(await block(k, 100)).toEqual(NEEDED);
      sw.target = new CacheStore(b); // a branch of b
      expect(await block(k, 10)).toEqual(NEEDED);
    });

    it("a store that returns a new array on every read", async () => {
      const store = new CopyingStore();
      const k = await keeper(store);
      k.scheduleUpgrade({ name: "x", height: 100 }, 1);
      expect(await block(k, 99)).toEqual(NOTHING);
      expect(await block(k, 98)).toEqual(NOTHING);
      store.set(PLAN_KEY, planBytes("y", 60n));
      expect(await block(k, 60)).toEqual(NEEDED);
      expect(k.getDoneHeight("x")).toBe(0n);
    });

    it("linear memory grown between blocks", async () => {
      const store = new MemoryStore();
      const k = await keeper(store);
      k.scheduleUpgrade({ name: "far", height: 1000 }, 1);
      expect(await block(k, 500)).toEqual(NOTHING);
      // 20,000 done records: scanning them grows the core's memory past its first pages.
      for (let i = 0; i < 20_000; i++) store.set(core.doneKey(`upgrade-${String(i).padStart(6, "0")}`), core.encodeInt64BE(BigInt(i + 1)));
      expect(k.getLastCompletedUpgrade()).toEqual({ name: "upgrade-019999", height: 20000n });
      expect(await block(k, 501)).toEqual(NOTHING);
      expect(await block(k, 1000)).toEqual(NEEDED);
      k.getLastCompletedUpgrade();
      store.set(PLAN_KEY, planBytes("near", 502n));
      expect(await block(k, 502)).toEqual(NEEDED);
    });

    it("done heights follow every write: a second keeper, deletes, corrupt values, a swapped store", async () => {
      const store = new MemoryStore();
      const sw = new SwitchStore(store);
      const k = await keeper(sw);
      const other = await keeper(store);
      const names = ["a", "名前", "😀-upgrade", "a\u0000b", "n".repeat(40) + "é"];
      for (const n of names) expect(k.getDoneHeight(n)).toBe(0n);
      for (const [i, n] of names.entries()) {
        other.setUpgradeHandler(n, noop);
        await other.applyUpgrade({ name: n, height: 7 + i }, 7 + i);
      }
      for (const [i, n] of names.entries()) expect(k.getDoneHeight(n)).toBe(BigInt(7 + i));
      store.delete(core.doneKey("a"));
      expect(k.getDoneHeight("a")).toBe(0n);
      store.set(core.doneKey("a"), new Uint8Array(9));
      expect(() => k.getDoneHeight("a")).toThrow("value at key 0x0161 is 9 bytes, expected 8: corrupt store value");
      store.set(core.doneKey("名前"), new Uint8Array(0));
      expect(() => k.getDoneHeight("名前")).toThrow("value at key 0x01e5908de5898d is 0 bytes, expected 8: corrupt store value");
      store.set(core.doneKey("a"), core.encodeInt64BE(-5n));
      expect(k.getDoneHeight("a")).toBe(-5n);
      sw.target = new MemoryStore();
      for (const n of names) expect(k.getDoneHeight(n)).toBe(0n);
      sw.target = store;
      expect(k.getDoneHeight("😀-upgrade")).toBe(9n);
    });

    it("done heights of more names than the bindings keep keys for", async () => {
      const store = new MemoryStore();
      const k = await keeper(store);
      const name = (i: number) => `u${i}`;
      for (let i = 0; i < 3000; i += 2) store.set(core.doneKey(name(i)), core.encodeInt64BE(BigInt(i + 1)));
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 3000; i++) expect(k.getDoneHeight(name(i))).toBe(i % 2 ? 0n : BigInt(i + 1));
      }
    });
  });
}
