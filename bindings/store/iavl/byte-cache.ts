/**
 * A bounded cache of byte strings named by (tree, version, nonce) — the stored forms of inner nodes — in
 * one buffer allocated up front. It holds four to five times more nodes per megabyte than decoded nodes
 * do (an inner node with a 26-byte key takes 132 bytes here, about 600 as a decoded object), and gives the
 * garbage collector nothing to trace, so that the inner nodes of a large tree can all stay in memory while
 * its leaves stay on disk (docs/spec/store.md §6).
 *
 * The buffer starts small and doubles, up to the capacity, while live entries fill more than `KEEP_ALL`
 * of it. It is a log written in a circle. An entry is appended at the head; room is made at the tail,
 * where each entry is dropped if it was deleted, moved to the head if it is still wanted, else evicted
 * (CLOCK): an entry is still wanted if it was read since it was last moved, or — while live entries fill
 * at most `KEEP_ALL` of the buffer — in any case. An open-addressing table (linear probing, deletion by
 * backward shift) finds an entry by its name.
 *
 * Entry (4-byte aligned): i32 length ‖ i32 tree | read flag ‖ u32 nonce ‖ u32 version ‖ the bytes. A length
 * of -1 marks the end of the log before it wraps around.
 */

const HEADER = 16;
const WRAP = -1;
const READ = 1 << 16;
const TREE_MASK = 0xffff;
/** While live entries fill at most this share of the buffer, the tail moves every live entry forward. */
const KEEP_ALL = 0.75;
const MAX_U32 = 0xffff_ffff;

const align4 = (n: number) => (n + 3) & ~3;

function hash(tree: number, version: number, nonce: number): number {
  let h = Math.imul(nonce | 0, 0x9e3779b1) ^ Math.imul(version | 0, 0x85ebca6b) ^ Math.imul(tree + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  return h ^ (h >>> 15);
}

const INITIAL = 1 << 20;

export class ByteCache {
  private buf: Uint8Array;
  private words: Int32Array;
  /** Bytes of the buffer now, and at most. */
  private capacity: number;
  private readonly maxCapacity: number;
  /** Where the next entry goes; the oldest entry; bytes from tail to head (the unused end before a wrap included). */
  private head = 0;
  private tail = 0;
  private used = 0;
  /** Bytes and number of the entries the index names. */
  private liveBytes = 0;
  private count = 0;
  private slots!: Int32Array;
  private mask = 0;
  private maxCount = 0;
  private readonly maxEntry: number;

  /** @param capacity bytes the buffer may grow to (entries larger than an eighth of it are not kept) */
  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 4096 || capacity > 2 ** 31) {
      throw new TypeError(`byte cache capacity must be an integer from 4096 to 2^31, got ${capacity}`);
    }
    this.maxCapacity = capacity & ~3;
    this.capacity = Math.min(INITIAL, this.maxCapacity);
    this.buf = new Uint8Array(this.capacity);
    this.words = new Int32Array(this.buf.buffer);
    this.maxEntry = Math.floor(this.maxCapacity / 8);
    this.makeSlots();
  }

  /** Bytes of the buffer allocated now. */
  get allocated(): number {
    return this.capacity;
  }

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  /** Bytes the held entries take (headers included). */
  get bytes(): number {
    return this.liveBytes;
  }

  /** Whether an entry of `length` bytes fits without evicting any (the buffer may still have to grow). */
  fits(length: number): boolean {
    return this.liveBytes + HEADER + align4(length) <= this.maxCapacity * KEEP_ALL;
  }

  /** The bytes named (tree, version, nonce): a view that stays valid until the next `put`. */
  get(tree: number, version: number, nonce: number): Uint8Array | undefined {
    const i = this.find(tree, version, nonce);
    if (i < 0) return undefined;
    const w = this.slots[i] - 1;
    this.words[w + 1] |= READ;
    const at = (w << 2) + HEADER;
    return this.buf.subarray(at, at + this.words[w]);
  }

  has(tree: number, version: number, nonce: number): boolean {
    return this.find(tree, version, nonce) >= 0;
  }

  /** Keeps a copy of `bytes` under (tree, version, nonce), unless it is there already or too large. */
  put(tree: number, version: number, nonce: number, bytes: Uint8Array): void {
    if (bytes.length > this.maxEntry || version > MAX_U32 || nonce > MAX_U32 || tree > TREE_MASK) return;
    if (this.find(tree, version, nonce) >= 0) return;
    const size = HEADER + align4(bytes.length);
    const at = this.reserve(size);
    const w = at >> 2;
    this.words[w] = bytes.length;
    this.words[w + 1] = tree;
    this.words[w + 2] = nonce | 0;
    this.words[w + 3] = version | 0;
    this.buf.set(bytes, at + HEADER);
    this.head = at + size;
    this.used += size;
    this.liveBytes += size;
    this.count++;
    let i = hash(tree, version, nonce) & this.mask;
    while (this.slots[i] !== 0) i = (i + 1) & this.mask;
    this.slots[i] = w + 1;
  }

  /** Forgets (tree, version, nonce); its bytes are reclaimed when the tail passes them. */
  delete(tree: number, version: number, nonce: number): void {
    const i = this.find(tree, version, nonce);
    if (i < 0) return;
    this.liveBytes -= HEADER + align4(this.words[this.slots[i] - 1]);
    this.count--;
    this.removeSlot(i);
  }

  clear(): void {
    this.capacity = Math.min(INITIAL, this.maxCapacity);
    this.buf = new Uint8Array(this.capacity);
    this.words = new Int32Array(this.buf.buffer);
    this.makeSlots();
    this.head = this.tail = this.used = this.liveBytes = this.count = 0;
  }

  // ---- internals ----

  /** A slot per 64 bytes of buffer, at most three quarters used: an entry is rarely smaller than 64 bytes. */
  private makeSlots(): void {
    let slots = 16;
    while (slots < this.capacity / 64) slots *= 2;
    this.slots = new Int32Array(slots);
    this.mask = slots - 1;
    this.maxCount = Math.floor(slots * 0.75);
  }

  /** Doubles the buffer (up to the capacity), copying the live entries in their order to its start. */
  private grow(): void {
    const old = this.buf;
    const oldWords = this.words;
    const entries: number[] = [];
    for (let t = this.tail, left = this.used; left > 0;) {
      if (t === this.capacity || oldWords[t >> 2] === WRAP) {
        left -= this.capacity - t;
        t = 0;
        continue;
      }
      const size = HEADER + align4(oldWords[t >> 2]);
      if (this.slotOf(t >> 2) >= 0) entries.push(t);
      t += size;
      left -= size;
    }
    this.capacity = Math.min(this.capacity * 2, this.maxCapacity);
    this.buf = new Uint8Array(this.capacity);
    this.words = new Int32Array(this.buf.buffer);
    this.makeSlots();
    let head = 0;
    for (const t of entries) {
      const size = HEADER + align4(oldWords[t >> 2]);
      this.buf.set(old.subarray(t, t + size), head);
      const w = head >> 2;
      let i = hash(this.words[w + 1] & TREE_MASK, this.words[w + 3] >>> 0, this.words[w + 2] >>> 0) & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
      this.slots[i] = w + 1;
      head += size;
    }
    this.head = head;
    this.tail = 0;
    this.used = head;
  }

  private find(tree: number, version: number, nonce: number): number {
    if (version > MAX_U32 || nonce > MAX_U32) return -1;
    const v = version | 0;
    const n = nonce | 0;
    let i = hash(tree, version, nonce) & this.mask;
    for (;;) {
      const s = this.slots[i];
      if (s === 0) return -1;
      const w = s - 1;
      if (this.words[w + 2] === n && this.words[w + 3] === v && (this.words[w + 1] & TREE_MASK) === tree) return i;
      i = (i + 1) & this.mask;
    }
  }

  /** The slot naming the entry at word `w`, or -1 when the entry was deleted. */
  private slotOf(w: number): number {
    const words = this.words;
    let i = hash(words[w + 1] & TREE_MASK, words[w + 3] >>> 0, words[w + 2] >>> 0) & this.mask;
    for (;;) {
      const s = this.slots[i];
      if (s === 0) return -1;
      if (s === w + 1) return i;
      i = (i + 1) & this.mask;
    }
  }

  private removeSlot(i: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = slots[j];
      if (s === 0) break;
      const w = s - 1;
      const k = hash(this.words[w + 1] & TREE_MASK, this.words[w + 3] >>> 0, this.words[w + 2] >>> 0) & mask;
      // The entry in j may move back to i unless its home slot lies cyclically in (i, j].
      if (i <= j ? k <= i || k > j : k <= i && k > j) {
        slots[i] = s;
        i = j;
      }
    }
    slots[i] = 0;
  }

  /** Contiguous free bytes at the head (wrapping first when only the start of the buffer has room), or -1. */
  private room(size: number): number {
    if (this.used === 0) this.head = this.tail = 0;
    const full = this.used > 0 && this.head === this.tail;
    if (full) return -1;
    if (this.head > this.tail || this.used === 0) {
      if (this.capacity - this.head >= size) return this.head;
      if (this.tail >= size) {
        if (this.head < this.capacity) this.words[this.head >> 2] = WRAP;
        this.used += this.capacity - this.head;
        this.head = 0;
        return 0;
      }
      return -1;
    }
    return this.tail - this.head >= size ? this.head : -1;
  }

  /** Where `size` bytes can be written, after making room at the tail. */
  private reserve(size: number): number {
    while (this.capacity < this.maxCapacity && this.liveBytes + size > this.capacity * KEEP_ALL) this.grow();
    for (;;) {
      if (this.count < this.maxCount) {
        const at = this.room(size);
        if (at >= 0) return at;
      }
      this.advanceTail();
    }
  }

  /** Drops, moves forward or evicts the entry at the tail. */
  private advanceTail(): void {
    const t = this.tail;
    if (t === this.capacity || this.words[t >> 2] === WRAP) {
      this.used -= this.capacity - t;
      this.tail = 0;
      return;
    }
    const w = t >> 2;
    const len = this.words[w];
    const size = HEADER + align4(len);
    const i = this.slotOf(w);
    this.used -= size;
    this.tail = t + size;
    if (this.tail === this.capacity) this.tail = 0;
    if (i < 0) return; // deleted
    const wanted = this.count < this.maxCount && ((this.words[w + 1] & READ) !== 0 || this.liveBytes <= this.capacity * KEEP_ALL);
    // The entry's own bytes count as free now but are still intact (room() writes nothing over them), and
    // copyWithin moves overlapping ranges correctly.
    const at = wanted ? this.room(size) : -1;
    if (at >= 0) {
      this.buf.copyWithin(at, t, t + size);
      this.words[(at >> 2) + 1] &= ~READ;
      this.slots[i] = (at >> 2) + 1;
      this.head = at + size;
      this.used += size;
      return;
    }
    this.liveBytes -= size;
    this.count--;
    this.removeSlot(i);
  }
}
