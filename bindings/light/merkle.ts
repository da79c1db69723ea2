/**
 * CometBFT's simple Merkle tree (crypto/merkle: RFC 6962 with SHA-256): leaf = sha256(0x00 ‖ item), inner =
 * sha256(0x01 ‖ left ‖ right), the split at the largest power of two below the count. The header hash and the
 * validator-set hash are its roots (docs/spec/light-client.md §4.2).
 */
import { sha256 } from "@noble/hashes/sha2.js";

const LEAF = 0x00;
const INNER = 0x01;

export function leafHash(item: Uint8Array): Uint8Array {
  const buf = new Uint8Array(item.length + 1);
  buf[0] = LEAF;
  buf.set(item, 1);
  return sha256(buf);
}

export function innerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length);
  buf[0] = INNER;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return sha256(buf);
}

/** The largest power of two strictly below `n` (n ≥ 2): where the tree splits. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** merkle.HashFromByteSlices: the root over `items` in order; sha256("") for none. */
export function hashFromByteSlices(items: readonly Uint8Array[]): Uint8Array {
  switch (items.length) {
    case 0:
      return sha256(new Uint8Array(0));
    case 1:
      return leafHash(items[0]);
    default: {
      const k = splitPoint(items.length);
      return innerHash(hashFromByteSlices(items.slice(0, k)), hashFromByteSlices(items.slice(k)));
    }
  }
}
