/**
 * Where a tree finds its saved nodes: caches shared by every tree of a multistore, then the database, read
 * synchronously (classic-level's `getSync`: the keeper's store interface is synchronous, and a tree walk is
 * a chain of point reads, so no database iterator is needed). Nodes a commit is still writing are never
 * looked up here: the working tree reaches them through its in-memory links until their batch is durable
 * (MutableTree.commitSaved).
 *
 * Two caches, in front of each other: decoded nodes (a few tens of thousands, the most recently used:
 * the top of each tree, what a block just wrote or read), then the stored forms of inner nodes in one
 * buffer (ByteCache: dense enough to hold every inner node of a store of a million keys). Leaves are
 * cached decoded only: a commit never reads one (MutableTree), so they are read for what the keeper and
 * the queries read.
 */
import { ByteCache } from "./byte-cache.js";
import { decodeNode, type Node, type Sha256 } from "./node.js";
import { CorruptStoreError, StoreStateError } from "../errors.js";

/** Reads the stored form of a saved node, synchronously; undefined when it is not there. */
export type NodeReader = (version: number, nonce: number) => Uint8Array | undefined;

/** Trees one cache can serve (their ids are packed into the cache keys). */
const MAX_TREES = 1024;

type Generation = Map<number, Map<number, Node>>;

/** What the caches and the database served, counted since the cache was made. */
export interface NodeReadStats {
  /** Decoded nodes found in the node cache. */
  cached: number;
  /** Nodes decoded from the byte cache. */
  cachedBytes: number;
  /** Nodes read from the database. */
  read: number;
}

/**
 * The caches a multistore's trees share: `capacity` decoded nodes, approximately least-recently-used (two
 * generations of at most `capacity / 2` entries each; a hit in the old generation moves the entry to the
 * young one, and when the young one is full it becomes the old one, the old one being dropped), and
 * `bytes` bytes of stored inner nodes (none if 0). Keys are numbers (by version, then nonce and tree),
 * never strings: a lookup is two Map reads.
 */
export class NodeCache {
  private young: Generation = new Map();
  private old: Generation = new Map();
  private youngSize = 0;
  private oldSize = 0;
  private readonly half: number;
  private trees = 0;
  readonly stored: ByteCache | undefined;
  readonly stats: NodeReadStats = { cached: 0, cachedBytes: 0, read: 0 };

  constructor(
    readonly capacity: number,
    bytes = 0,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 2) throw new TypeError(`node cache capacity must be an integer of at least 2, got ${capacity}`);
    this.half = Math.ceil(capacity / 2);
    this.stored = bytes > 0 ? new ByteCache(bytes) : undefined;
  }

  /** A new tree's id in this cache. */
  register(): number {
    if (this.trees >= MAX_TREES) throw new StoreStateError(`a node cache serves at most ${MAX_TREES} trees`);
    return this.trees++;
  }

  get size(): number {
    return this.youngSize + this.oldSize;
  }

  get(tree: number, version: number, nonce: number): Node | undefined {
    const k = nonce * MAX_TREES + tree;
    const hit = this.young.get(version)?.get(k);
    if (hit !== undefined) return hit;
    const byNonce = this.old.get(version);
    const aged = byNonce?.get(k);
    if (aged !== undefined) {
      byNonce!.delete(k);
      this.oldSize--;
      this.put(tree, aged);
    }
    return aged;
  }

  put(tree: number, node: Node): void {
    const k = node.nonce * MAX_TREES + tree;
    let byNonce = this.young.get(node.version);
    if (byNonce === undefined) this.young.set(node.version, (byNonce = new Map()));
    const before = byNonce.size;
    byNonce.set(k, node);
    this.youngSize += byNonce.size - before;
    if (this.youngSize >= this.half) {
      this.old = this.young;
      this.oldSize = this.youngSize;
      this.young = new Map();
      this.youngSize = 0;
    }
  }

  /** Forgets a node in both caches (a version no longer uses it: it is read from the database if needed). */
  delete(tree: number, version: number, nonce: number): void {
    const k = nonce * MAX_TREES + tree;
    const y = this.young.get(version);
    if (y?.delete(k)) this.youngSize--;
    const o = this.old.get(version);
    if (o?.delete(k)) this.oldSize--;
    this.stored?.delete(tree, version, nonce);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.youngSize = this.oldSize = 0;
    this.stored?.clear();
  }
}

export class MissingNodeError extends Error {
  override name = "MissingNodeError";
}

/** One tree's nodes. */
export class NodeDb {
  private readonly id: number;

  constructor(
    readonly sha: Sha256,
    private readonly read: NodeReader,
    private readonly cache: NodeCache,
    /** The store the tree belongs to (in messages). */
    readonly storeName: string,
  ) {
    this.id = cache.register();
  }

  /**
   * The saved node (version, nonce), whose hash is `hash` (as its parent, or its version's record, names
   * it); throws MissingNodeError when the database has no such node.
   */
  get(version: number, nonce: number, hash: Uint8Array): Node {
    const cache = this.cache;
    const node = cache.get(this.id, version, nonce);
    if (node !== undefined) {
      cache.stats.cached++;
      return node;
    }
    const stored = cache.stored?.get(this.id, version, nonce);
    let decoded: Node;
    if (stored !== undefined) {
      cache.stats.cachedBytes++;
      decoded = this.decode(version, nonce, stored, hash);
    } else {
      const bytes = this.read(version, nonce);
      if (bytes === undefined)
        throw new MissingNodeError(`node (${version}, ${nonce}) of store ${this.storeName} is missing: it was pruned, or the database is damaged`);
      cache.stats.read++;
      // As a plain Uint8Array: Node hands out Buffers, whose slice() is a view, not a copy.
      const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
      decoded = this.decode(version, nonce, view, hash);
      if (decoded.height > 0) cache.stored?.put(this.id, version, nonce, view);
    }
    cache.put(this.id, decoded);
    return decoded;
  }

  /** The node a stub stands for. */
  load(stub: Node): Node {
    return this.get(stub.version, stub.nonce, stub.hash!);
  }

  /**
   * Nodes whose batch is durable, with their stored forms: cached, the most recent being the most likely
   * to be read again.
   */
  saved(nodes: readonly Node[], stored: readonly Uint8Array[]): void {
    const cache = this.cache;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      cache.put(this.id, n);
      if (n.height > 0) cache.stored?.put(this.id, n.version, n.nonce, stored[i]);
    }
  }

  /**
   * Stored forms of saved inner nodes read ahead of need (the warm-up after open): kept in the byte cache
   * while it has room without evicting anything; false once it has none.
   */
  prefetched(keys: readonly { version: number; nonce: number }[], stored: readonly (Uint8Array | undefined)[]): boolean {
    const bytes = this.cache.stored;
    if (bytes === undefined) return false;
    for (let i = 0; i < keys.length; i++) {
      const b = stored[i];
      if (b === undefined) continue;
      if (!bytes.fits(b.length)) return false;
      bytes.put(this.id, keys[i].version, keys[i].nonce, b);
    }
    return true;
  }

  /** Nodes the latest version no longer uses (they stay in the database while a retained version does). */
  replaced(keys: readonly { version: number; nonce: number }[]): void {
    for (const k of keys) this.cache.delete(this.id, k.version, k.nonce);
  }

  private decode(version: number, nonce: number, bytes: Uint8Array, hash: Uint8Array): Node {
    try {
      return decodeNode(version, nonce, bytes, hash);
    } catch (e) {
      throw new CorruptStoreError(`corrupt node (${version}, ${nonce}) of store ${this.storeName}: ${(e as Error).message}`, { cause: e });
    }
  }
}
