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
 *
 * What a change reads: the inner nodes on its path, nothing else. A saved node records its children's
 * hashes, heights and sizes (node.ts), so a copied node refers to the children it does not change by
 * stubs, which are never read to rebalance or rehash; and a leaf's key is the key of the inner node where
 * the path last turned right (an inner node holds the smallest key of its right subtree), so a leaf is
 * read only when it is the tree's first one.
 */
import { HASH_SIZE, innerHash, leafHash, Node, type Sha256 } from "./node.js";
import type { NodeDb } from "./node-db.js";
import { compareBytes } from "../../base/bytes.js";
import { CorruptStoreError, StoreStateError } from "../errors.js";

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

/*
 * A child of a node is either in memory (`left`/`right`: a node being built, a saved node, or a stub) or,
 * when that is undefined, the saved node its parent's fields describe (node key, hash, height, size).
 * Saved nodes always describe their children by these fields; a node being built copies them from the
 * node it replaces for the children it does not change.
 */

/** A child of `node`, read: the in-memory one (a stub is read), else read by node key. */
function childOf(ndb: NodeDb, node: Node, right: boolean): Node {
  const c = right ? node.right : node.left;
  if (c !== undefined) return c.stub ? ndb.load(c) : c;
  return right ? ndb.get(node.rightVersion, node.rightNonce, node.rightHash!) : ndb.get(node.leftVersion, node.leftNonce, node.leftHash!);
}

/** A child of `node` as it is at hand: in memory, or a stub of a saved child (never read). */
function peek(node: Node, right: boolean): Node {
  const c = right ? node.right : node.left;
  if (c !== undefined) return c;
  return right
    ? Node.stub(node.rightVersion, node.rightNonce, node.rightHash, node.rightHeight, node.rightSize)
    : Node.stub(node.leftVersion, node.leftNonce, node.leftHash, node.leftHeight, node.leftSize);
}

/** The size of a child of `node`, without reading it. */
function sizeOf(node: Node, right: boolean): number {
  const c = right ? node.right : node.left;
  return c !== undefined ? c.size : right ? node.rightSize : node.leftSize;
}

/** The height of a child of `node`, without reading it. */
function heightOf(node: Node, right: boolean): number {
  const c = right ? node.right : node.left;
  return c !== undefined ? c.height : right ? node.rightHeight : node.leftHeight;
}

/** Makes child `fromRight` of `a` child `toRight` of the unsaved node `b`, without reading it. */
function moveChild(a: Node, fromRight: boolean, b: Node, toRight: boolean): void {
  const c = fromRight ? a.right : a.left;
  const version = fromRight ? a.rightVersion : a.leftVersion;
  const nonce = fromRight ? a.rightNonce : a.leftNonce;
  const hash = fromRight ? a.rightHash : a.leftHash;
  const height = fromRight ? a.rightHeight : a.leftHeight;
  const size = fromRight ? a.rightSize : a.leftSize;
  if (toRight) {
    b.right = c;
    b.rightVersion = version;
    b.rightNonce = nonce;
    b.rightHash = hash;
    b.rightHeight = height;
    b.rightSize = size;
  } else {
    b.left = c;
    b.leftVersion = version;
    b.leftNonce = nonce;
    b.leftHash = hash;
    b.leftHeight = height;
    b.leftSize = size;
  }
}

/** The hash of a saved child of a saved `node` (what a proof carries for a sibling). */
export function childHash(node: Node, right: boolean): Uint8Array {
  const c = right ? node.right : node.left;
  const h = c !== undefined ? c.hash : right ? node.rightHash : node.leftHash;
  if (h === undefined) throw new StoreStateError("the child of an unsaved node has no hash until it is saved");
  return h;
}

/** Read operations on the tree under `root` (any version, saved or not). */
export class TreeReader {
  readonly root: Node | undefined;

  constructor(
    readonly ndb: NodeDb,
    root: Node | undefined,
  ) {
    this.root = root?.stub ? ndb.load(root) : root;
  }

  left(node: Node): Node {
    return childOf(this.ndb, node, false);
  }
  right(node: Node): Node {
    return childOf(this.ndb, node, true);
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
        index += n.size - sizeOf(n, true);
        n = this.right(n);
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
      const leftSize = sizeOf(n, false);
      if (index < leftSize) n = this.left(n);
      else {
        index -= leftSize;
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

  /** The node key of every saved node reachable from the root (to orphan a whole store); leaves are not read. */
  *savedNodes(): IterableIterator<NodeKey> {
    const todo: Node[] = this.root ? [this.root] : [];
    while (todo.length > 0) {
      const n = todo.pop()!;
      if (n.saved) yield { version: n.version, nonce: n.nonce };
      if (n.isLeaf) continue;
      for (const right of [false, true]) {
        const c = peek(n, right);
        if (c.isLeaf) {
          if (c.saved) yield { version: c.version, nonce: c.nonce };
        } else todo.push(c.stub ? this.ndb.load(c) : c);
      }
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
  /** Whether the `set` under way replaced a value (rather than adding a key). */
  private updated = false;

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
    this.updated = false;
    this.root = this.setIn(this.root, key, value, undefined);
    return this.updated;
  }

  /** Removes `key`; true when it was there. */
  remove(key: Uint8Array): boolean {
    // Only a removal that happens copies nodes, so orphans are never recorded for a missing key.
    if (this.root === undefined || !this.contains(key)) return false;
    const root = this.removeIn(this.root, key).node;
    this.root = root?.stub ? this.ndb.load(root) : root;
    return true;
  }

  /** Removes every entry (a deleted store): every saved node of the working tree becomes an orphan. */
  clear(): void {
    for (const k of this.working.savedNodes()) this.orphans.push(k);
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
      const l = n.left;
      const r = n.right;
      // Children in memory get their node keys; the others are described by n's fields already.
      if (l !== undefined) {
        assign(l);
        n.leftVersion = l.version;
        n.leftNonce = l.nonce;
        n.leftHeight = l.height;
        n.leftSize = l.size;
      }
      if (r !== undefined) {
        assign(r);
        n.rightVersion = r.version;
        n.rightNonce = r.nonce;
        n.rightHeight = r.height;
        n.rightSize = r.size;
      }
      this.hash(n, version);
      if (l !== undefined) n.leftHash = l.hash;
      if (r !== undefined) n.rightHash = r.hash;
      nodes.push(n);
    };
    if (this.root) assign(this.root);
    const hash = this.root === undefined ? emptyHash(this.ndb.sha) : this.root.hash!;
    return { version, root: this.root, hash, nodes, orphans: this.orphans };
  }

  /** The saved version is durable: it becomes the last saved version. */
  commitSaved(s: SavedVersion): void {
    // Until now the new nodes were reached through their in-memory links (they were not in the
    // database yet); from now on by node key, so that the links do not keep whole versions alive.
    for (const n of s.nodes) n.left = n.right = undefined;
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

  private forgetHashes(n: Node | undefined): void {
    if (n === undefined || n.saved) return;
    n.hash = undefined;
    this.forgetHashes(n.left);
    this.forgetHashes(n.right);
  }

  /**
   * Whether `key` is in the working tree, reading inner nodes only (but for the tree's first leaf): a key
   * equal to an inner node's is the smallest of its right subtree, and a leaf's key is that of the inner
   * node where the path last turned right.
   */
  private contains(key: Uint8Array): boolean {
    let n = this.root!;
    let low: Uint8Array | undefined;
    for (;;) {
      if (n.isLeaf) return compareBytes(key, this.leafKey(n, low)) === 0;
      const c = compareBytes(key, n.key);
      if (c === 0) return true;
      if (c > 0) low = n.key;
      if (heightOf(n, c > 0) > 0) n = childOf(this.ndb, n, c > 0);
      else {
        const leaf = c > 0 ? n.right : n.left;
        return compareBytes(key, leaf !== undefined ? this.leafKey(leaf, low) : (low ?? childOf(this.ndb, n, c > 0).key)) === 0;
      }
    }
  }

  /** The key of leaf `n`, where `low` is the smallest key of its subtree if known (its own, then). */
  private leafKey(n: Node, low: Uint8Array | undefined): Uint8Array {
    return !n.stub ? n.key : (low ?? this.ndb.load(n).key);
  }

  // ---- cosmos/iavl's algorithm ----

  /** The hash of `n`, an unsaved node being made `version` (or a saved one: it has its hash). */
  private hash(n: Node, version: number): Uint8Array {
    if (n.hash !== undefined) return n.hash;
    // A node being saved has its version already; any other saved node is reached with its hash.
    if (n.saved && (n.version !== version || n.stub)) throw new CorruptStoreError(`saved node (${n.version}, ${n.nonce}) was reached without its hash`);
    const sha = this.ndb.sha;
    if (n.isLeaf) n.hash = leafHash(sha, n.key, n.value!, version);
    else n.hash = innerHash(sha, n.height, n.size, version, this.childHash(n, false, version), this.childHash(n, true, version));
    if (n.hash.length !== HASH_SIZE) throw new StoreStateError("sha256 returned a hash that is not 32 bytes");
    return n.hash;
  }

  private childHash(n: Node, right: boolean, version: number): Uint8Array {
    const c = right ? n.right : n.left;
    if (c !== undefined) return this.hash(c, version);
    return right ? n.rightHash! : n.leftHash!;
  }

  /** Inner node `n`, ready to change: itself if the working tree alone holds it, else a copy (a saved `n` becomes an orphan). */
  private clone(n: Node): Node {
    if (!n.saved && n.epoch === this.epoch) {
      n.hash = undefined;
      return n;
    }
    if (n.stub) n = this.ndb.load(n);
    const c = this.fresh(n.key, undefined, n.height, n.size);
    moveChild(n, false, c, false);
    moveChild(n, true, c, true);
    if (n.saved) this.orphans.push({ version: n.version, nonce: n.nonce });
    return c;
  }

  /** Child of the unsaved node `n` to descend into: an inner node is read, a leaf is a stub if not in memory. */
  private step(n: Node, right: boolean): Node {
    const c = right ? n.right : n.left;
    if (c !== undefined) return c;
    return heightOf(n, right) === 0 ? peek(n, right) : childOf(this.ndb, n, right);
  }

  /** Child of the unsaved node `n`, read and kept in memory (to look at its own children). */
  private read(n: Node, right: boolean): Node {
    const c = right ? n.right : n.left;
    if (c !== undefined && !c.stub) return c;
    const full = c !== undefined ? this.ndb.load(c) : childOf(this.ndb, n, right);
    if (right) n.right = full;
    else n.left = full;
    return full;
  }

  private fresh(key: Uint8Array, value: Uint8Array | undefined, height: number, size: number): Node {
    const n = new Node(key, value, height, size);
    n.epoch = this.epoch;
    return n;
  }

  /**
   * Sets `key` under `n`, whose smallest key is `low` if known; returns what replaces `n` (`updated` says
   * whether `key` existed).
   */
  private setIn(n: Node, key: Uint8Array, value: Uint8Array, low: Uint8Array | undefined): Node {
    if (n.isLeaf) {
      const leafKey = this.leafKey(n, low);
      const c = compareBytes(key, leafKey);
      if (c === 0) {
        if (n.saved) this.orphans.push({ version: n.version, nonce: n.nonce });
        this.updated = true;
        return this.fresh(key, value, 0, 1);
      }
      const inner = this.fresh(c < 0 ? leafKey : key, undefined, 1, 2);
      inner.left = c < 0 ? this.fresh(key, value, 0, 1) : n;
      inner.right = c < 0 ? n : this.fresh(key, value, 0, 1);
      return inner;
    }
    n = this.clone(n);
    if (compareBytes(key, n.key) < 0) n.left = this.setIn(this.step(n, false), key, value, low);
    else n.right = this.setIn(this.step(n, true), key, value, n.key);
    if (this.updated) return n;
    this.calcHeightAndSize(n);
    return this.balance(n);
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
      const r = this.removeIn(this.step(n, false), key);
      if (r.node === undefined) return { node: peek(n, true), newKey: n.key };
      n.left = r.node;
      this.calcHeightAndSize(n);
      return { node: this.balance(n), newKey: r.newKey };
    }
    const r = this.removeIn(this.step(n, true), key);
    if (r.node === undefined) return { node: peek(n, false) };
    n.right = r.node;
    if (r.newKey !== undefined) n.key = r.newKey;
    this.calcHeightAndSize(n);
    return { node: this.balance(n) };
  }

  /** Height and size of the unsaved node `n` from its children's (recorded: nothing is read). */
  private calcHeightAndSize(n: Node): void {
    n.height = Math.max(heightOf(n, false), heightOf(n, true)) + 1;
    n.size = sizeOf(n, false) + sizeOf(n, true);
  }

  private balanceOf(n: Node): number {
    return heightOf(n, false) - heightOf(n, true);
  }

  /** Rebalances the unsaved node `n` (AVL rotations, as cosmos/iavl `balance`). */
  private balance(n: Node): Node {
    const b = this.balanceOf(n);
    if (b > 1) {
      if (this.balanceOf(this.read(n, false)) >= 0) return this.rotateRight(n);
      n.left = this.rotateLeft(n.left!);
      return this.rotateRight(n);
    }
    if (b < -1) {
      if (this.balanceOf(this.read(n, true)) <= 0) return this.rotateLeft(n);
      n.right = this.rotateRight(n.right!);
      return this.rotateLeft(n);
    }
    return n;
  }

  private rotateRight(n: Node): Node {
    n = this.clone(n);
    const top = this.clone(this.read(n, false));
    moveChild(top, true, n, false);
    top.right = n;
    this.calcHeightAndSize(n);
    this.calcHeightAndSize(top);
    return top;
  }

  private rotateLeft(n: Node): Node {
    n = this.clone(n);
    const top = this.clone(this.read(n, true));
    moveChild(top, false, n, true);
    top.left = n;
    this.calcHeightAndSize(n);
    this.calcHeightAndSize(top);
    return top;
  }
}
