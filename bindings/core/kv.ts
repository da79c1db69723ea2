/**
 * The synchronous key-value store the keeper runs on. Keys and values are raw bytes; iteration is in
 * unsigned byte order over the half-open range [start, end). Callers must not mutate returned arrays, and
 * implementations must not keep the key array passed to `get`/`has` (it may be a view of wasm memory);
 * `set` and `delete` receive arrays they may keep.
 */
export interface KVStore {
  get(key: Uint8Array): Uint8Array | undefined;
  has(key: Uint8Array): boolean;
  set(key: Uint8Array, value: Uint8Array): void;
  delete(key: Uint8Array): void;
  /** Entries with start <= key < end (end undefined: to the end), ascending, or descending when reverse. */
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse?: boolean): IterableIterator<[Uint8Array, Uint8Array]>;
}

/** The end of the prefix range [prefix, prefixEnd(prefix)): the prefix plus one, or undefined for 0xff…ff. */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  const end = prefix.slice();
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] !== 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return undefined;
}
