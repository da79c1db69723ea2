/**
 * Where a tree finds its saved nodes: the nodes of a version being committed (held until their batch is
 * durable), then a bounded cache shared by every tree of a multistore, then the database, read
 * synchronously (classic-level's `getSync`: the keeper's store interface is synchronous, and a tree walk
 * is a chain of point reads, so no database iterator is needed).
 */
import { decodeNode, type Node, type Sha256 } from "./node.js";

/** Reads the stored form of a saved node, synchronously; undefined when it is not there. */
export type NodeReader = (version: number, nonce: number) => Uint8Array | undefined;

/**
 * A bounded cache of decoded nodes, approximately least-recently-used: two generations of at most
 * `capacity / 2` entries each; a hit in the old generation moves the entry to the young one, and when the
 * young one is full it becomes the old one (the old one is dropped).
 */
export class NodeCache {
  private young = new Map<string, Node>();
  private old = new Map<string, Node>();
  private readonly half: number;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 2) throw new TypeError(`node cache capacity must be an integer of at least 2, got ${capacity}`);
    this.half = Math.ceil(capacity / 2);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(id: string): Node | undefined {
    const hit = this.young.get(id);
    if (hit !== undefined) return hit;
    const aged = this.old.get(id);
    if (aged !== undefined) {
      this.old.delete(id);
      this.put(id, aged);
    }
    return aged;
  }

  put(id: string, node: Node): void {
    this.young.set(id, node);
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }
}

export class MissingNodeError extends Error {
  override name = "MissingNodeError";
}

/** One tree's nodes. */
export class NodeDb {
  /** Saved nodes whose batch is not durable yet, by node id. */
  private readonly pending = new Map<string, Node>();

  /** Distinguishes this tree's nodes in the shared cache. */
  private readonly cacheTag: string;

  constructor(
    readonly sha: Sha256,
    private readonly read: NodeReader,
    private readonly cache: NodeCache,
    /** The store the tree belongs to (in messages). */
    readonly storeName: string,
  ) {
    this.cacheTag = `${storeName.length}:${storeName}:`;
  }

  private id(version: number, nonce: number): string {
    return `${this.cacheTag}${version}.${nonce}`;
  }

  /** The saved node (version, nonce); throws MissingNodeError when the database has no such node. */
  get(version: number, nonce: number): Node {
    const id = this.id(version, nonce);
    const node = this.pending.get(id) ?? this.cache.get(id);
    if (node !== undefined) return node;
    const bytes = this.read(version, nonce);
    if (bytes === undefined) throw new MissingNodeError(`node (${version}, ${nonce}) of store ${this.storeName} is missing: it was pruned, or the database is damaged`);
    // As a plain Uint8Array: Node hands out Buffers, whose slice() is a view, not a copy.
    const decoded = decodeNode(this.sha, version, nonce, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
    this.cache.put(id, decoded);
    return decoded;
  }

  /** Nodes just saved, readable before their batch is written. */
  stage(nodes: readonly Node[]): void {
    for (const n of nodes) this.pending.set(this.id(n.version, n.nonce), n);
  }

  /** The batch is durable: the staged nodes move to the cache (the database has them now). */
  settle(nodes: readonly Node[]): void {
    for (const n of nodes) {
      const id = this.id(n.version, n.nonce);
      this.pending.delete(id);
      this.cache.put(id, n);
    }
  }

  /** The batch failed: the staged nodes never existed. */
  drop(nodes: readonly Node[]): void {
    for (const n of nodes) this.pending.delete(this.id(n.version, n.nonce));
  }
}
