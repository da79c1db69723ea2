/**
 * A persistent sorted set of strings, for MemoryStore's key order: a sorted list of sorted chunks. Every
 * change returns a new index and leaves the old one as it was, so an iterator walks the snapshot it was
 * given while the store goes on changing. A change copies one chunk and the list of chunks — a few
 * hundred pointers whatever the size — where one sorted array would be copied or merged whole: with
 * 10,000 done records that merge was most of an upgrade's cost.
 */

/** Keys per chunk when an index is built; a chunk that grows past twice this is split in two. */
const CHUNK = 256;

const EMPTY_CHUNKS: readonly (readonly string[])[] = [];

export class KeyIndex {
  static readonly EMPTY = new KeyIndex(EMPTY_CHUNKS, 0);

  private constructor(
    /** Non-empty sorted chunks; every key of a chunk is below every key of the next one. */
    private readonly chunks: readonly (readonly string[])[],
    readonly size: number,
  ) {}

  /** The index of keys that are already sorted and distinct. */
  static fromSorted(keys: readonly string[]): KeyIndex {
    if (keys.length === 0) return KeyIndex.EMPTY;
    const chunks: string[][] = [];
    for (let i = 0; i < keys.length; i += CHUNK) chunks.push(keys.slice(i, i + CHUNK));
    return new KeyIndex(chunks, keys.length);
  }

  /** How many chunks hold the keys (what one insert or remove copies, beside one chunk). */
  get chunkCount(): number {
    return this.chunks.length;
  }

  /** Every key, ascending. */
  toArray(): string[] {
    const out: string[] = [];
    for (const chunk of this.chunks) for (const k of chunk) out.push(k);
    return out;
  }

  /** The index with `key` added (this one when it is already there). */
  insert(key: string): KeyIndex {
    const chunks = this.chunks;
    if (chunks.length === 0) return new KeyIndex([[key]], 1);
    const c = Math.max(0, chunkOf(chunks, key));
    const chunk = chunks[c];
    const i = lowerBound(chunk, key);
    if (chunk[i] === key) return this;
    const grown = chunk.slice(0, i);
    grown.push(key);
    for (let j = i; j < chunk.length; j++) grown.push(chunk[j]);
    const next = chunks.slice();
    if (grown.length > 2 * CHUNK) next.splice(c, 1, grown.slice(0, CHUNK), grown.slice(CHUNK));
    else next[c] = grown;
    return new KeyIndex(next, this.size + 1);
  }

  /** The index without `key` (this one when it is not there). */
  remove(key: string): KeyIndex {
    const chunks = this.chunks;
    const c = chunkOf(chunks, key);
    if (c < 0) return this;
    const chunk = chunks[c];
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return this;
    const next = chunks.slice();
    if (chunk.length === 1) next.splice(c, 1);
    else next[c] = chunk.slice(0, i).concat(chunk.slice(i + 1));
    return new KeyIndex(next, this.size - 1);
  }

  /** The sorted chunks (read-only), for a caller that walks them (MemoryStore, with span()). */
  get parts(): readonly (readonly string[])[] {
    return this.chunks;
  }

  /**
   * Where the keys k with lo <= k < hi (hi undefined: no upper bound) are: [chunk, offset] of the first of
   * them, then [chunk, offset] just past the last, as a 4-tuple; the two positions are equal when there is
   * none. Positions run from [0, 0] to [chunkCount - 1, length of the last chunk].
   */
  span(lo: string, hi: string | undefined): [number, number, number, number] {
    const chunks = this.chunks;
    if (chunks.length === 0) return [0, 0, 0, 0];
    const c = Math.max(0, chunkOf(chunks, lo));
    const i = lowerBound(chunks[c], lo);
    if (hi === undefined) return [c, i, chunks.length - 1, chunks[chunks.length - 1].length];
    const d = Math.max(0, chunkOf(chunks, hi));
    const j = lowerBound(chunks[d], hi);
    // lo >= hi: an empty span at lo's position.
    return d < c || (d === c && j < i) ? [c, i, c, i] : [c, i, d, j];
  }
}

/** The last chunk whose first key is <= key; -1 when key is below every key. */
function chunkOf(chunks: readonly (readonly string[])[], key: string): number {
  let lo = 0;
  let hi = chunks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (chunks[mid][0] <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** First index whose key is >= target. */
export function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
