/**
 * Where a tree finds its saved nodes: a bounded cache shared by every tree of a multistore, then the
 * database, read synchronously (classic-level's `getSync`: the keeper's store interface is synchronous,
 * and a tree walk is a chain of point reads, so no database iterator is needed). Nodes a commit is still
 * writing are never looked up here: the working tree reaches them through its in-memory links until
 * their batch is durable (MutableTree.commitSaved).
 */
import { decodeNode, type Node, type Sha256 } from "./node.js";

/** Reads the stored form of a saved node, synchronously; undefined when it is not there. */
export type NodeReader = (version: number, nonce: number) => Uint8Array | undefined;

/** Trees one cache can serve (their ids are packed into the cache keys). */
const MAX_TREES = 1024;

type Generation = Map<number, Map<number, Node>>;

/**
 * A bounded cache of decoded nodes, approximately least-recently-used: two generations of at most
 * `capacity / 2` entries each; a hit in the old generation moves the entry to the young one, and when the
 * young one is full it becomes the old one (the old one is dropped). Keys are numbers (by version, then
 * nonce and tree), never strings: a lookup is two Map reads.
 */
export class NodeCache {
  private young: Generation = new Map();
  private old: Generation = new Map();
  private youngSize = 0;
  private oldSize = 0;
  private readonly half: number;
  private trees = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 2) throw new TypeError(`node cache capacity must be an integer of at least 2, got ${capacity}`);
    this.half = Math.ceil(capacity / 2);
  }

  /** A new tree's id in this cache. */
  register(): number {
    if (this.trees >= MAX_TREES) throw new Error(`a node cache serves at most ${MAX_TREES} trees`);
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

  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.youngSize = this.oldSize = 0;
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

  /** The saved node (version, nonce); throws MissingNodeError when the database has no such node. */
  get(version: number, nonce: number): Node {
    const node = this.cache.get(this.id, version, nonce);
    if (node !== undefined) return node;
    const bytes = this.read(version, nonce);
    if (bytes === undefined) throw new MissingNodeError(`node (${version}, ${nonce}) of store ${this.storeName} is missing: it was pruned, or the database is damaged`);
    // As a plain Uint8Array: Node hands out Buffers, whose slice() is a view, not a copy.
    const decoded = decodeNode(version, nonce, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
    this.cache.put(this.id, decoded);
    return decoded;
  }

  /** Nodes whose batch is durable: cached, the most recent being the most likely to be read again. */
  saved(nodes: readonly Node[]): void {
    for (const n of nodes) this.cache.put(this.id, n);
  }
}
