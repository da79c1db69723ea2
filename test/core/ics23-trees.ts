/**
 * Small Merkle trees that prove what they hold the way the Cosmos SDK's stores do, for the ICS23 tests: an
 * IAVL-shaped tree (a store: leaf and inner nodes hashed as IAVL hashes them, heights, sizes and versions in
 * each prefix) and the SDK's simple Merkle map (the multistore: store name → store root, under the app hash).
 * Both give ICS23 existence and non-existence proofs as protobuf CommitmentProof bytes (cosmjs-types encodes
 * them, an encoder that is not ours). Test code only: the store engineer's IAVL tree is the project's.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { CommitmentProof, type ExistenceProof, type InnerOp, HashOp, LengthOp } from "cosmjs-types/cosmos/ics23/v1/proofs";

export type Entry = readonly [Uint8Array, Uint8Array];

function uvarint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** Go's binary.PutVarint: zigzag, then uvarint. */
const varint = (n: number) => uvarint(n >= 0 ? 2 * n : -2 * n - 1);

const concat = (...parts: (Uint8Array | number[])[]) => Uint8Array.from(parts.flatMap((p) => Array.from(p)));

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

interface Node {
  hash: Uint8Array;
  /** for an inner node: the prefix bytes before its children, and the children */
  head?: number[];
  left?: Node;
  right?: Node;
  /** for a leaf */
  leaf?: { key: Uint8Array; value: Uint8Array; prefix: Uint8Array };
  height: number;
  size: number;
}

export interface ProvingTree {
  root: Uint8Array;
  entries: readonly Entry[];
  /** An existence proof of a key the tree holds, or a non-existence proof of one it does not. */
  prove(key: Uint8Array): Uint8Array;
  /** The existence proof of the i-th entry (sorted order), as a message. */
  existence(i: number): ExistenceProof;
}

function sorted(entries: readonly Entry[]): Entry[] {
  const out = [...entries].sort((a, b) => compareBytes(a[0], b[0]));
  for (let i = 1; i < out.length; i++) if (compareBytes(out[i - 1][0], out[i][0]) === 0) throw new Error("duplicate key");
  return out;
}

function make(entries: readonly Entry[], leafOf: (e: Entry) => Node, join: (l: Node, r: Node) => Node, split: (n: number) => number): ProvingTree {
  const es = sorted(entries);
  if (es.length === 0) throw new Error("empty tree");
  const leaves = es.map(leafOf);
  const build = (lo: number, hi: number): Node => (hi - lo === 1 ? leaves[lo] : join(build(lo, lo + split(hi - lo)), build(lo + split(hi - lo), hi)));
  const top = build(0, leaves.length);

  /** The inner ops from leaf i up to the root. */
  const pathOf = (i: number): InnerOp[] => {
    const steps: InnerOp[] = [];
    let node = top;
    let lo = 0;
    let hi = leaves.length;
    const down: InnerOp[] = [];
    while (node.leaf === undefined) {
      const mid = lo + split(hi - lo);
      const head = node.head!;
      if (i < mid) {
        down.push({ hash: HashOp.SHA256, prefix: Uint8Array.from(head), suffix: concat(head.length > 1 ? [32] : [], node.right!.hash) });
        node = node.left!;
        hi = mid;
      } else {
        down.push({ hash: HashOp.SHA256, prefix: concat(head, node.left!.hash, head.length > 1 ? [32] : []), suffix: new Uint8Array(0) });
        node = node.right!;
        lo = mid;
      }
    }
    for (let k = down.length - 1; k >= 0; k--) steps.push(down[k]);
    return steps;
  };
  const existence = (i: number): ExistenceProof => {
    const l = leaves[i].leaf!;
    return {
      key: l.key,
      value: l.value,
      leaf: { hash: HashOp.SHA256, prehashKey: HashOp.NO_HASH, prehashValue: HashOp.SHA256, length: LengthOp.VAR_PROTO, prefix: l.prefix },
      path: pathOf(i),
    };
  };
  return {
    root: top.hash,
    entries: es,
    existence,
    prove(key) {
      const at = es.findIndex((e) => compareBytes(e[0], key) >= 0);
      if (at >= 0 && compareBytes(es[at][0], key) === 0) return CommitmentProof.encode(CommitmentProof.fromPartial({ exist: existence(at) })).finish();
      const right = at < 0 ? undefined : existence(at);
      const left = at === 0 ? undefined : existence(at < 0 ? es.length - 1 : at - 1);
      return CommitmentProof.encode(CommitmentProof.fromPartial({ nonexist: { key, left, right } })).finish();
    },
  };
}

/**
 * An IAVL-shaped tree (iavl's node.writeHashBytes): a leaf hashes varint(height 0) ‖ varint(size 1) ‖
 * varint(version) ‖ len ‖ key ‖ len ‖ sha256(value); an inner node varint(height) ‖ varint(size) ‖
 * varint(version) ‖ len ‖ left ‖ len ‖ right. Balanced by halves; versions from `version(i)` per node.
 */
export function iavlTree(entries: readonly Entry[], version: (n: number) => number = () => 1): ProvingTree {
  let nodes = 0;
  const leafOf = ([key, value]: Entry): Node => {
    const prefix = Uint8Array.from([...varint(0), ...varint(1), ...varint(version(nodes++))]);
    const hash = sha256(concat(prefix, uvarint(key.length), key, [32], sha256(value)));
    return { hash, leaf: { key, value, prefix }, height: 0, size: 1 };
  };
  const join = (l: Node, r: Node): Node => {
    const height = Math.max(l.height, r.height) + 1;
    const size = l.size + r.size;
    const head = [...varint(height), ...varint(size), ...varint(version(nodes++)), 32];
    return { hash: sha256(concat(head, l.hash, [32], r.hash)), head, left: l, right: r, height, size };
  };
  return make(entries, leafOf, join, (n) => Math.ceil(n / 2));
}

/**
 * The SDK's simple Merkle map (store/internal/maps, CometBFT's merkle.HashFromByteSlices): leaves are
 * 00 ‖ uvarint(len key) ‖ key ‖ uvarint(32) ‖ sha256(value) in key order, inner nodes 01 ‖ left ‖ right,
 * split at the largest power of two below the count.
 */
export function simpleMap(entries: readonly Entry[]): ProvingTree {
  const leafOf = ([key, value]: Entry): Node => {
    const prefix = Uint8Array.of(0);
    return { hash: sha256(concat(prefix, uvarint(key.length), key, [32], sha256(value))), leaf: { key, value, prefix }, height: 0, size: 1 };
  };
  const join = (l: Node, r: Node): Node => ({ hash: sha256(concat([1], l.hash, r.hash)), head: [1], left: l, right: r, height: 0, size: 0 });
  const split = (n: number) => {
    let k = 1;
    while (k * 2 < n) k *= 2;
    return k;
  };
  return make(entries, leafOf, join, split);
}

/** A multistore of IAVL stores: the app hash and a store proof's ProofOps for `key` in `store`, as the SDK answers `/store/<store>/key`. */
export function multistore(stores: Record<string, readonly Entry[]>) {
  const trees = Object.fromEntries(Object.entries(stores).map(([name, es]) => [name, iavlTree(es, (n) => 1 + (n % 7))]));
  const utf8 = new TextEncoder();
  const map = simpleMap(Object.entries(trees).map(([name, t]) => [utf8.encode(name), t.root] as const));
  return {
    appHash: map.root,
    trees,
    proofOps(store: string, key: Uint8Array) {
      return [
        { type: "ics23:iavl", key, data: trees[store].prove(key) },
        { type: "ics23:simple", key: utf8.encode(store), data: map.prove(utf8.encode(store)) },
      ];
    },
  };
}
