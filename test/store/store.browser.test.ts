/** The stores in real Chromium: MemoryStore, CacheStore, and the IndexedDB-backed durable stores. */
import { describe, expect, it } from "vitest";
import { CacheStore } from "../../bindings/store/cache.js";
import type { KVStore } from "../../bindings/core/kv.js";
import { openBrowserMultiStore, openBrowserStore } from "../../bindings/store/level-browser.js";
import { MemoryStore } from "../../bindings/store/memory.js";

const s = (str: string) => new TextEncoder().encode(str);
const t = (v: Uint8Array | undefined) => (v === undefined ? undefined : new TextDecoder().decode(v));
const rows = (st: KVStore, rev = false) => [...st.iterate(new Uint8Array(0), undefined, rev)].map(([k, v]) => `${t(k)}=${t(v)}`);
/** A database name no earlier run used. */
const unique = (label: string) => `xupgrade-test-${label}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

describe("MemoryStore and CacheStore in the browser", () => {
  it("orders keys as unsigned bytes and merges a cache over it", () => {
    const st = new MemoryStore();
    for (const k of [[0xff], [0x00], [0x80], [0x7f, 0x01]]) st.set(Uint8Array.from(k), Uint8Array.of(k[0]));
    expect([...st.iterate(new Uint8Array(0), undefined)].map(([k]) => k[0])).toEqual([0x00, 0x7f, 0x80, 0xff]);
    const cache = new CacheStore(st);
    cache.delete(Uint8Array.of(0x80));
    cache.set(Uint8Array.of(0x90), Uint8Array.of(1));
    expect([...cache.iterate(new Uint8Array(0), undefined, true)].map(([k]) => k[0])).toEqual([0xff, 0x90, 0x7f, 0x00]);
    cache.write();
    expect(st.size).toBe(4);
    expect(st.has(Uint8Array.of(0x80))).toBe(false);
  });
});

describe("DurableStore on IndexedDB (browser-level)", () => {
  it("commits, rolls back, and reopens at the last committed state", async () => {
    const name = unique("single");
    let st = await openBrowserStore(name);
    st.set(s("a"), s("1"));
    st.set(s("b"), s("2"));
    await st.commit(s("meta"));
    st.set(s("a"), s("changed"));
    st.delete(s("b"));
    expect(rows(st)).toEqual(["a=changed"]);
    st.rollback();
    expect(rows(st)).toEqual(["a=1", "b=2"]);
    st.set(s("c"), s("3"));
    st.delete(s("a"));
    await st.commit();
    st.set(s("lost"), s("never committed"));
    await st.close();

    st = await openBrowserStore(name);
    expect(rows(st)).toEqual(["b=2", "c=3"]);
    expect(rows(st, true)).toEqual(["c=3", "b=2"]);
    expect(t(st.committedMeta)).toBe("meta");
    await st.close();
  });

  it("commits a multistore with its height and reopens it", async () => {
    const name = unique("multi");
    let ms = await openBrowserMultiStore(name);
    expect(ms.lastCommittedHeight).toBe(0n);
    ms.store("foo").set(s("key"), s("value"));
    ms.store("bank").set(s("k"), s("1"));
    await ms.commit(1n);
    ms.renameStore("foo", "bar");
    ms.store("bank").set(s("k"), s("2"));
    await ms.commit(2n);
    ms.store("bank").set(s("k"), s("uncommitted"));
    await ms.close();

    ms = await openBrowserMultiStore(name);
    expect(ms.lastCommittedHeight).toBe(2n);
    expect(ms.committedStores()).toEqual(["bank", "bar"]);
    expect(rows(ms.store("bar"))).toEqual(["key=value"]);
    expect(t(ms.store("bank").get(s("k")))).toBe("2");
    ms.store("bank").set(s("k"), s("3"));
    ms.rollback();
    expect(t(ms.store("bank").get(s("k")))).toBe("2");
    await ms.close();
  });
});
