/**
 * The byte cache (the dense tier of the node cache) against a Map: whatever it answers is exactly what was
 * put under that name and not deleted since; under the capacity nothing live is lost; it grows to its
 * capacity and never beyond.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteCache } from "../../../bindings/store/iavl/byte-cache.js";

const name = (t: number, v: number, n: number) => `${t}/${v}/${n}`;

/** Bytes that say which entry (and which put of it) they are. */
function payload(t: number, v: number, n: number, len: number, salt: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = (t * 31 + v * 7 + n * 13 + salt + i) & 0xff;
  return out;
}

describe("ByteCache", () => {
  const op = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("put" as const),
        t: fc.nat(3),
        v: fc.integer({ min: 1, max: 40 }),
        n: fc.integer({ min: 1, max: 30 }),
        len: fc.integer({ min: 0, max: 300 }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("get" as const), t: fc.nat(3), v: fc.integer({ min: 1, max: 40 }), n: fc.integer({ min: 1, max: 30 }) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("del" as const), t: fc.nat(3), v: fc.integer({ min: 1, max: 40 }), n: fc.integer({ min: 1, max: 30 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "clear" as const }) },
  );

  it("answers only what was put and not deleted, under wrapping, moving, evicting and growing", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), fc.constantFrom(4096, 6000, 1 << 14, 1 << 16), (ops, capacity) => {
        const cache = new ByteCache(capacity);
        const model = new Map<string, Uint8Array>();
        let salt = 0;
        for (const o of ops) {
          if (o.kind === "put") {
            const k = name(o.t, o.v, o.n);
            const bytes = payload(o.t, o.v, o.n, o.len, salt++);
            const had = cache.has(o.t, o.v, o.n);
            cache.put(o.t, o.v, o.n, bytes);
            // Entries are immutable: a second put of a held name keeps the first bytes.
            if (!had && cache.has(o.t, o.v, o.n)) model.set(k, bytes);
          } else if (o.kind === "get") {
            const got = cache.get(o.t, o.v, o.n);
            if (got !== undefined) expect(Array.from(got)).toEqual(Array.from(model.get(name(o.t, o.v, o.n))!));
          } else if (o.kind === "del") {
            cache.delete(o.t, o.v, o.n);
            model.delete(name(o.t, o.v, o.n));
            expect(cache.has(o.t, o.v, o.n)).toBe(false);
          } else {
            cache.clear();
            model.clear();
          }
          expect(cache.allocated).toBeLessThanOrEqual(capacity);
        }
        // Everything it still holds is right, and it holds no more than was put.
        let held = 0;
        for (const [k, bytes] of model) {
          const [t, v, n] = k.split("/").map(Number);
          const got = cache.get(t, v, n);
          if (got === undefined) continue;
          held++;
          expect(Array.from(got)).toEqual(Array.from(bytes));
        }
        expect(held).toBe(cache.size);
      }),
      { numRuns: 200 },
    );
  });

  it("keeps every entry while they fit, and evicts the least recently read when they do not", () => {
    const cache = new ByteCache(1 << 16);
    const bytes = new Uint8Array(100);
    // 300 entries of 116 bytes (34,800 bytes): under 3/4 of the capacity, all kept through the wraps.
    for (let round = 0; round < 20; round++) {
      for (let n = 1; n <= 300; n++) {
        cache.put(0, round + 1, n, bytes);
        if (round > 0) cache.delete(0, round, n);
      }
    }
    expect(cache.size).toBe(300);
    for (let n = 1; n <= 300; n++) expect(cache.has(0, 20, n)).toBe(true);
    // Now 1,000 more, without deleting: it fills, and the ones read on the way survive.
    for (let n = 1; n <= 1000; n++) {
      cache.put(1, 1, n, bytes);
      for (let k = 1; k <= 10; k++) cache.get(0, 20, k);
    }
    for (let k = 1; k <= 10; k++) expect(cache.has(0, 20, k)).toBe(true);
    expect(cache.bytes).toBeLessThanOrEqual(1 << 16);
    expect(cache.size).toBeLessThan(1300);
  });

  it("refuses a capacity it cannot use, and skips entries too large to keep", () => {
    expect(() => new ByteCache(100)).toThrow("byte cache capacity must be an integer from 4096 to 2^31, got 100");
    const cache = new ByteCache(8192);
    cache.put(0, 1, 1, new Uint8Array(2000));
    expect(cache.has(0, 1, 1)).toBe(false);
    cache.put(0, 1, 2, new Uint8Array(1000));
    expect(cache.get(0, 1, 2)?.length).toBe(1000);
  });
});
