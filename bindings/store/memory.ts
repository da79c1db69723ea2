import type { KVStore } from "../core/kv.js";
import { KeyIndex } from "./key-index.js";

/**
 * A fast synchronous in-memory KVStore.
 *
 * Keys are held as latin1 strings (one char per byte), so JavaScript's string order is unsigned byte
 * order and Map lookups are cheap. Values are stored as given: the store keeps the caller's arrays, so
 * callers must not mutate a value after `set` (nor one returned by `get`/`iterate`).
 *
 * Ordering is kept lazily: `index` is a persistent sorted index of the keys (key-index.ts), brought up to
 * date with the keys added and removed since (`added`, `removed`) only when someone iterates — key by key
 * when they are few (a cost independent of the store's size), by one merge when they are many.
 */
export class MemoryStore implements KVStore {
  private readonly map: Map<string, Uint8Array>;
  /** The sorted keys as of the last iteration. Persistent: an iterator keeps the one it started on. */
  private index: KeyIndex = KeyIndex.EMPTY;
  /** Keys inserted since `index` was brought up to date, unsorted, possibly repeated or deleted since. */
  private added: string[] = [];
  /** Keys deleted since, possibly re-added since. */
  private removed: string[] = [];

  constructor(entries?: Iterable<[Uint8Array, Uint8Array]>) {
    this.map = new Map();
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
    const k = bytesToLatin1(key);
    if (this.map.delete(k)) this.removed.push(k);
  }

  clear(): void {
    this.map.clear();
    this.index = KeyIndex.EMPTY;
    this.added = [];
    this.removed = [];
  }

  /** An independent store with the same entries (the value arrays are shared, as they are immutable by contract). */
  clone(): MemoryStore {
    const copy = new MemoryStore();
    for (const [k, v] of this.map) copy.map.set(k, v);
    copy.index = this.index; // safe to share: persistent
    copy.added = this.added.slice();
    copy.removed = this.removed.slice();
    return copy;
  }

  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse = false): IterableIterator<[Uint8Array, Uint8Array]> {
    // The snapshot and bounds are taken now, not at the first next(), so writes made between the call
    // and the first step do not change which keys are visited.
    const index = this.sortedKeys();
    const span = index.span(bytesToLatin1(start), end === undefined ? undefined : bytesToLatin1(end));
    return reverse ? this.walkDown(index.parts, span) : this.walkUp(index.parts, span);
  }

  // Keys deleted during the iteration are skipped; values are read as they are at each step.

  private *walkUp(chunks: readonly (readonly string[])[], [c, i, lastChunk, end]: number[]): IterableIterator<[Uint8Array, Uint8Array]> {
    for (; c <= lastChunk; c++, i = 0) {
      const chunk = chunks[c];
      for (const stop = c === lastChunk ? end : chunk.length; i < stop; i++) {
        const v = this.map.get(chunk[i]);
        if (v !== undefined) yield [latin1ToBytes(chunk[i]), v];
      }
    }
  }

  private *walkDown(chunks: readonly (readonly string[])[], [firstChunk, first, c, i]: number[]): IterableIterator<[Uint8Array, Uint8Array]> {
    // From just past the last key down to the first: i is one past the next key to visit.
    for (; c >= firstChunk; c--, i = c >= 0 ? chunks[c].length : 0) {
      const chunk = chunks[c];
      for (const stop = c === firstChunk ? first : 0; i > stop; i--) {
        const v = this.map.get(chunk[i - 1]);
        if (v !== undefined) yield [latin1ToBytes(chunk[i - 1]), v];
      }
    }
  }

  /** The sorted index, brought up to date with the keys added and removed since the last iteration. */
  private sortedKeys(): KeyIndex {
    const changes = this.added.length + this.removed.length;
    if (changes === 0) return this.index;
    let index = this.index;
    // A change copies about a chunk and the list of chunks (key-index.ts); a merge, the whole store.
    if (changes * (CHANGE_COST + index.chunkCount) > index.size + changes * 16) {
      index = KeyIndex.fromSorted(this.merged());
    } else {
      const map = this.map;
      for (const k of this.removed) if (!map.has(k)) index = index.remove(k);
      for (const k of this.added) if (map.has(k)) index = index.insert(k);
    }
    this.index = index;
    this.added = [];
    this.removed = [];
    return index;
  }

  /** Every live key, ascending: the index's keys merged with the added ones (O(n + k log k)). */
  private merged(): string[] {
    const fresh = this.added.sort();
    const old = this.index.toArray();
    const out: string[] = [];
    let i = 0;
    let j = 0;
    let last: string | undefined;
    while (i < old.length || j < fresh.length) {
      let k: string;
      if (j >= fresh.length || (i < old.length && old[i] <= fresh[j])) k = old[i++];
      else k = fresh[j++];
      // A key can be both in the index and re-added, or added twice: keep one live copy.
      if (k !== last && this.map.has(k)) out.push(k);
      last = k;
    }
    return out;
  }
}

/** What one key-by-key change of the index costs beside the chunk list, in keys copied (its chunk). */
const CHANGE_COST = 256;

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
