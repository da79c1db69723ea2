import type { KVStore } from "../core/kv.js";

/**
 * A fast synchronous in-memory KVStore.
 *
 * Keys are held as latin1 strings (one char per byte), so JavaScript's string order is unsigned byte
 * order and Map lookups are cheap. Values are stored as given: the store keeps the caller's arrays, so
 * callers must not mutate a value after `set` (nor one returned by `get`/`iterate`).
 *
 * Ordering is kept lazily: `sorted` is an immutable snapshot of the keys, merged with the keys added
 * since (`added`) only when someone iterates. Deleted keys may linger in `sorted` and are skipped
 * (they are checked against the map), so a delete never forces a rebuild.
 */
export class MemoryStore implements KVStore {
  private readonly map: Map<string, Uint8Array>;
  /** Ascending keys; a superset of the map's keys minus `added`. Never mutated in place (iterators hold it). */
  private sorted: string[];
  /** Keys inserted since `sorted` was built, unsorted, possibly repeated. */
  private added: string[] = [];
  /** How many entries of `sorted` may no longer be in the map. */
  private stale = 0;

  constructor(entries?: Iterable<[Uint8Array, Uint8Array]>) {
    this.map = new Map();
    this.sorted = [];
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return this.map.get(bytesToLatin1(key));
  }

  has(key: Uint8Array): boolean {
    return this.map.has(bytesToLatin1(key));
  }

  set(key: Uint8Array, value: Uint8Array): void {
    const k = bytesToLatin1(key);
    if (!this.map.has(k)) this.added.push(k);
    this.map.set(k, value);
  }

  delete(key: Uint8Array): void {
    if (this.map.delete(bytesToLatin1(key))) this.stale++;
  }

  clear(): void {
    this.map.clear();
    this.sorted = [];
    this.added = [];
    this.stale = 0;
  }

  /** An independent store with the same entries (the value arrays are shared, as they are immutable by contract). */
  clone(): MemoryStore {
    const copy = new MemoryStore();
    for (const [k, v] of this.map) copy.map.set(k, v);
    copy.sorted = this.sorted; // safe to share: never mutated in place
    copy.added = this.added.slice();
    copy.stale = this.stale;
    return copy;
  }

  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse = false): IterableIterator<[Uint8Array, Uint8Array]> {
    // The snapshot and bounds are taken now, not at the first next(), so writes made between the call
    // and the first step do not change which keys are visited.
    const keys = this.sortedKeys();
    const lo = lowerBound(keys, bytesToLatin1(start));
    const hi = end === undefined ? keys.length : lowerBound(keys, bytesToLatin1(end));
    return this.walk(keys, lo, hi, reverse);
  }

  private *walk(keys: string[], lo: number, hi: number, reverse: boolean): IterableIterator<[Uint8Array, Uint8Array]> {
    if (reverse) {
      for (let i = hi - 1; i >= lo; i--) {
        const v = this.map.get(keys[i]);
        if (v !== undefined) yield [latin1ToBytes(keys[i]), v];
      }
    } else {
      for (let i = lo; i < hi; i++) {
        const v = this.map.get(keys[i]);
        if (v !== undefined) yield [latin1ToBytes(keys[i]), v];
      }
    }
  }

  /** The current sorted key snapshot, merging in new keys (O(n + k log k)) and dropping stale ones. */
  private sortedKeys(): string[] {
    if (this.added.length === 0 && this.stale * 2 <= this.sorted.length) return this.sorted;
    const fresh = this.added.sort();
    const old = this.sorted;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    let last: string | undefined;
    while (i < old.length || j < fresh.length) {
      let k: string;
      if (j >= fresh.length || (i < old.length && old[i] <= fresh[j])) k = old[i++];
      else k = fresh[j++];
      // A key can be both lingering in `sorted` and re-added, or added twice: keep one live copy.
      if (k !== last && this.map.has(k)) out.push(k);
      last = k;
    }
    this.sorted = out;
    this.added = [];
    this.stale = 0;
    return out;
  }
}

/** First index whose key is >= target. */
function lowerBound(keys: string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Bytes → a string with one char (0–255) per byte; its UTF-16 order is unsigned byte order. */
export function bytesToLatin1(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n <= 16) {
    let s = "";
    for (let i = 0; i < n; i++) s += String.fromCharCode(bytes[i]);
    return s;
  }
  // fromCharCode.apply takes an array-like; chunk it so huge keys stay under the argument limit.
  let s = "";
  for (let i = 0; i < n; i += 8192) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(n, i + 8192)) as unknown as number[]);
  }
  return s;
}

/** The inverse of bytesToLatin1: a fresh array. */
export function latin1ToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
