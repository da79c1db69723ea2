/**
 * The IAVL+ tree (cosmos/iavl v1 `mutable_tree.go`, `immutable_tree.go`): a balanced binary tree whose
 * leaves hold the entries in key order, versioned by path copying. A change copies the nodes on its
 * path (O(log n) of them) and leaves every other node shared with the versions before, so a saved
 * version is an immutable snapshot named by its root, and a commit writes only the copied nodes.
 *
 * Insertion, removal and rebalancing follow cosmos/iavl step by step, so the same operations in the same
 * order give the same shape, node versions and root hash as the reference (test/store/iavl/vectors.json
 * comes from it). The nodes a version replaces are its orphans: they are kept as long as an older version
 * that uses them is, and pruned with it (docs/spec/store.md §3).
 */
import { HASH_SIZE, hashOf, innerHash, leafHash, Node, type Sha256 } from "./node.js";
import type { NodeDb } from "./node-db.js";
import { compareBytes } from "../../base/bytes.js";

/** A saved node's name. */
export interface NodeKey {
  version: number;
  nonce: number;
}

/** What `MutableTree.save` produced, for the caller to write in its batch. */
export interface SavedVersion {
  version: number;
  root: Node | undefined;
  /** The root hash; sha256 of nothing for an empty tree (as cosmos/iavl). */
  hash: Uint8Array;
  /** Nodes created by this version, keyed and hashed. */
  nodes: Node[];
  /** Saved nodes this version no longer uses. */
  orphans: NodeKey[];
}

const EMPTY = new Uint8Array(0);

export function emptyHash(sha: Sha256): Uint8Array {
  return sha(EMPTY);
}

/** A child of `node` (the in-memory one of an unsaved node, else read by node key). */
function childOf(ndb: NodeDb, node: Node, side: "left" | "right"): Node {
  if (side === "left") return node.left ?? ndb.get(node.leftVersion, node.leftNonce);
  return node.right ?? ndb.get(node.rightVersion, node.rightNonce);
}

/** Read operations on the tree under `root` (any version, saved or not). */
export class TreeReader {
  constructor(
    readonly ndb: NodeDb,
    readonly root: Node | undefined,
  ) {}

  left(node: Node): Node {
    return childOf(this.ndb, node, "left");
  }
  right(node: Node): Node {
    return childOf(this.ndb, node, "right");
  }

  get size(): number {
    return this.root?.size ?? 0;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    let n = this.root;
    if (n === undefined) return undefined;
    while (!n.isLeaf) n = compareBytes(key, n.key) < 0 ? this.left(n) : this.right(n);
    return compareBytes(n.key, key) === 0 ? n.value : undefined;
  }

  has(key: Uint8Array): boolean {
    return this.get(key) !== undefined;
  }

  /**
   * The number of keys below `key` (its index if present) and its value (cosmos/iavl `GetWithIndex`).
   */
  getWithIndex(key: Uint8Array): { index: number; value: Uint8Array | undefined } {
    let n = this.root;
    if (n === undefined) return { index: 0, value: undefined };
    let index = 0;
    while (!n.isLeaf) {
      if (compareBytes(key, n.key) < 0) n = this.left(n);
      else {
        const right = this.right(n);
        index += n.size - right.size;
        n = right;
      }
    }
    const c = compareBytes(n.key, key);
    if (c < 0) return { index: index + 1, value: undefined };
    return { index, value: c === 0 ? n.value : undefined };
  }

  /** The entry at `index` in key order, or undefined past the end. */
  getByIndex(index: number): [Uint8Array, Uint8Array] | undefined {
    let n = this.root;
    if (n === undefined || index < 0 || index >= n.size) return undefined;
    while (!n.isLeaf) {
      const left = this.left(n);
      if (index < left.size) n = left;
      else {
        index -= left.size;
        n = this.right(n);
      }
    }
    return [n.key, n.value!];
  }

  /** Entries with start <= key < end (end undefined: to the end), ascending or descending. */
  *iterate(start: Uint8Array, end: Uint8Array | undefined, reverse = false): IterableIterator<[Uint8Array, Uint8Array]> {
    let n = this.root;
    if (n === undefined) return;
    // Inner nodes still to turn back to: their other subtree is not visited yet.
    const stack: Node[] = [];
    if (!reverse) {
      while (!n.isLeaf) {
        if (compareBytes(start, n.key) < 0) {
          stack.push(n);
          n = this.left(n);
        } else n = this.right(n);
      }
      for (;;) {
        if (end !== undefined && compareBytes(n.key, end) >= 0) return;
        if (compareBytes(n.key, start) >= 0) yield [n.key, n.value!];
        const p = stack.pop();
        // Everything right of p is >= p.key.
        if (p === undefined || (end !== undefined && compareBytes(p.key, end) >= 0)) return;
        n = this.right(p);
        while (!n.isLeaf) {
          stack.push(n);
          n = this.left(n);
        }
      }
    }
    while (!n.isLeaf) {
      if (end === undefined || compareBytes(n.key, end) < 0) {
        stack.push(n);
        n = this.right(n);
      } else n = this.left(n);
    }
    for (;;) {
      if (compareBytes(n.key, start) < 0) return;
      if (end === undefined || compareBytes(n.key, end) < 0) yield [n.key, n.value!];
      const p = stack.pop();
      // Everything left of p is < p.key.
      if (p === undefined || compareBytes(p.key, start) <= 0) return;
      n = this.left(p);
      while (!n.isLeaf) {
        stack.push(n);
        n = this.right(n);
      }
    }
  }

  /** Every saved node reachable from the root, in pre-order (used to orphan a whole store). */
  *savedNodes(): IterableIterator<Node> {
    const todo: Node[] = this.root ? [this.root] : [];
    while (todo.length > 0) {
      const n = todo.pop()!;
      if (n.saved) yield n;
      if (!n.isLeaf) todo.push(this.right(n), this.left(n));
    }
  }
}

/**
 * The working tree of one store: mutations build new unsaved nodes over the last saved version;
 * `save` names and hashes them; `rollback` returns to the last saved version.
 */
export class MutableTree {
  private root: Node | undefined;
  private orphans: NodeKey[] = [];
  /**
   * Unsaved nodes made in the current epoch belong to the working tree alone and are changed in place;
   * any other node is copied first (cosmos/iavl copies every node it changes: the same result, with
   * more garbage). A new epoch starts whenever something may hold the current nodes (an iteration, a save).
   */
  private epoch = 1;

  /**
   * @param lastRoot the root of the last saved version (undefined: empty or never saved)
   * @param lastVersion the last saved version, 0 if none
   * @param initialVersion the first version of a tree that starts after version 1 (a store added by an upgrade)
   */
  constructor(
    readonly ndb: NodeDb,
    private lastRoot: Node | undefined,
    private lastVersion: number,
    readonly initialVersion = 0,
  ) {
    this.root = lastRoot;
  }

  /** The version the next `save` makes. */
  get workingVersion(): number {
    return this.lastVersion === 0 && this.initialVersion > 0 ? this.initialVersion : this.lastVersion + 1;
  }

  get version(): number {
    return this.lastVersion;
  }

  /** Reads of the working state (saved version plus changes). */
  get working(): TreeReader {
    return new TreeReader(this.ndb, this.root);
  }

  /** Entries of the working state, as of now: later changes do not show in the iteration. */
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse = false): IterableIterator<[Uint8Array, Uint8Array]> {
    // The iteration holds today's unsaved nodes: from now on they are copied before a change, not changed.
    this.epoch++;
    return this.working.iterate(start, end, reverse);
  }

  /** Reads of the last saved version. */
  get saved(): TreeReader {
    return new TreeReader(this.ndb, this.lastRoot);
  }

  /** Whether anything changed since the last save. */
  get changed(): boolean {
    return this.root !== this.lastRoot;
  }

  /** Sets `key`; true when it existed (its value was replaced). */
  set(key: Uint8Array, value: Uint8Array): boolean {
    if (this.root === undefined) {
      this.root = this.fresh(key, value, 0, 1);
      return false;
    }
    const [root, updated] = this.setIn(this.root, key, value);
    this.root = root;
    return updated;
  }

  /** Removes `key`; true when it was there. */
  remove(key: Uint8Array): boolean {
    // Only a removal that happens copies nodes, so orphans are never recorded for a missing key.
    if (this.root === undefined || !this.working.has(key)) return false;
    this.root = this.removeIn(this.root, key).node;
    return true;
  }

  /** Removes every entry (a deleted store): every saved node of the working tree becomes an orphan. */
  clear(): void {
    for (const n of this.working.savedNodes()) this.orphans.push({ version: n.version, nonce: n.nonce });
    this.root = undefined;
  }

  /** The root hash the working state will have when saved (nodes keep their hashes). */
  workingHash(): Uint8Array {
    return this.root === undefined ? emptyHash(this.ndb.sha) : this.hash(this.root, this.workingVersion);
  }

  /**
   * Names and hashes the new nodes as `version` (default `workingVersion`; a later one skips versions)
   * with pre-order nonces from 1, as cosmos/iavl, and stages them; the caller writes them, then calls
   * `commitSaved` (or `abortSave`).
   */
  save(version = this.workingVersion): SavedVersion {
    if (!Number.isSafeInteger(version) || version < this.workingVersion) {
      throw new RangeError(`cannot save version ${version}: the tree is at version ${this.lastVersion}`);
    }
    // Hashes of new nodes computed for another version (workingHash) do not hold for this one.
    if (version !== this.workingVersion && this.root !== undefined) this.forgetHashes(this.root);
    const nodes: Node[] = [];
    let nonce = 0;
    const assign = (n: Node): void => {
      if (n.saved) return;
      n.version = version;
      n.nonce = ++nonce;
      if (!n.isLeaf) {
        const l = n.left!;
        const r = n.right!;
        assign(l);
        assign(r);
        n.leftVersion = l.version;
        n.leftNonce = l.nonce;
        n.rightVersion = r.version;
        n.rightNonce = r.nonce;
      }
      this.hash(n, version);
      nodes.push(n);
    };
    if (this.root) assign(this.root);
    const hash = this.root === undefined ? emptyHash(this.ndb.sha) : hashOf(this.ndb.sha, this.root);
    return { version, root: this.root, hash, nodes, orphans: this.orphans };
  }

  /** The saved version is durable: it becomes the last saved version. */
  commitSaved(s: SavedVersion): void {
    // Until now the new nodes were reached through their in-memory links (they were not in the
    // database yet); from now on by node key, so that the links do not keep whole versions alive.
    for (const n of s.nodes) n.left = n.right = undefined;
    this.ndb.saved(s.nodes);
    this.lastRoot = s.root;
    this.lastVersion = s.version;
    this.root = s.root;
    this.orphans = [];
    this.epoch++;
  }

  /** The saved version was not written: back to the last durable version (its changes are dropped). */
  abortSave(_s: SavedVersion): void {
    this.rollback();
  }

  /** Drops every change since the last save. */
  rollback(): void {
    this.root = this.lastRoot;
    this.orphans = [];
    this.epoch++;
  }

  private forgetHashes(n: Node): void {
    if (n.saved) return;
    n.hash = undefined;
    if (!n.isLeaf) {
      this.forgetHashes(n.left!);
      this.forgetHashes(n.right!);
    }
  }

  // ---- cosmos/iavl's algorithm ----

  /** The hash of `n`, an unsaved node being made `version` (or a saved one: its own version). */
  private hash(n: Node, version: number): Uint8Array {
    if (n.hash !== undefined) return n.hash;
    const sha = this.ndb.sha;
    const v = n.saved ? n.version : version;
    if (n.isLeaf) n.hash = leafHash(sha, n.key, n.value!, v);
    else n.hash = innerHash(sha, n.height, n.size, v, this.hash(this.left(n), version), this.hash(this.right(n), version));
    if (n.hash.length !== HASH_SIZE) throw new Error("sha256 returned a hash that is not 32 bytes");
    return n.hash;
  }

  private left(n: Node): Node {
    return childOf(this.ndb, n, "left");
  }
  private right(n: Node): Node {
    return childOf(this.ndb, n, "right");
  }

  /** Inner node `n`, ready to change: itself if the working tree alone holds it, else a copy (a saved `n` becomes an orphan). */
  private clone(n: Node): Node {
    if (!n.saved && n.epoch === this.epoch) {
      n.hash = undefined;
      return n;
    }
    const c = this.fresh(n.key, undefined, n.height, n.size);
    c.left = this.left(n);
    c.right = this.right(n);
    if (n.saved) this.orphans.push({ version: n.version, nonce: n.nonce });
    return c;
  }

  private fresh(key: Uint8Array, value: Uint8Array | undefined, height: number, size: number): Node {
    const n = new Node(key, value, height, size);
    n.epoch = this.epoch;
    return n;
  }

  private setIn(n: Node, key: Uint8Array, value: Uint8Array): [Node, boolean] {
    if (n.isLeaf) {
      const c = compareBytes(key, n.key);
      if (c === 0) {
        if (n.saved) this.orphans.push({ version: n.version, nonce: n.nonce });
        return [this.fresh(key, value, 0, 1), true];
      }
      const inner = this.fresh(c < 0 ? n.key : key, undefined, 1, 2);
      inner.left = c < 0 ? this.fresh(key, value, 0, 1) : n;
      inner.right = c < 0 ? n : this.fresh(key, value, 0, 1);
      return [inner, false];
    }
    n = this.clone(n);
    let updated: boolean;
    if (compareBytes(key, n.key) < 0) [n.left, updated] = this.setIn(n.left!, key, value);
    else [n.right, updated] = this.setIn(n.right!, key, value);
    if (updated) return [n, true];
    this.calcHeightAndSize(n);
    return [this.balance(n), false];
  }

  /**
   * Removes `key` (known to be present) under `n`: the node that replaces `n` (undefined when `n` was
   * the leaf) and, when the smallest key of the subtree changed, the new one (for the parent's key).
   */
  private removeIn(n: Node, key: Uint8Array): { node: Node | undefined; newKey?: Uint8Array } {
    if (n.isLeaf) {
      if (n.saved) this.orphans.push({ version: n.version, nonce: n.nonce });
      return { node: undefined };
    }
    n = this.clone(n);
    if (compareBytes(key, n.key) < 0) {
      const r = this.removeIn(n.left!, key);
      if (r.node === undefined) return { node: n.right, newKey: n.key };
      n.left = r.node;
      this.calcHeightAndSize(n);
      return { node: this.balance(n), newKey: r.newKey };
    }
    const r = this.removeIn(n.right!, key);
    if (r.node === undefined) return { node: n.left };
    n.right = r.node;
    if (r.newKey !== undefined) n.key = r.newKey;
    this.calcHeightAndSize(n);
    return { node: this.balance(n) };
  }

  private calcHeightAndSize(n: Node): void {
    const l = this.left(n);
    const r = this.right(n);
    n.height = Math.max(l.height, r.height) + 1;
    n.size = l.size + r.size;
  }

  private balanceOf(n: Node): number {
    return this.left(n).height - this.right(n).height;
  }

  /** Rebalances the unsaved node `n` (AVL rotations, as cosmos/iavl `balance`). */
  private balance(n: Node): Node {
    const b = this.balanceOf(n);
    if (b > 1) {
      if (this.balanceOf(n.left!) >= 0) return this.rotateRight(n);
      n.left = this.rotateLeft(n.left!);
      return this.rotateRight(n);
    }
    if (b < -1) {
      if (this.balanceOf(n.right!) <= 0) return this.rotateLeft(n);
      n.right = this.rotateRight(n.right!);
      return this.rotateLeft(n);
    }
    return n;
  }

  private rotateRight(n: Node): Node {
    n = this.clone(n);
    const top = this.clone(n.left!);
    n.left = top.right;
    top.right = n;
    this.calcHeightAndSize(n);
    this.calcHeightAndSize(top);
    return top;
  }

  private rotateLeft(n: Node): Node {
    n = this.clone(n);
    const top = this.clone(n.right!);
    n.right = top.left;
    top.left = n;
    this.calcHeightAndSize(n);
    this.calcHeightAndSize(top);
    return top;
  }
}
