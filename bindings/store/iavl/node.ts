/**
 * An IAVL node (cosmos/iavl v1 `node.go`): leaves hold a key and its value, inner nodes the smallest key of
 * their right subtree and two children. A node is immutable once saved; it is named by its node key
 * (version, nonce): the version that saved it and its place in that version's pre-order.
 *
 * Hashing, as ICS23's `iavlSpec` verifies it (every integer a Go signed varint, every byte string
 * length-prefixed with a uvarint):
 * - leaf:  sha256(varint 0 ‖ varint 1 ‖ varint version ‖ bytes key ‖ bytes sha256(value))
 * - inner: sha256(varint height ‖ varint size ‖ varint version ‖ bytes left hash ‖ bytes right hash)
 *
 * Stored form (docs/spec/store.md §4): a leaf as IAVL v1's `writeBytes` (varint 0 ‖ varint 1 ‖ bytes key ‖
 * bytes value); an inner node names each child by node key together with what the parent needs of it —
 * its hash, height and size — and not its own hash (its parent, or the version's record, holds that):
 * varint height ‖ varint size ‖ bytes key ‖ left: varint version ‖ varint nonce ‖ 32-byte hash ‖ varint
 * height ‖ varint size ‖ right: varint version ‖ varint nonce ‖ 32-byte hash ‖ varint height (its size is
 * the rest). A change then rehashes and rebalances its path without reading the siblings, and a commit
 * never reads a leaf (MutableTree).
 */
import { bytesSize, Reader, varintSize, writeBytes, writeVarint } from "./encoding.js";
import { CorruptStoreError } from "../errors.js";

/** A SHA-256 implementation: the store picks one (node:crypto on Node, @noble/hashes elsewhere). */
export type Sha256 = (data: Uint8Array) => Uint8Array;

export const HASH_SIZE = 32;

const NO_KEY = new Uint8Array(0);

export class Node {
  /** Saved nodes: the version that saved the node; 0 while it is being built. */
  version = 0;
  nonce = 0;
  /**
   * An unsaved node's hash once computed; a saved node's as its parent (or the version's record) names
   * it — a saved node is always reached through one of them.
   */
  hash: Uint8Array | undefined = undefined;
  /**
   * Children of an unsaved inner node: nodes being built, saved nodes, or stubs of saved nodes that were
   * not read. A saved inner node names its children by the fields below instead.
   */
  left: Node | undefined = undefined;
  right: Node | undefined = undefined;
  leftVersion = 0;
  leftNonce = 0;
  leftHash: Uint8Array | undefined = undefined;
  leftHeight = 0;
  leftSize = 0;
  rightVersion = 0;
  rightNonce = 0;
  rightHash: Uint8Array | undefined = undefined;
  rightHeight = 0;
  rightSize = 0;
  /** The working tree's epoch that made this unsaved node (MutableTree changes such nodes in place). */
  epoch = 0;
  /**
   * A saved node known only by what its parent records of it (node key, hash, height, size): its key,
   * value and children are not read until needed (NodeDb.load).
   */
  stub = false;

  constructor(
    public key: Uint8Array,
    /** Leaves only. */
    public value: Uint8Array | undefined,
    public height: number,
    public size: number,
  ) {}

  static leaf(key: Uint8Array, value: Uint8Array): Node {
    return new Node(key, value, 0, 1);
  }

  /** A stub of the saved node (version, nonce) as its parent records it. */
  static stub(version: number, nonce: number, hash: Uint8Array | undefined, height: number, size: number): Node {
    const n = new Node(NO_KEY, undefined, height, size);
    n.version = version;
    n.nonce = nonce;
    n.hash = hash;
    n.stub = true;
    return n;
  }

  get isLeaf(): boolean {
    return this.height === 0;
  }

  get saved(): boolean {
    return this.version !== 0;
  }
}

let scratch = new Uint8Array(256);
function buffer(size: number): Uint8Array {
  if (scratch.length < size) scratch = new Uint8Array(Math.max(size, scratch.length * 2));
  return scratch;
}

/** The hash of a leaf saved (or to be saved) at `version`. */
export function leafHash(sha: Sha256, key: Uint8Array, value: Uint8Array, version: number): Uint8Array {
  const valueHash = sha(value);
  const size = 2 + varintSize(version) + bytesSize(key) + 1 + HASH_SIZE;
  const buf = buffer(size);
  buf[0] = 0; // varint height 0
  buf[1] = 2; // varint size 1
  let pos = writeVarint(buf, 2, version);
  pos = writeBytes(buf, pos, key);
  pos = writeBytes(buf, pos, valueHash);
  return sha(buf.subarray(0, pos));
}

/** The hash of an inner node saved (or to be saved) at `version`, over its children's hashes. */
export function innerHash(sha: Sha256, height: number, size: number, version: number, left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = buffer(varintSize(height) + varintSize(size) + varintSize(version) + 2 + left.length + right.length + 2);
  let pos = writeVarint(buf, 0, height);
  pos = writeVarint(buf, pos, size);
  pos = writeVarint(buf, pos, version);
  pos = writeBytes(buf, pos, left);
  pos = writeBytes(buf, pos, right);
  return sha(buf.subarray(0, pos));
}

/** The length of a saved node's stored form (its children's fields set, for an inner node). */
export function encodedSize(node: Node): number {
  let size = varintSize(node.height) + varintSize(node.size) + bytesSize(node.key);
  if (node.height === 0) return size + bytesSize(node.value!);
  size += varintSize(node.leftVersion) + varintSize(node.leftNonce) + HASH_SIZE + varintSize(node.leftHeight) + varintSize(node.leftSize);
  size += varintSize(node.rightVersion) + varintSize(node.rightNonce) + HASH_SIZE + varintSize(node.rightHeight);
  return size;
}

/** Writes the stored form of a saved node at `pos` (`encodedSize` bytes); returns the position after it. */
export function writeNode(out: Uint8Array, pos: number, node: Node): number {
  pos = writeVarint(out, pos, node.height);
  pos = writeVarint(out, pos, node.size);
  pos = writeBytes(out, pos, node.key);
  if (node.height === 0) return writeBytes(out, pos, node.value!);
  pos = writeVarint(out, pos, node.leftVersion);
  pos = writeVarint(out, pos, node.leftNonce);
  out.set(node.leftHash!, pos);
  pos = writeVarint(out, pos + HASH_SIZE, node.leftHeight);
  pos = writeVarint(out, pos, node.leftSize);
  pos = writeVarint(out, pos, node.rightVersion);
  pos = writeVarint(out, pos, node.rightNonce);
  out.set(node.rightHash!, pos);
  return writeVarint(out, pos + HASH_SIZE, node.rightHeight);
}

/** The stored form of a saved node. */
export function encodeNode(node: Node): Uint8Array {
  const out = new Uint8Array(encodedSize(node));
  writeNode(out, 0, node);
  return out;
}

/**
 * A saved node from its stored form, with the hash its parent (or the version's record) gives it; throws
 * on anything malformed or inconsistent.
 */
export function decodeNode(version: number, nonce: number, bytes: Uint8Array, hash: Uint8Array | undefined): Node {
  const r = new Reader(bytes);
  const height = r.varint();
  const size = r.varint();
  const key = r.bytes();
  if (height < 0 || height > 127 || size < 1) throw new CorruptStoreError(`bad node header: height ${height}, size ${size}`);
  let node: Node;
  if (height === 0) {
    if (size !== 1) throw new CorruptStoreError(`leaf of size ${size}`);
    node = new Node(key, r.bytes(), 0, 1);
  } else {
    node = new Node(key, undefined, height, size);
    node.leftVersion = r.varint();
    node.leftNonce = r.varint();
    node.leftHash = r.fixed(HASH_SIZE);
    node.leftHeight = r.varint();
    node.leftSize = r.varint();
    node.rightVersion = r.varint();
    node.rightNonce = r.varint();
    node.rightHash = r.fixed(HASH_SIZE);
    node.rightHeight = r.varint();
    node.rightSize = size - node.leftSize;
    if (node.leftSize < 1 || node.rightSize < 1) throw new CorruptStoreError(`inner node of size ${size} with a left child of size ${node.leftSize}`);
    if (Math.max(node.leftHeight, node.rightHeight) + 1 !== height || Math.min(node.leftHeight, node.rightHeight) < 0) {
      throw new CorruptStoreError(`inner node of height ${height} with children of heights ${node.leftHeight} and ${node.rightHeight}`);
    }
    if (!childKeyOk(node.leftVersion, node.leftNonce, version) || !childKeyOk(node.rightVersion, node.rightNonce, version)) {
      throw new CorruptStoreError(
        `inner node with a child (${node.leftVersion}, ${node.leftNonce}) / (${node.rightVersion}, ${node.rightNonce}) not saved before it`,
      );
    }
  }
  if (r.pos !== bytes.length) throw new CorruptStoreError(`${bytes.length - r.pos} trailing bytes after the node`);
  node.version = version;
  node.nonce = nonce;
  node.hash = hash;
  return node;
}

const childKeyOk = (v: number, n: number, parent: number) => v >= 1 && v <= parent && n >= 1;

/**
 * From a saved node's stored form, without decoding it: whether it is an inner node, and if so the node keys
 * of its children that are inner nodes too, appended to `out` as version, nonce pairs. Throws on a
 * truncated form.
 */
export function innerChildren(bytes: Uint8Array, out: number[]): boolean {
  const r = new Reader(bytes);
  if (r.varint() === 0) return false;
  r.varint();
  const keyLength = r.uvarint(); // read before `pos` is: `r.pos += r.uvarint()` would add to the old position
  r.pos += keyLength;
  const leftVersion = r.varint();
  const leftNonce = r.varint();
  r.pos += HASH_SIZE;
  if (r.varint() > 0) out.push(leftVersion, leftNonce);
  r.varint();
  const rightVersion = r.varint();
  const rightNonce = r.varint();
  r.pos += HASH_SIZE;
  if (r.varint() > 0) out.push(rightVersion, rightNonce);
  return true;
}
