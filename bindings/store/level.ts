/**
 * Durable stores on any abstract-level database (classic-level on Node, browser-level in a browser).
 * No Node imports here: level-node.ts and level-browser.ts pick the backend.
 *
 * The whole committed state is loaded into memory at open and the keeper is served synchronously from
 * it; writes since the last commit are buffered (a CacheStore over the committed MemoryStore) and
 * `commit` writes them in ONE atomic `db.batch()`, so after a crash a reopen shows exactly the last
 * committed state.
 */
import type { AbstractBatchOptions, AbstractLevel } from "abstract-level";
import { CacheStore } from "./cache.js";
import { toHex as hex } from "../core/errors.js";
import { type KVStore } from "../core/kv.js";
import { MemoryStore } from "./memory.js";
import { INT64_MAX } from "../go/int.js";
import type { MultiStore } from "./types.js";
import { compareBytes, concatBytes } from "../base/bytes.js";
import { CorruptStoreError, StoreFormatError, StoreStateError } from "./errors.js";

/** Any abstract-level database. Keys and values are always read and written as Uint8Array ('view'). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- its parameters go both ways: no other type takes every database
export type LevelDb = AbstractLevel<any, any, any>;

export interface DurableOptions {
  /**
   * fsync each commit (LevelDB `sync`; ignored by IndexedDB). Default true: a process crash never loses
   * a commit either way, but only a synced commit survives a power loss.
   */
  sync?: boolean;
}

type Op = { type: "put"; key: Uint8Array; value: Uint8Array } | { type: "del"; key: Uint8Array };

const VIEW = { keyEncoding: "view", valueEncoding: "view" } as const;
const EMPTY = new Uint8Array(0);

/**
 * One store's committed contents plus its uncommitted writes. Writes are refused while a commit is in
 * flight: they would land after the batch was built and be wrongly marked committed.
 */
class BufferedStore implements KVStore {
  readonly committed = new MemoryStore();
  private readonly view = new CacheStore(this.committed);
  locked = false;

  get pendingCount(): number {
    return this.view.pendingCount;
  }
  get(key: Uint8Array): Uint8Array | undefined {
    return this.view.get(key);
  }
  has(key: Uint8Array): boolean {
    return this.view.has(key);
  }
  set(key: Uint8Array, value: Uint8Array): void {
    this.writable();
    this.view.set(key, value);
  }
  delete(key: Uint8Array): void {
    this.writable();
    this.view.delete(key);
  }
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse?: boolean): IterableIterator<[Uint8Array, Uint8Array]> {
    return this.view.iterate(start, end, reverse);
  }

  /** Appends this store's pending writes as db operations, each key behind `prefix`. */
  collect(prefix: Uint8Array, ops: Op[]): void {
    for (const [k, v] of this.view.pending()) {
      const key = concatBytes(prefix, k);
      ops.push(v === undefined ? { type: "del", key } : { type: "put", key, value: v });
    }
  }
  /** The batch is durable: the pending writes become the committed state. */
  apply(): void {
    this.view.write();
  }
  discard(): void {
    this.writable();
    this.view.discard();
  }
  private writable(): void {
    if (this.locked) throw new StoreStateError("store is committing: wait for commit() before writing");
  }
}

/**
 * A single durable KVStore. Database layout: `d` ‖ key → value, and `m` → the meta bytes given to the
 * last commit (a host may keep its height there).
 */
export class DurableStore implements KVStore {
  private closed = false;

  private constructor(
    private readonly db: LevelDb,
    private readonly data: BufferedStore,
    private meta: Uint8Array | undefined,
    private readonly sync: boolean,
  ) {}

  /** Opens `db` (any abstract-level instance) and loads its committed contents. */
  static async open(db: LevelDb, options: DurableOptions = {}): Promise<DurableStore> {
    const data = new BufferedStore();
    let meta: Uint8Array | undefined;
    await load(db, (key, value) => {
      if (key[0] === D) data.committed.set(key.subarray(1), value);
      else if (key.length === 1 && key[0] === M) meta = value;
      else throw new StoreFormatError(`not a DurableStore database: unexpected key 0x${hex(key)}`);
    });
    return new DurableStore(db, data, meta, options.sync ?? true);
  }

  /** The meta bytes of the last commit, if any. */
  get committedMeta(): Uint8Array | undefined {
    return this.meta;
  }
  /** Number of keys written or deleted since the last commit. */
  get pendingCount(): number {
    return this.data.pendingCount;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return this.data.get(key);
  }
  has(key: Uint8Array): boolean {
    return this.data.has(key);
  }
  set(key: Uint8Array, value: Uint8Array): void {
    this.data.set(key, value);
  }
  delete(key: Uint8Array): void {
    this.data.delete(key);
  }
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse?: boolean): IterableIterator<[Uint8Array, Uint8Array]> {
    return this.data.iterate(start, end, reverse);
  }

  /** Writes every pending change (and `meta`, when given) in one atomic batch. */
  async commit(meta?: Uint8Array): Promise<void> {
    if (this.closed) throw new StoreStateError("store is closed");
    const ops: Op[] = [];
    this.data.collect(DATA_PREFIX, ops);
    if (meta !== undefined) ops.push({ type: "put", key: META_KEY, value: meta });
    await atomically(this.db, ops, this.sync, [this.data]);
    this.data.apply();
    if (meta !== undefined) this.meta = meta;
  }

  /** Drops every uncommitted change: the store shows the last committed state again. */
  rollback(): void {
    this.data.discard();
  }

  /** Closes the database; uncommitted changes are lost. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }
}

/**
 * Named durable stores in one database, committed together with a block height (a multistore).
 *
 * Database layout (every key starts with a tag byte, so the parts cannot collide):
 * - `h` → BE64 last committed height (absent: 0, a fresh chain);
 * - `r` ‖ utf8(name) → BE64 height of the store's first commit: the store exists (has a committed
 *   version) even when it holds no keys;
 * - `s` ‖ BE16(byte length of name) ‖ utf8(name) ‖ key → value: the length prefix keeps `a`+`bc` and
 *   `ab`+`c` apart.
 *
 * Every mounted store (one handed out by `store(name)`) is registered by the next commit; a deleted store
 * is unregistered by it. Deletes and renames are pending writes like any other.
 */
export class DurableMultiStore implements MultiStore {
  private readonly stores = new Map<string, BufferedStore>();
  private readonly mounted = new Set<string>();
  /** Registered stores: name → height of first commit. */
  private readonly registry = new Map<string, bigint>();
  /** Stores deleted since the last commit → whether they were mounted (restored by rollback). */
  private readonly deleted = new Map<string, boolean>();
  private height = 0n;
  private committing = false;
  private closed = false;

  private constructor(
    private readonly db: LevelDb,
    private readonly sync: boolean,
  ) {}

  /** Opens `db` (any abstract-level instance) and loads every store's committed contents. */
  static async open(db: LevelDb, options: DurableOptions = {}): Promise<DurableMultiStore> {
    const ms = new DurableMultiStore(db, options.sync ?? true);
    await load(db, (key, value) => {
      if (key.length === 1 && key[0] === H) ms.height = readBE64(value, key);
      else if (key[0] === R && key.length > 1) ms.registry.set(utf8Decode(key.subarray(1)), readBE64(value, key));
      else if (key[0] === S && key.length >= 3) {
        const n = (key[1] << 8) | key[2];
        if (key.length < 3 + n) throw new CorruptStoreError(`corrupt multistore key 0x${hex(key)}`);
        ms.layer(utf8Decode(key.subarray(3, 3 + n))).committed.set(key.subarray(3 + n), value);
      } else throw new StoreFormatError(`not a multistore database: unexpected key 0x${hex(key)}`);
    });
    return ms;
  }

  /** Height of the last commit; 0n for a fresh database. */
  get lastCommittedHeight(): bigint {
    return this.height;
  }

  /** The named store, mounting it (the next commit registers it). Repeated calls return the same store. */
  store(name: string): KVStore {
    this.mounted.add(checkName(name));
    return this.layer(name);
  }

  /** Mounted store names in byte order. */
  mountedStores(): string[] {
    return sortNames(this.mounted);
  }

  /** Stores that exist as of the last commit (registered), in byte order. */
  committedStores(): string[] {
    return sortNames(this.registry.keys());
  }

  /** Whether the store exists as of the last commit. */
  hasCommittedStore(name: string): boolean {
    return this.registry.has(name);
  }

  /** Number of pending key changes across all stores. */
  get pendingCount(): number {
    let n = 0;
    for (const s of this.stores.values()) n += s.pendingCount;
    return n;
  }

  /** Whether a key or a store was written or deleted since the last commit. */
  get hasPendingChanges(): boolean {
    return this.pendingCount > 0 || this.deleted.size > 0;
  }

  /** Removes a store and all its data, unmounting it (pending until commit). */
  deleteStore(name: string): void {
    this.notCommitting();
    checkName(name);
    const s = this.layer(name);
    for (const [k] of s.iterate(EMPTY, undefined)) s.delete(k);
    if (!this.deleted.has(name)) this.deleted.set(name, this.mounted.has(name));
    this.mounted.delete(name);
  }

  /** Moves a store's data under a new name (which is mounted and emptied first); the old store is deleted. */
  renameStore(oldName: string, newName: string): void {
    this.notCommitting();
    checkName(oldName);
    if (oldName === checkName(newName)) throw new TypeError(`cannot rename store ${oldName} to itself`);
    const src = this.layer(oldName);
    const dst = this.store(newName);
    for (const [k] of dst.iterate(EMPTY, undefined)) dst.delete(k);
    for (const [k, v] of src.iterate(EMPTY, undefined)) dst.set(k, v);
    this.deleteStore(oldName);
  }

  /** Atomically writes every store's pending changes, the registry changes and the new height. */
  async commit(height: bigint | number): Promise<void> {
    if (this.closed) throw new StoreStateError("store is closed");
    this.notCommitting();
    const h = toHeight(height);
    if (h <= this.height) throw new TypeError(`commit height ${h} must be greater than the last committed height ${this.height}`);
    const ops: Op[] = [];
    // Only these stores' writes are in the batch; a store first opened during the commit keeps its
    // writes pending for the next one.
    const stores = [...this.stores];
    for (const [name, s] of stores) s.collect(dataPrefix(name), ops);
    const register = [...this.mounted].filter((n) => !this.registry.has(n));
    for (const n of register) ops.push({ type: "put", key: registryKey(n), value: be64(h) });
    const unregister = [...this.deleted.keys()].filter((n) => !this.mounted.has(n) && this.registry.has(n));
    for (const n of unregister) ops.push({ type: "del", key: registryKey(n) });
    ops.push({ type: "put", key: HEIGHT_KEY, value: be64(h) });

    this.committing = true;
    try {
      await atomically(
        this.db,
        ops,
        this.sync,
        stores.map(([, s]) => s),
      );
    } finally {
      this.committing = false;
    }
    for (const [, s] of stores) s.apply();
    for (const n of register) this.registry.set(n, h);
    for (const n of unregister) this.registry.delete(n);
    this.deleted.clear();
    this.height = h;
  }

  /** Drops every uncommitted change, including store deletes and renames (deleted stores are remounted). */
  rollback(): void {
    this.notCommitting();
    for (const s of this.stores.values()) s.discard();
    for (const [name, wasMounted] of this.deleted) if (wasMounted) this.mounted.add(name);
    this.deleted.clear();
  }

  /** Closes the database; uncommitted changes are lost. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  /** Store deletes, renames and rollbacks would race the batch being written. */
  private notCommitting(): void {
    if (this.committing) throw new StoreStateError("a commit is in flight: wait for commit() first");
  }

  private layer(name: string): BufferedStore {
    let s = this.stores.get(name);
    if (!s) this.stores.set(name, (s = new BufferedStore()));
    return s;
  }
}

/** Writes `ops` in one batch, refusing writes to `stores` meanwhile. */
async function atomically(db: LevelDb, ops: Op[], sync: boolean, stores: Iterable<BufferedStore>): Promise<void> {
  const locked = [...stores];
  for (const s of locked) {
    if (s.locked) throw new StoreStateError("a commit is already in flight");
  }
  for (const s of locked) s.locked = true;
  try {
    // `sync` is a classic-level batch option; other backends ignore it.
    await db.batch(ops, { ...VIEW, sync } as AbstractBatchOptions<Uint8Array, Uint8Array>);
  } finally {
    for (const s of locked) s.locked = false;
  }
}

/**
 * Opens `db` and feeds every entry to `fn`, in key order, as plain Uint8Arrays (Node hands out pooled
 * Buffers). Closes the db again if that fails, so a refused database is not left open.
 */
async function load(db: LevelDb, fn: (key: Uint8Array, value: Uint8Array) => void): Promise<void> {
  await db.open();
  try {
    const it = db.iterator(VIEW);
    try {
      for (;;) {
        const batch: [Uint8Array, Uint8Array][] = await it.nextv(1000);
        if (batch.length === 0) break;
        for (const [k, v] of batch) fn(new Uint8Array(k), new Uint8Array(v));
      }
    } finally {
      await it.close();
    }
  } catch (err) {
    await db.close();
    throw err;
  }
}

const D = 0x64; // 'd'
const M = 0x6d; // 'm'
const H = 0x68; // 'h'
const R = 0x72; // 'r'
const S = 0x73; // 's'
const DATA_PREFIX = Uint8Array.of(D);
const META_KEY = Uint8Array.of(M);
const HEIGHT_KEY = Uint8Array.of(H);

function dataPrefix(name: string): Uint8Array {
  const n = utf8Encode(name);
  const out = new Uint8Array(3 + n.length);
  out[0] = S;
  out[1] = n.length >> 8;
  out[2] = n.length & 0xff;
  out.set(n, 3);
  return out;
}

function registryKey(name: string): Uint8Array {
  return concatBytes(Uint8Array.of(R), utf8Encode(name));
}

function checkName(name: string): string {
  if (typeof name !== "string" || name === "") throw new TypeError("store name must be a non-empty string");
  if (utf8Encode(name).length > 0xffff) throw new TypeError("store name is longer than 65535 bytes");
  return name;
}

/** A height as bigint: a bigint or safe integer in [1, 2^63−1], else TypeError. */
export function toHeight(h: bigint | number): bigint {
  if (typeof h === "number") {
    if (!Number.isSafeInteger(h)) throw new TypeError(`height must be a safe integer, got ${h}`);
    h = BigInt(h);
  } else if (typeof h !== "bigint") throw new TypeError("height must be a bigint or a number");
  if (h < 1n || h > INT64_MAX) throw new TypeError(`height must be in [1, 2^63-1], got ${h}`);
  return h;
}

function sortNames(names: Iterable<string>): string[] {
  // UTF-8 byte order, not UTF-16 order: they differ above U+FFFF.
  return [...names].sort((a, b) => compareBytes(utf8Encode(a), utf8Encode(b)));
}

function be64(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v);
  return out;
}

function readBE64(v: Uint8Array, key: Uint8Array): bigint {
  if (v.length !== 8) throw new CorruptStoreError(`corrupt multistore value at key 0x${hex(key)}: ${v.length} bytes, expected 8`);
  return new DataView(v.buffer, v.byteOffset, 8).getBigUint64(0);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encode = (s: string) => encoder.encode(s);
const utf8Decode = (b: Uint8Array) => decoder.decode(b);
