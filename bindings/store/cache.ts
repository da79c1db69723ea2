import { type KVStore } from "../core/kv.js";
import { MemoryStore } from "./memory.js";
import { compareBytes } from "../base/bytes.js";

/** Marks a buffered delete; compared by identity, never handed out. */
const TOMBSTONE = new Uint8Array(0);

/**
 * A cache-wrap over any KVStore (Cosmos' cachekv): reads fall through to the parent unless the key was
 * written or deleted here; writes and deletes are buffered until `write()` flushes them to the parent
 * (in key order) or `discard()` drops them. Iteration merges both layers in byte order, either direction.
 * Wrapping a CacheStore in another CacheStore nests as expected.
 */
export class CacheStore implements KVStore {
  /** Buffered writes; a TOMBSTONE value is a buffered delete. */
  private readonly buffer = new MemoryStore();

  constructor(readonly parent: KVStore) {}

  /** Number of buffered writes and deletes. */
  get pendingCount(): number {
    return this.buffer.size;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const v = this.buffer.get(key);
    if (v === TOMBSTONE) return undefined;
    return v !== undefined ? v : this.parent.get(key);
  }

  has(key: Uint8Array): boolean {
    const v = this.buffer.get(key);
    if (v === TOMBSTONE) return false;
    return v !== undefined || this.parent.has(key);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    this.buffer.set(key, value);
  }

  delete(key: Uint8Array): void {
    this.buffer.set(key, TOMBSTONE);
  }

  /** The buffered changes in ascending key order: a value, or undefined for a delete. */
  *pending(): IterableIterator<[Uint8Array, Uint8Array | undefined]> {
    for (const [k, v] of this.buffer.iterate(EMPTY, undefined)) yield [k, v === TOMBSTONE ? undefined : v];
  }

  /** Flushes the buffered changes to the parent in ascending key order, then empties the cache. */
  write(): void {
    // Clear only after the parent took everything: if the parent throws midway the changes stay buffered
    // and a retry re-applies them (writes are idempotent).
    for (const [k, v] of this.pending()) {
      if (v === undefined) this.parent.delete(k);
      else this.parent.set(k, v);
    }
    this.buffer.clear();
  }

  /** Drops every buffered change. */
  discard(): void {
    this.buffer.clear();
  }

  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse = false): IterableIterator<[Uint8Array, Uint8Array]> {
    // Both iterators are created now so their snapshots are taken at call time.
    return this.merge(this.parent.iterate(start, end, reverse), this.buffer.iterate(start, end, reverse), reverse);
  }

  private *merge(
    parentIt: Iterator<[Uint8Array, Uint8Array]>,
    cacheIt: Iterator<[Uint8Array, Uint8Array]>,
    reverse: boolean,
  ): IterableIterator<[Uint8Array, Uint8Array]> {
    const dir = reverse ? -1 : 1;
    let p = parentIt.next();
    let c = cacheIt.next();
    while (!p.done || !c.done) {
      const order = p.done ? 1 : c.done ? -1 : dir * compareBytes(p.value[0], c.value[0]);
      let key: Uint8Array;
      if (order < 0) {
        key = p.value![0];
        p = parentIt.next();
      } else {
        if (order === 0) p = parentIt.next(); // the cache shadows the parent's entry
        key = c.value![0];
        c = cacheIt.next();
      }
      // Both iterators read one entry ahead: look the key up again so writes and deletes made since
      // (to either layer) are honoured.
      const value = this.get(key);
      if (value !== undefined) yield [key, value];
    }
  }
}

const EMPTY = new Uint8Array(0);
