/**
 * The multistore's commitment (cosmossdk.io/store `types/commit_info.go`, `internal/maps`): the app hash
 * is the root of a simple Merkle tree (RFC 6962, CometBFT `crypto/merkle`) over the stores sorted by
 * name, one leaf per store: `uvarint len(name) ‖ name ‖ uvarint 32 ‖ sha256(store root hash)`. A store
 * is proven in it by an ICS23 existence proof under `tendermintSpec` (the `ics23:simple` proof op):
 * leaf prefix 0x00, inner ops 0x01 ‖ left ‖ right.
 */
import { HashOp, LengthOp, type CommitmentProof, type InnerOp } from "cosmjs-types/cosmos/ics23/v1/proofs";
import { uvarintSize, writeBytes } from "../iavl/encoding.js";
import type { Sha256 } from "../iavl/node.js";
import { compareBytes, concatBytes as concat } from "../../base/bytes.js";
import { StoreQueryError } from "../errors.js";

export interface StoreInfo {
  name: string;
  /** The store's root hash at that version. */
  hash: Uint8Array;
}

const encoder = new TextEncoder();

/** The leaves in name order (bytes of the UTF-8 name, as Go sorts strings). */
function leaves(sha: Sha256, stores: readonly StoreInfo[]): { name: Uint8Array; bytes: Uint8Array }[] {
  const out = stores.map((s) => {
    const name = encoder.encode(s.name);
    if (name.length === 0) throw new TypeError("a store name cannot be empty");
    const valueHash = sha(s.hash);
    const bytes = new Uint8Array(uvarintSize(name.length) + name.length + uvarintSize(valueHash.length) + valueHash.length);
    writeBytes(bytes, writeBytes(bytes, 0, name), valueHash);
    return { name, bytes };
  });
  out.sort((a, b) => compareBytes(a.name, b.name));
  for (let i = 1; i < out.length; i++) {
    if (compareBytes(out[i - 1].name, out[i].name) === 0) throw new TypeError(`store ${new TextDecoder().decode(out[i].name)} is listed twice`);
  }
  return out;
}

/** The largest power of two below n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

const leafHash = (sha: Sha256, leaf: Uint8Array) => sha(concat(Uint8Array.of(0), leaf));
const innerHash = (sha: Sha256, l: Uint8Array, r: Uint8Array) => sha(concat(Uint8Array.of(1), l, r));

function root(sha: Sha256, items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 1) return leafHash(sha, items[0]);
  const k = splitPoint(items.length);
  return innerHash(sha, root(sha, items.slice(0, k)), root(sha, items.slice(k)));
}

/** The app hash over `stores` (sha256 of nothing when there are none, as the SDK). */
export function commitInfoHash(sha: Sha256, stores: readonly StoreInfo[]): Uint8Array {
  if (stores.length === 0) return sha(new Uint8Array(0));
  return root(
    sha,
    leaves(sha, stores).map((l) => l.bytes),
  );
}

/** The `ics23:simple` proof that store `name` has its root hash in the commitment over `stores`. */
export function storeProof(sha: Sha256, stores: readonly StoreInfo[], name: string): CommitmentProof {
  const sorted = leaves(sha, stores);
  const wanted = encoder.encode(name);
  const index = sorted.findIndex((l) => compareBytes(l.name, wanted) === 0);
  if (index < 0) throw new StoreQueryError(`store ${name} is not in the commit info`);
  const store = stores.find((s) => s.name === name)!;
  // Inner ops from the leaf up: at each level the sibling subtree's root, on its side.
  const path: InnerOp[] = [];
  const walk = (items: Uint8Array[], i: number): void => {
    if (items.length === 1) return;
    const k = splitPoint(items.length);
    if (i < k) {
      walk(items.slice(0, k), i);
      path.push({ hash: HashOp.SHA256, prefix: Uint8Array.of(1), suffix: root(sha, items.slice(k)) });
    } else {
      walk(items.slice(k), i - k);
      path.push({ hash: HashOp.SHA256, prefix: concat(Uint8Array.of(1), root(sha, items.slice(0, k))), suffix: new Uint8Array(0) });
    }
  };
  walk(
    sorted.map((l) => l.bytes),
    index,
  );
  return {
    exist: {
      key: wanted,
      value: store.hash,
      leaf: { hash: HashOp.SHA256, prehashKey: HashOp.NO_HASH, prehashValue: HashOp.SHA256, length: LengthOp.VAR_PROTO, prefix: Uint8Array.of(0) },
      path,
    },
  };
}
