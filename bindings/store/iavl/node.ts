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
 * Stored form (IAVL v1 `writeBytes`, every child named by its node key): varint height ‖ varint size ‖
 * bytes key ‖ (leaf: bytes value | inner: bytes hash ‖ varint mode 0 ‖ varint left version ‖ varint left
 * nonce ‖ varint right version ‖ varint right nonce). A leaf's hash is not stored: it is computed when
 * first needed (`hashOf`).
 */
import { bytesSize, Reader, varintSize, writeBytes, writeVarint } from "./encoding.js";

/** A SHA-256 implementation: the store picks one (node:crypto on Node, @noble/hashes elsewhere). */
export type Sha256 = (data: Uint8Array) => Uint8Array;

export const HASH_SIZE = 32;

export class Node {
  /** Saved nodes: the version that saved the node; 0 while it is being built. */
  version = 0;
  nonce = 0;
  hash: Uint8Array | undefined = undefined;
  /** Children of an unsaved inner node; a saved node names its children by node key instead. */
  left: Node | undefined = undefined;
  right: Node | undefined = undefined;
  leftVersion = 0;
  leftNonce = 0;
  rightVersion = 0;
  rightNonce = 0;
  /** The working tree's epoch that made this unsaved node (MutableTree changes such nodes in place). */
  epoch = 0;

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

/** The stored form of a saved node. */
export function encodeNode(node: Node): Uint8Array {
  let size = varintSize(node.height) + varintSize(node.size) + bytesSize(node.key);
  if (node.isLeaf) size += bytesSize(node.value!);
  else {
    size += bytesSize(node.hash!) + 1;
    size += varintSize(node.leftVersion) + varintSize(node.leftNonce) + varintSize(node.rightVersion) + varintSize(node.rightNonce);
  }
  const out = new Uint8Array(size);
  let pos = writeVarint(out, 0, node.height);
  pos = writeVarint(out, pos, node.size);
  pos = writeBytes(out, pos, node.key);
  if (node.isLeaf) pos = writeBytes(out, pos, node.value!);
  else {
    pos = writeBytes(out, pos, node.hash!);
    out[pos++] = 0; // mode: both children by node key (no legacy hashes)
    pos = writeVarint(out, pos, node.leftVersion);
    pos = writeVarint(out, pos, node.leftNonce);
    pos = writeVarint(out, pos, node.rightVersion);
    pos = writeVarint(out, pos, node.rightNonce);
  }
  return out;
}

/**
 * A node's hash. Inner nodes carry theirs; a saved leaf's is computed on first use (reading a leaf, the
 * common case, then costs no hashing).
 */
export function hashOf(sha: Sha256, n: Node): Uint8Array {
  if (n.hash !== undefined) return n.hash;
  if (!n.saved || !n.isLeaf) throw new Error("an unsaved node has no hash until its version is known");
  return (n.hash = leafHash(sha, n.key, n.value!, n.version));
}

/** A saved node from its stored form; throws on anything malformed. */
export function decodeNode(version: number, nonce: number, bytes: Uint8Array): Node {
  const r = new Reader(bytes);
  const height = r.varint();
  const size = r.varint();
  const key = r.bytes();
  if (height < 0 || height > 127 || size < 1) throw new Error(`bad node header: height ${height}, size ${size}`);
  let node: Node;
  if (height === 0) {
    if (size !== 1) throw new Error(`leaf of size ${size}`);
    node = new Node(key, r.bytes(), 0, 1);
  } else {
    node = new Node(key, undefined, height, size);
    node.hash = r.bytes();
    if (node.hash.length !== HASH_SIZE) throw new Error(`inner node hash of ${node.hash.length} bytes`);
    const mode = r.varint();
    if (mode !== 0) throw new Error(`legacy node mode ${mode} is not supported`);
    node.leftVersion = r.varint();
    node.leftNonce = r.varint();
    node.rightVersion = r.varint();
    node.rightNonce = r.varint();
  }
  if (r.pos !== bytes.length) throw new Error(`${bytes.length - r.pos} trailing bytes after the node`);
  node.version = version;
  node.nonce = nonce;
  return node;
}
