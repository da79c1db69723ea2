import { describe, expect, it } from "vitest";
import { KeyIndex } from "../../bindings/store/key-index.js";
import { rng } from "../support/random.js";

const key = (i: number) => String.fromCharCode(i >>> 8, i & 0xff);
const sortedSet = (s: Set<string>) => [...s].sort();

function rangeOf(keys: string[], lo: string, hi: string | undefined): string[] {
  return keys.filter((k) => k >= lo && (hi === undefined || k < hi));
}

/** The keys between span()'s two positions. */
function spanned(index: KeyIndex, lo: string, hi: string | undefined): string[] {
  const [c0, i0, c1, i1] = index.span(lo, hi);
  const out: string[] = [];
  for (let c = c0, i = i0; c < c1 || (c === c1 && i < i1);) {
    if (i < index.parts[c].length) out.push(index.parts[c][i++]);
    else {
      c++;
      i = 0;
    }
  }
  return out;
}

describe("KeyIndex", () => {
  it("keeps a sorted set through inserts and removes that split and empty chunks", () => {
    const r = rng(11);
    const model = new Set<string>();
    let index = KeyIndex.fromSorted([]);
    // Phases concentrated on a narrow range make one chunk grow past its split size; then remove most.
    for (let step = 0; step < 6000; step++) {
      const narrow = step < 3000 ? 0x1000 : 0x4000;
      const k = key(Math.floor(r() * narrow));
      if (step < 4000 || r() < 0.2) {
        index = index.insert(k);
        model.add(k);
      } else {
        index = index.remove(k);
        model.delete(k);
      }
      if (step % 97 === 0) {
        const keys = sortedSet(model);
        expect(index.toArray()).toEqual(keys);
        expect(index.size).toBe(model.size);
        const lo = key(Math.floor(r() * narrow));
        const hi = r() < 0.2 ? undefined : key(Math.floor(r() * narrow));
        expect(spanned(index, lo, hi)).toEqual(rangeOf(keys, lo, hi));
      }
    }
    expect(index.chunkCount).toBeGreaterThan(1);
  });

  it("is persistent: a change leaves the index it was made from as it was", () => {
    const base = KeyIndex.fromSorted(Array.from({ length: 2000 }, (_, i) => key(i * 2)));
    const before = base.toArray();
    let changed = base;
    for (let i = 0; i < 1000; i++) changed = changed.insert(key(1001 + i * 2)).remove(key(i * 2));
    expect(base.toArray()).toEqual(before);
    expect(changed.size).toBe(2000);
    expect(base.insert(key(0))).toBe(base); // already there
    expect(base.remove(key(1))).toBe(base); // not there
  });

  it("drops a chunk it empties, and still finds and inserts around it", () => {
    const model = new Set(Array.from({ length: 900 }, (_, i) => key(i * 4)));
    let index = KeyIndex.fromSorted(sortedSet(model));
    const chunks = index.chunkCount;
    for (let i = 200; i < 700; i++) {
      index = index.remove(key(i * 4));
      model.delete(key(i * 4));
    }
    expect(index.chunkCount).toBeLessThan(chunks);
    for (const i of [1, 799, 801, 2000, 2801, 3599]) {
      index = index.insert(key(i));
      model.add(key(i));
    }
    const keys = sortedSet(model);
    expect(index.toArray()).toEqual(keys);
    for (const [lo, hi] of [
      [key(700), key(2900)],
      [key(800), undefined],
      ["", key(2801)],
    ] as [string, string | undefined][]) {
      expect(spanned(index, lo, hi)).toEqual(rangeOf(keys, lo, hi));
    }
  });

  it("ranges over empty and edge bounds", () => {
    const empty = KeyIndex.fromSorted([]);
    expect(empty.span("", undefined)).toEqual([0, 0, 0, 0]);
    const keys = Array.from({ length: 1000 }, (_, i) => key(i + 1));
    const index = KeyIndex.fromSorted(keys);
    for (const [lo, hi] of [
      ["", undefined],
      ["", key(0)],
      [key(1), key(1)],
      [key(256), key(513)],
      [key(999), undefined],
      [key(5000), undefined],
      ["", key(5000)],
    ] as [string, string | undefined][]) {
      expect(spanned(index, lo, hi)).toEqual(rangeOf(keys, lo, hi));
    }
  });
});
