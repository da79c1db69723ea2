import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterEach, describe, expect, it } from "vitest";
import { CacheStore } from "../../bindings/store/cache.js";
import { prefixEnd, type KVStore } from "../../bindings/core/kv.js";
import { DurableMultiStore, DurableStore } from "../../bindings/store/level.js";
import { openNodeMultiStore, openNodeStore } from "../../bindings/store/level-node.js";
import { MemoryStore, bytesToLatin1, latin1ToBytes } from "../../bindings/store/memory.js";
import { rng } from "../support/random.js";
import { compareBytes } from "../../bindings/base/bytes.js";

const b = (...xs: number[]) => Uint8Array.from(xs);
const s = (str: string) => new TextEncoder().encode(str);
const t = (v: Uint8Array | undefined) => (v === undefined ? undefined : new TextDecoder().decode(v));
const hex = (v: Uint8Array) => Buffer.from(v).toString("hex");
const all = (st: KVStore, reverse = false) => [...st.iterate(new Uint8Array(0), undefined, reverse)].map(([k, v]) => [hex(k), hex(v)]);

/** The obviously-correct reference: a Map of hex keys, sorted on every read. */
class Model {
  m = new Map<string, Uint8Array>();
  set(k: Uint8Array, v: Uint8Array) {
    this.m.set(hex(k), v);
  }
  delete(k: Uint8Array) {
    this.m.delete(hex(k));
  }
  range(start: Uint8Array, end: Uint8Array | undefined, reverse: boolean) {
    const rows = [...this.m]
      .map(([k, v]) => [Buffer.from(k, "hex"), v] as const)
      .filter(([k]) => compareBytes(k, start) >= 0 && (end === undefined || compareBytes(k, end) < 0))
      .sort(([x], [y]) => compareBytes(x, y))
      .map(([k, v]) => [hex(k), hex(v)]);
    return reverse ? rows.reverse() : rows;
  }
}

function randomKey(r: () => number): Uint8Array {
  // Short keys over a small alphabet including 0x00 and 0xff, so prefixes and edge bytes collide often.
  const alphabet = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff];
  const len = Math.floor(r() * 4);
  return Uint8Array.from({ length: len }, () => alphabet[Math.floor(r() * alphabet.length)]);
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "xupgrade-store-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("latin1 key encoding", () => {
  it("round-trips every byte and orders like unsigned bytes", () => {
    const keys = [b(), b(0), b(0, 0), b(0x7f), b(0x80), b(0xff), b(0xff, 0), Uint8Array.from({ length: 20000 }, (_, i) => i & 0xff)];
    for (const k of keys) expect(latin1ToBytes(bytesToLatin1(k))).toEqual(k);
    for (const x of keys)
      for (const y of keys) {
        const byStr = bytesToLatin1(x) < bytesToLatin1(y) ? -1 : bytesToLatin1(x) > bytesToLatin1(y) ? 1 : 0;
        expect(byStr).toBe(Math.sign(compareBytes(x, y)));
      }
  });
});

describe("MemoryStore", () => {
  it("gets, sets, deletes, and iterates in unsigned byte order", () => {
    const st = new MemoryStore();
    st.set(b(0x80), s("hi"));
    st.set(b(0x01), s("lo"));
    st.set(b(0x01, 0x00), s("lo0"));
    st.set(b(), s("empty"));
    expect(t(st.get(b(0x80)))).toBe("hi");
    expect(st.has(b(0x01))).toBe(true);
    expect(st.get(b(0x02))).toBeUndefined();
    expect(st.size).toBe(4);
    expect(all(st).map(([k]) => k)).toEqual(["", "01", "0100", "80"]);
    expect(all(st, true).map(([k]) => k)).toEqual(["80", "0100", "01", ""]);
    st.delete(b(0x01));
    st.delete(b(0x33)); // absent: no-op
    expect(st.has(b(0x01))).toBe(false);
    expect(st.size).toBe(3);
    expect(all(st).map(([k]) => k)).toEqual(["", "0100", "80"]);
  });

  it("iterates half-open ranges and prefixes", () => {
    const st = new MemoryStore();
    for (const k of [b(1), b(1, 0), b(1, 0xff), b(2), b(2, 1), b(0xff), b(0xff, 0xff)]) st.set(k, k);
    const keys = (start: Uint8Array, end: Uint8Array | undefined, rev = false) => [...st.iterate(start, end, rev)].map(([k]) => hex(k));
    expect(keys(b(1), b(2))).toEqual(["01", "0100", "01ff"]);
    expect(keys(b(1), b(2), true)).toEqual(["01ff", "0100", "01"]);
    expect(keys(b(1, 0), b(1, 0xff))).toEqual(["0100"]);
    expect(keys(b(0xff), prefixEnd(b(0xff)))).toEqual(["ff", "ffff"]);
    expect(keys(b(3), b(3))).toEqual([]);
    expect(keys(b(2), undefined, true)).toEqual(["ffff", "ff", "0201", "02"]);
  });

  it("keeps the caller's value arrays and copies keys", () => {
    const st = new MemoryStore();
    const key = b(1, 2);
    const value = b(9);
    st.set(key, value);
    key[0] = 7; // mutating the key afterwards must not move the entry
    expect(st.get(b(1, 2))).toBe(value);
    expect(st.get(b(7, 2))).toBeUndefined();
  });

  it("matches a reference model under random operations", () => {
    const r = rng(1);
    const st = new MemoryStore();
    const model = new Model();
    for (let step = 0; step < 3000; step++) {
      const k = randomKey(r);
      const op = r();
      if (op < 0.5) {
        const v = b(step & 0xff);
        st.set(k, v);
        model.set(k, v);
      } else if (op < 0.8) {
        st.delete(k);
        model.delete(k);
      } else {
        const start = randomKey(r);
        const end = r() < 0.3 ? undefined : randomKey(r);
        const rev = r() < 0.5;
        expect([...st.iterate(start, end, rev)].map(([x, y]) => [hex(x), hex(y)])).toEqual(model.range(start, end, rev));
      }
      expect(st.size).toBe(model.m.size);
    }
  });

  it("iterates a snapshot of the keys: writes during iteration are safe", () => {
    const st = new MemoryStore();
    for (let i = 0; i < 10; i++) st.set(b(i), b(i));
    const seen: number[] = [];
    for (const [k] of st.iterate(b(), undefined)) {
      seen.push(k[0]);
      st.delete(k); // deleting the current key
      st.delete(b(k[0] + 1)); // and the next one: it must be skipped
      st.set(b(100 + k[0]), b(0)); // added keys are not visited by this iteration
    }
    expect(seen).toEqual([0, 2, 4, 6, 8]);
    expect(all(st).map(([k]) => k)).toEqual(["64", "66", "68", "6a", "6c"]);
  });

  it("takes the snapshot when iterate() is called, not at the first step", () => {
    const st = new MemoryStore();
    st.set(b(1), b(1));
    const it = st.iterate(b(), undefined);
    st.set(b(2), b(2));
    expect([...it].map(([k]) => k[0])).toEqual([1]);
  });

  it("handles 100,000 keys written in random order", () => {
    const st = new MemoryStore();
    const n = 100_000;
    const order = Array.from({ length: n }, (_, i) => i);
    const r = rng(7);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const key = (i: number) => Uint8Array.of(i >>> 16, (i >>> 8) & 0xff, i & 0xff);
    for (const i of order) st.set(key(i), b(i & 0xff));
    let count = 0;
    let prev = -1;
    for (const [k] of st.iterate(b(), undefined)) {
      const i = (k[0] << 16) | (k[1] << 8) | k[2];
      expect(i).toBeGreaterThan(prev);
      prev = i;
      count++;
    }
    expect(count).toBe(n);
  });

  it("matches the model with thousands of keys, iterating between small batches of writes", () => {
    // Enough keys for the sorted index to split chunks and to take both of its update paths (key by key,
    // and one merge for a large batch), with iterators kept open across the writes.
    const r = rng(3);
    const st = new MemoryStore();
    const model = new Model();
    const key = () => Uint8Array.of(Math.floor(r() * 4), Math.floor(r() * 256), Math.floor(r() * 32));
    const open: { it: Iterator<[Uint8Array, Uint8Array]>; expected: string[] }[] = [];
    for (let round = 0; round < 400; round++) {
      const batch = round % 50 === 0 ? 2000 : 1 + Math.floor(r() * 8);
      for (let i = 0; i < batch; i++) {
        const k = key();
        if (r() < 0.7) {
          const v = b(round & 0xff);
          st.set(k, v);
          model.set(k, v);
        } else {
          st.delete(k);
          model.delete(k);
        }
      }
      const start = key();
      const end = r() < 0.2 ? undefined : key();
      const rev = r() < 0.5;
      expect([...st.iterate(start, end, rev)].map(([x, y]) => [hex(x), hex(y)])).toEqual(model.range(start, end, rev));
      if (round % 40 === 0) open.push({ it: st.iterate(b(), undefined), expected: model.range(b(), undefined, false).map(([k]) => k) });
    }
    // An iterator walks the keys of its call: the keys added since are not visited; those deleted since are skipped.
    for (const { it, expected } of open) {
      const seen: string[] = [];
      for (let n = it.next(); !n.done; n = it.next()) seen.push(hex(n.value[0]));
      expect(seen).toEqual(expected.filter((k) => model.m.has(k)));
    }
    expect(st.size).toBe(model.m.size);
  });

  it("clone() copies the data; clear() empties", () => {
    const st = new MemoryStore();
    st.set(b(1), b(1));
    st.set(b(2), b(2));
    void [...st.iterate(b(), undefined)]; // build the sorted snapshot so clone shares it
    const copy = st.clone();
    st.delete(b(1));
    copy.set(b(3), b(3));
    expect(all(st).map(([k]) => k)).toEqual(["02"]);
    expect(all(copy).map(([k]) => k)).toEqual(["01", "02", "03"]);
    st.clear();
    expect(st.size).toBe(0);
    expect(all(st)).toEqual([]);
    expect(copy.size).toBe(3);
  });
});

describe("CacheStore", () => {
  function seeded() {
    const parent = new MemoryStore();
    for (const [k, v] of [
      ["a", "1"],
      ["c", "3"],
      ["e", "5"],
    ])
      parent.set(s(k), s(v));
    return parent;
  }

  it("reads through, buffers writes and deletes, and merges iteration both ways", () => {
    const parent = seeded();
    const cache = new CacheStore(parent);
    cache.set(s("b"), s("2"));
    cache.set(s("c"), s("33"));
    cache.delete(s("e"));
    cache.delete(s("zz")); // deleting an absent key is harmless
    expect(t(cache.get(s("a")))).toBe("1");
    expect(t(cache.get(s("c")))).toBe("33");
    expect(cache.get(s("e"))).toBeUndefined();
    expect(cache.has(s("e"))).toBe(false);
    expect(cache.has(s("b"))).toBe(true);
    expect(rows(cache)).toEqual(["a=1", "b=2", "c=33"]);
    expect(rows(cache, true)).toEqual(["c=33", "b=2", "a=1"]);
    expect([...cache.iterate(s("b"), s("d"))].map(([k]) => t(k))).toEqual(["b", "c"]);
    expect([...cache.iterate(s("b"), s("d"), true)].map(([k]) => t(k))).toEqual(["c", "b"]);
    // The parent is untouched until write().
    expect(rows(parent)).toEqual(["a=1", "c=3", "e=5"]);
    expect(cache.pendingCount).toBe(4);
  });

  it("write() flushes in key order and clears; discard() drops", () => {
    const order: string[] = [];
    const parent = seeded();
    const spy: KVStore = {
      get: (k) => parent.get(k),
      has: (k) => parent.has(k),
      iterate: (a, z, r) => parent.iterate(a, z, r),
      set: (k, v) => (order.push(`set ${t(k)}`), parent.set(k, v)),
      delete: (k) => (order.push(`del ${t(k)}`), parent.delete(k)),
    };
    const cache = new CacheStore(spy);
    cache.set(s("d"), s("4"));
    cache.delete(s("a"));
    cache.set(s("b"), s("2"));
    cache.write();
    expect(order).toEqual(["del a", "set b", "set d"]);
    expect(rows(parent)).toEqual(["b=2", "c=3", "d=4", "e=5"]);
    expect(cache.pendingCount).toBe(0);
    expect(rows(cache)).toEqual(rows(parent));

    cache.set(s("x"), s("9"));
    cache.delete(s("b"));
    cache.discard();
    expect(rows(cache)).toEqual(["b=2", "c=3", "d=4", "e=5"]);
    expect(rows(parent)).toEqual(["b=2", "c=3", "d=4", "e=5"]);
  });

  it("nests: an inner cache writes into the outer one, which writes into the parent", () => {
    const parent = seeded();
    const outer = new CacheStore(parent);
    const inner = new CacheStore(outer);
    outer.set(s("b"), s("2"));
    inner.delete(s("b"));
    inner.set(s("f"), s("6"));
    inner.delete(s("a"));
    expect(rows(inner)).toEqual(["c=3", "e=5", "f=6"]);
    expect(rows(inner, true)).toEqual(["f=6", "e=5", "c=3"]);
    expect(rows(outer)).toEqual(["a=1", "b=2", "c=3", "e=5"]);
    inner.write();
    expect(rows(outer)).toEqual(["c=3", "e=5", "f=6"]);
    expect(rows(parent)).toEqual(["a=1", "c=3", "e=5"]);
    outer.write();
    expect(rows(parent)).toEqual(["c=3", "e=5", "f=6"]);

    // A discarded inner layer leaves the outer one as it was.
    const inner2 = new CacheStore(outer);
    inner2.set(s("z"), s("26"));
    inner2.discard();
    expect(rows(outer)).toEqual(["c=3", "e=5", "f=6"]);
  });

  it("matches a reference model under random operations on three nested layers", () => {
    const r = rng(42);
    const base = new MemoryStore();
    const model = new Model();
    for (let i = 0; i < 40; i++) {
      const k = randomKey(r);
      base.set(k, b(i));
      model.set(k, b(i));
    }
    let mid = new CacheStore(base);
    let top = new CacheStore(mid);
    let midModel = new Map(model.m);
    let topModel = new Map(model.m);
    const check = () => {
      const start = randomKey(r);
      const end = r() < 0.3 ? undefined : randomKey(r);
      const rev = r() < 0.5;
      const m = new Model();
      m.m = topModel;
      expect([...top.iterate(start, end, rev)].map(([x, y]) => [hex(x), hex(y)])).toEqual(m.range(start, end, rev));
    };
    for (let step = 0; step < 3000; step++) {
      const k = randomKey(r);
      const op = r();
      if (op < 0.4) {
        top.set(k, b(step & 0xff));
        topModel.set(hex(k), b(step & 0xff));
      } else if (op < 0.65) {
        top.delete(k);
        topModel.delete(hex(k));
      } else if (op < 0.85) {
        check();
        expect(top.get(k)).toEqual(topModel.get(hex(k)));
      } else if (op < 0.92) {
        top.write(); // top → mid
        midModel = new Map(topModel);
      } else if (op < 0.96) {
        top.discard();
        topModel = new Map(midModel);
      } else {
        top.write();
        mid.write(); // everything reaches the base
        midModel = new Map(topModel);
        model.m = new Map(topModel);
        expect(all(base)).toEqual(model.range(new Uint8Array(0), undefined, false));
        mid = new CacheStore(base);
        top = new CacheStore(mid);
      }
    }
  });

  it("iteration survives writes to both layers meanwhile", () => {
    const parent = new MemoryStore();
    for (let i = 0; i < 10; i++) parent.set(b(i), b(i));
    const cache = new CacheStore(parent);
    cache.set(b(3), b(33));
    const seen: string[] = [];
    for (const [k, v] of cache.iterate(b(), undefined)) {
      seen.push(`${k[0]}:${v[0]}`);
      if (k[0] === 1) {
        cache.delete(b(2)); // ahead, from the parent: skipped
        cache.delete(b(3)); // ahead, from the cache: skipped
        cache.set(b(4), b(44)); // ahead, overwritten: the new value is seen
        cache.set(b(50), b(50)); // a new key: not part of this iteration
        parent.delete(b(5)); // ahead, deleted in the parent itself: skipped
      }
      cache.delete(k); // deleting the current key is always fine
    }
    expect(seen).toEqual(["0:0", "1:1", "4:44", "6:6", "7:7", "8:8", "9:9"]);
    expect(rows(cache).length).toBe(1);
  });
});

describe("DurableStore (classic-level)", () => {
  it("commits atomically, rolls back, and reopens at the last committed state", async () => {
    const dir = tempDir();
    let st = await openNodeStore(dir);
    st.set(s("a"), s("1"));
    st.set(s("b"), s("2"));
    expect(st.pendingCount).toBe(2);
    await st.commit(s("meta-1"));
    expect(st.pendingCount).toBe(0);

    st.set(s("a"), s("changed"));
    st.delete(s("b"));
    st.set(s("c"), s("3"));
    expect(rows(st)).toEqual(["a=changed", "c=3"]);
    st.rollback();
    expect(rows(st)).toEqual(["a=1", "b=2"]);

    st.set(s("c"), s("3"));
    st.delete(s("a"));
    await st.commit();
    st.set(s("uncommitted"), s("x"));
    await st.close();

    st = await openNodeStore(dir);
    expect(rows(st)).toEqual(["b=2", "c=3"]);
    expect(t(st.committedMeta)).toBe("meta-1"); // the second commit carried no meta
    await st.close();
  });

  it("refuses writes while a commit is in flight", async () => {
    const st = await openNodeStore(tempDir());
    st.set(s("a"), s("1"));
    const pending = st.commit();
    expect(() => st.set(s("b"), s("2"))).toThrow(/committing/);
    await pending;
    st.set(s("b"), s("2"));
    expect(rows(st)).toEqual(["a=1", "b=2"]);
    await st.close();
  });

  it("writes the whole block in one db.batch()", async () => {
    const dir = tempDir();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const batches: number[] = [];
    const batch = db.batch.bind(db) as (ops: unknown[], o: unknown) => Promise<void>;
    // Count the db's write calls: a commit must be exactly one batch whatever its size.
    (db as unknown as { batch: typeof batch }).batch = (ops: unknown[], o: unknown) => (batches.push(ops.length), batch(ops, o));
    (db as unknown as { put: unknown }).put = () => {
      throw new Error("no single puts");
    };
    const st = await DurableStore.open(db);
    for (let i = 0; i < 5000; i++) st.set(s(`k${i}`), s(`v${i}`));
    st.delete(s("k7"));
    await st.commit(s("m"));
    expect(batches).toEqual([5001]);
    await st.close();
    const again = await openNodeStore(dir);
    expect(rows(again).length).toBe(4999);
    await again.close();
  });

  it("loads and commits 100,000 keys", async () => {
    const dir = tempDir();
    let st = await openNodeStore(dir);
    for (let i = 0; i < 100_000; i++) st.set(Uint8Array.of(i >>> 16, (i >>> 8) & 0xff, i & 0xff), Uint8Array.of(i & 0xff));
    await st.commit();
    await st.close();
    st = await openNodeStore(dir);
    let n = 0;
    for (const [k, v] of st.iterate(new Uint8Array(0), undefined)) {
      expect(k[2]).toBe(v[0]);
      n++;
    }
    expect(n).toBe(100_000);
    // Values loaded from LevelDB are plain Uint8Arrays, not pooled Buffers.
    expect(Object.getPrototypeOf(st.get(b(0, 0, 1))!)).toBe(Uint8Array.prototype);
    await st.close();
  });
});

describe("DurableMultiStore (classic-level)", () => {
  it("starts fresh at height 0 and commits all stores with the height atomically", async () => {
    const dir = tempDir();
    let ms = await openNodeMultiStore(dir);
    expect(ms.lastCommittedHeight).toBe(0n);
    expect(ms.committedStores()).toEqual([]);
    ms.store("bank").set(s("k"), s("bank"));
    ms.store("upgrade").set(s("k"), s("upgrade"));
    ms.store("empty"); // mounted, never written: still a committed store
    await ms.commit(1n);
    expect(ms.lastCommittedHeight).toBe(1n);
    expect(ms.committedStores()).toEqual(["bank", "empty", "upgrade"]);

    ms.store("bank").set(s("k"), s("bank-2"));
    ms.store("new").set(s("x"), s("y"));
    await ms.close(); // never committed

    ms = await openNodeMultiStore(dir);
    expect(ms.lastCommittedHeight).toBe(1n);
    expect(ms.committedStores()).toEqual(["bank", "empty", "upgrade"]);
    expect(t(ms.store("bank").get(s("k")))).toBe("bank");
    expect(t(ms.store("upgrade").get(s("k")))).toBe("upgrade");
    expect(ms.store("new").get(s("x"))).toBeUndefined();
    await expect(ms.commit(1n)).rejects.toThrow(TypeError);
    await ms.commit(2);
    expect(ms.lastCommittedHeight).toBe(2n);
    await ms.close();
  });

  it("keeps stores apart even when names and keys run together", async () => {
    const dir = tempDir();
    let ms = await openNodeMultiStore(dir);
    ms.store("a").set(s("bc"), s("1"));
    ms.store("ab").set(s("c"), s("2"));
    ms.store("名前").set(s(""), s("3"));
    await ms.commit(1n);
    await ms.close();
    ms = await openNodeMultiStore(dir);
    expect(rows(ms.store("a"))).toEqual(["bc=1"]);
    expect(rows(ms.store("ab"))).toEqual(["c=2"]);
    expect(rows(ms.store("名前"))).toEqual(["=3"]);
    await ms.close();
  });

  it("deletes and renames stores as pending writes; rollback restores them", async () => {
    const dir = tempDir();
    let ms = await openNodeMultiStore(dir);
    ms.store("foo").set(s("key"), s("value"));
    ms.store("old").set(s("x"), s("y"));
    await ms.commit(1n);

    ms.renameStore("foo", "bar");
    ms.deleteStore("old");
    expect(rows(ms.store("bar"))).toEqual(["key=value"]);
    expect(rows(ms.store("foo"))).toEqual([]);
    ms.rollback();
    expect(rows(ms.store("foo"))).toEqual(["key=value"]);
    expect(rows(ms.store("old"))).toEqual(["x=y"]);
    expect(rows(ms.store("bar"))).toEqual([]);

    ms.renameStore("foo", "bar");
    ms.deleteStore("old");
    expect(ms.committedStores()).toEqual(["foo", "old"]); // until the commit
    await ms.commit(2n);
    expect(ms.committedStores()).toEqual(["bar"]);
    await ms.close();

    ms = await openNodeMultiStore(dir);
    expect(ms.committedStores()).toEqual(["bar"]);
    expect(rows(ms.store("bar"))).toEqual(["key=value"]);
    expect(ms.hasCommittedStore("foo")).toBe(false);
    await ms.close();

    // Nothing of foo or old is left in the database itself.
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const keys: string[] = [];
    for await (const k of db.keys()) keys.push(Buffer.from(k).toString("latin1"));
    await db.close();
    expect(keys.sort()).toEqual(["h", "rbar", "s\u0000\u0003barkey"].sort());
  });

  it("guards the in-flight commit; a store first opened meanwhile commits next time", async () => {
    const dir = tempDir();
    let ms = await openNodeMultiStore(dir);
    ms.store("a").set(s("k"), s("1"));
    const pending = ms.commit(1n);
    expect(() => ms.store("a").set(s("k"), s("2"))).toThrow(/committing/);
    expect(() => ms.rollback()).toThrow(/in flight/);
    expect(() => ms.deleteStore("a")).toThrow(/in flight/);
    await expect(ms.commit(2n)).rejects.toThrow(/in flight/);
    ms.store("late").set(s("x"), s("y"));
    await pending;
    expect(ms.lastCommittedHeight).toBe(1n);
    expect(ms.pendingCount).toBe(1);
    expect(ms.committedStores()).toEqual(["a"]);
    await ms.commit(2n);
    expect(ms.committedStores()).toEqual(["a", "late"]);
    await ms.close();
    ms = await openNodeMultiStore(dir);
    expect(rows(ms.store("late"))).toEqual(["x=y"]);
    expect(rows(ms.store("a"))).toEqual(["k=1"]);
    await ms.close();
  });

  it("refuses to open a database that is not a multistore", async () => {
    const dir = tempDir();
    const st = await openNodeStore(dir);
    st.set(s("k"), s("v"));
    await st.commit();
    await st.close();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    await expect(DurableMultiStore.open(db)).rejects.toThrow(/not a multistore database/);
    await db.close();
  });
});

function rows(st: KVStore, rev = false): string[] {
  return [...st.iterate(new Uint8Array(0), undefined, rev)].map(([k, v]) => `${t(k)}=${t(v)}`);
}
