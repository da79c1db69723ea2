/**
 * ICS23 proofs from an IAVL tree (cosmos/iavl `proof_ics23.go`), verifiable against its root hash with
 * ICS23's `iavlSpec`: an existence proof is the key, the value, the leaf's prefix (varint 0, varint 1,
 * varint version) and one inner op per node from the leaf up to the root, each carrying the sibling's
 * hash on its side; a non-existence proof is the existence proofs of the keys just left and right of
 * the absent key (either may be missing at an end of the tree).
 */
import { CommitmentProof, HashOp, LengthOp, type ExistenceProof, type InnerOp } from "cosmjs-types/cosmos/ics23/v1/proofs";
import { varintSize, writeVarint } from "./encoding.js";
import { HASH_SIZE, type Node } from "./node.js";
import { childHash, type TreeReader } from "./tree.js";
import { compareBytes, concatBytes as concat } from "../../base/bytes.js";
import { StoreQueryError, StoreStateError } from "../errors.js";

const EMPTY = new Uint8Array(0);
const LENGTH_BYTE = HASH_SIZE; // the uvarint length prefix of a 32-byte hash

function varints(...vs: number[]): Uint8Array {
  const out = new Uint8Array(vs.reduce((n, v) => n + varintSize(v), 0));
  let pos = 0;
  for (const v of vs) pos = writeVarint(out, pos, v);
  return out;
}

/** The existence proof of `key`, which must be in the (saved) tree. */
export function existenceProof(tree: TreeReader, key: Uint8Array): ExistenceProof {
  let n: Node | undefined = tree.root;
  if (n === undefined) throw new StoreQueryError("cannot prove a key in an empty tree");
  const path: InnerOp[] = [];
  while (!n.isLeaf) {
    if (!n.saved) throw new StoreStateError("proofs are made from saved versions only");
    const head = varints(n.height, n.size, n.version);
    // The sibling's hash is recorded in `n`: siblings are not read.
    if (compareBytes(key, n.key) < 0) {
      path.push({ hash: HashOp.SHA256, prefix: concat(head, Uint8Array.of(LENGTH_BYTE)), suffix: concat(Uint8Array.of(LENGTH_BYTE), childHash(n, true)) });
      n = tree.left(n);
    } else {
      path.push({ hash: HashOp.SHA256, prefix: concat(head, Uint8Array.of(LENGTH_BYTE), childHash(n, false), Uint8Array.of(LENGTH_BYTE)), suffix: EMPTY });
      n = tree.right(n);
    }
  }
  if (compareBytes(n.key, key) !== 0) throw new StoreQueryError("cannot make an existence proof of a key that is not in the tree");
  if (!n.saved) throw new StoreStateError("proofs are made from saved versions only");
  return {
    key: n.key,
    value: n.value!,
    leaf: { hash: HashOp.SHA256, prehashKey: HashOp.NO_HASH, prehashValue: HashOp.SHA256, length: LengthOp.VAR_PROTO, prefix: varints(0, 1, n.version) },
    path: path.reverse(),
  };
}

/** A membership proof of a present key, or a non-membership proof of an absent one (as the SDK's iavl store answers `/key` with prove). */
export function commitmentProof(tree: TreeReader, key: Uint8Array): CommitmentProof {
  const { index, value } = tree.getWithIndex(key);
  if (value !== undefined) return { exist: existenceProof(tree, key) };
  const left = index >= 1 ? tree.getByIndex(index - 1) : undefined;
  const right = tree.getByIndex(index);
  return {
    nonexist: {
      key,
      left: left ? existenceProof(tree, left[0]) : undefined,
      right: right ? existenceProof(tree, right[0]) : undefined,
    },
  };
}

export function encodeCommitmentProof(p: CommitmentProof): Uint8Array {
  return CommitmentProof.encode(p).finish();
}
