/**
 * ICS23 proof verification in TypeScript (docs/spec/core.md §14). Twin of assembly/ics23.ts: the same
 * decoding, the same checks in the same order, the same refusals (Ics23Failure, worded by ../ics23.ts).
 *
 * The checks are cosmos/ics23's (go/proof.go, go/ops.go): a proof's leaf and inner ops against the spec,
 * IAVL's and Tendermint's prefix rules, the depth limits, the hashes up to the root; for a non-existence
 * proof both neighbours, the key strictly between them, and the neighbours adjacent. Batch proofs are read
 * as ics23 v0.11 (the Cosmos SDK v0.50's) reads them.
 */
import {
  Ics23Form as Form,
  Ics23Message as M,
  Ics23Reason as R,
  Ics23Side as S,
  Ics23Where as W,
  Family,
  HashOp,
  LengthOp,
  type CheckedSpec,
  type Ics23Failure,
} from "../ics23.js";
import { Malformed } from "../constants.generated.js";
import { sha256 } from "./sha256.js";
import { readVarint, varintMinimal, type Varint } from "./varint.js";

// ---- the decoded proof (views into the caller's bytes) ----

interface Leaf {
  hash: number;
  prehashKey: number;
  prehashValue: number;
  length: number;
  prefix: Uint8Array;
}

interface Inner {
  hash: number;
  prefix: Uint8Array;
  suffix: Uint8Array;
  /** whether the suffix field was on the wire (ics23's Tendermint rule tells a nil suffix from an empty one; on the wire, never empty) */
  hasSuffix: boolean;
}

interface Exist {
  key: Uint8Array;
  value: Uint8Array;
  leaf: Leaf | undefined;
  path: Inner[];
}

interface NonExist {
  key: Uint8Array;
  left: Exist | undefined;
  right: Exist | undefined;
}

type Entry = { exist: Exist } | { nonexist: NonExist } | undefined;

type Proof = { kind: 0 } | { kind: 1; exist: Exist } | { kind: 2; nonexist: NonExist } | { kind: 3; entries: Entry[] };

const NONE = 0;
const EXIST = 1;
const NONEXIST = 2;
const BATCH = 3;

const EMPTY: Uint8Array = new Uint8Array(0);

/** A refusal on its way out: the numbers the wasm core leaves in its header. */
export class Refusal {
  constructor(readonly f: Ics23Failure) {}
}

function refuse(reason: number, where: number = W.Proof, step = 0, a = 0, b = 0, c = 0, v = 0n): never {
  throw new Refusal({ reason, where, side: S.None, step, a, b, c, v });
}

/** Marks the refusal of one neighbour's checks with its side. */
function onSide<T>(side: number, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Refusal && e.f.side === S.None) (e.f as { side: number }).side = side;
    throw e;
  }
}

// ---- protobuf, as an honest encoder writes it (docs/spec/core.md §14.2) ----

class Reader {
  pos = 0;
  /** the last varint, when it fits 32 bits (lengths, field numbers, enums); hi holds the rest */
  lo = 0;
  hi = 0;
  /** the message being read (Ics23Message), for a refusal's wording: set by nextField before every tag */
  msg = 0;
  constructor(
    readonly buf: Uint8Array,
    public end: number,
  ) {}
}

// Which varint a non-minimal one is (the refusal's v for Ics23Form.Varint).
const V_TAG = 0;
const V_LENGTH = 1;
const V_VALUE = 2;
const V_ELEMENT = 3;

function malformed(reason: number, field = 0, wire = 0): never {
  refuse(R.Malformed, W.Proof, 0, reason, field, wire);
}

function nonCanonical(r: Reader, form: number, field: number, other: number): never {
  refuse(R.NonCanonical, W.Proof, 0, form, r.msg, field, BigInt(other));
}

const VARINT: Varint = { lo: 0, hi: 0, end: 0, bytes: 0, last: 0 };

/** A varint (./varint.ts), and minimal: no trailing zero group, a tenth byte only to carry bit 63. */
function varint(r: Reader, field: number, role: number): void {
  const e = readVarint(r.buf, r.pos, r.end, VARINT);
  if (e !== 0) malformed(e, field);
  r.pos = VARINT.end;
  r.lo = VARINT.lo;
  r.hi = VARINT.hi;
  if (!varintMinimal(VARINT)) nonCanonical(r, Form.Varint, role === V_TAG ? fieldOf(r) : field, role);
}

/** The last varint as a tag's field number; -1 past 32 bits (unknown to every message here). */
const fieldOf = (r: Reader) => (r.hi !== 0 ? -1 : r.lo >>> 3);

/** Reads a tag: [field, wire type]. */
function tag(r: Reader): [number, number] {
  varint(r, 0, V_TAG);
  const wire = r.lo & 7;
  const field = fieldOf(r);
  if (field === 0) malformed(Malformed.FieldZero, 0, wire);
  if (wire === 6 || wire === 7) malformed(Malformed.IllegalWireType, field, wire);
  // an end-group with no group open (gogoproto: "wiretype end group for non-group")
  if (wire === 4) malformed(Malformed.Group, field, wire);
  return [field, wire];
}

/**
 * The next field of message `m` (Ics23Message), whose fields are 1 … n: its tag, then the canonical rules in
 * this order — a field the message has; its wire type (0 for the fields in the bit set `enums`, else 2; a field
 * in `packed` written as one packed run); its place after field `last`: one member of a oneof, ascending order,
 * a singular field once (a field in `repeated` contiguous, which ascending order implies). Returns the field.
 */
function nextField(r: Reader, m: number, n: number, enums: number, repeated: number, packed: number, oneof: boolean, last: number): number {
  r.msg = m;
  const [f, w] = tag(r);
  if (f < 1 || f > n) nonCanonical(r, Form.Unknown, f, 0);
  const bit = 1 << f;
  if ((packed & bit) !== 0 && w === 0) nonCanonical(r, Form.Unpacked, f, 0);
  if (w !== ((enums & bit) !== 0 ? 0 : 2)) malformed(Malformed.WrongWireType, f, w);
  if (oneof && last !== 0) nonCanonical(r, Form.Oneof, f, last);
  if (f < last) nonCanonical(r, Form.Order, f, last);
  if (f === last && (repeated & bit) === 0) nonCanonical(r, Form.Twice, f, 0);
  return f;
}

// Field sets of nextField: bit f for field f.
const F1_4 = 0b11110; // LeafOp's enums (hash, prehash_key, prehash_value, length)
const F1 = 0b10; // InnerOp's enum (hash); a BatchProof's entries (repeated)
const F4 = 0b10000; // ExistenceProof's path (repeated), CompressedExistenceProof's path (packed)
const F1_2 = 0b110; // a CompressedBatchProof's entries and lookup_inners (repeated)

function lengthEnd(r: Reader, field: number): number {
  varint(r, field, V_LENGTH);
  if (r.hi !== 0 || r.lo > r.end - r.pos) malformed(Malformed.LengthPastEnd, field, 2);
  return r.pos + r.lo;
}

/** A bytes field's value (never empty: an encoder leaves an empty one out). */
function bytesField(r: Reader, field: number): Uint8Array {
  const end = lengthEnd(r, field);
  if (end === r.pos) nonCanonical(r, Form.Default, field, 0);
  const v = r.buf.subarray(r.pos, end);
  r.pos = end;
  return v;
}

/** An int32 varint: a sign-extended 32-bit value (Go keeps the low 32 bits of any other). */
function int32Field(r: Reader, field: number, role: number): number {
  varint(r, field, role);
  const high = r.lo >>> 31;
  if (!((high === 0 && r.hi === 0) || (high === 1 && r.hi === 0xffffffff))) nonCanonical(r, Form.Int32, field, 0);
  return r.lo | 0;
}

/** An enum's value (never 0: an encoder leaves the default out). */
function enumField(r: Reader, field: number): number {
  const v = int32Field(r, field, V_VALUE);
  if (v === 0) nonCanonical(r, Form.Default, field, 0);
  return v;
}

/** Enters a submessage: returns the end of the enclosing one and narrows the reader to the submessage. */
function enter(r: Reader, field: number): number {
  const end = lengthEnd(r, field);
  const outer = r.end;
  r.end = end;
  return outer;
}

function leave(r: Reader, outer: number): void {
  r.end = outer;
}

function decodeLeaf(r: Reader): Leaf {
  const leaf: Leaf = { hash: 0, prehashKey: 0, prehashValue: 0, length: 0, prefix: EMPTY };
  let last = 0;
  while (r.pos < r.end) {
    const f = (last = nextField(r, M.LeafOp, 5, F1_4, 0, 0, false, last));
    if (f === 1) leaf.hash = enumField(r, f);
    else if (f === 2) leaf.prehashKey = enumField(r, f);
    else if (f === 3) leaf.prehashValue = enumField(r, f);
    else if (f === 4) leaf.length = enumField(r, f);
    else leaf.prefix = bytesField(r, f);
  }
  return leaf;
}

function decodeInner(r: Reader): Inner {
  const op: Inner = { hash: 0, prefix: EMPTY, suffix: EMPTY, hasSuffix: false };
  let last = 0;
  while (r.pos < r.end) {
    const f = (last = nextField(r, M.InnerOp, 3, F1, 0, 0, false, last));
    if (f === 1) op.hash = enumField(r, f);
    else if (f === 2) op.prefix = bytesField(r, f);
    else {
      op.suffix = bytesField(r, f);
      op.hasSuffix = true;
    }
  }
  return op;
}

/** An ExistenceProof, or (compressed) a CompressedExistenceProof, whose path is then indices into the batch's lookup table. */
function decodeExist(r: Reader): Exist;
function decodeExist(r: Reader, compressed: true): CompressedExist;
function decodeExist(r: Reader, compressed = false): Exist | CompressedExist {
  const ep = { key: EMPTY, value: EMPTY, leaf: undefined as Leaf | undefined, path: [] as (Inner | number)[] };
  let last = 0;
  while (r.pos < r.end) {
    // the compressed path is one packed run of indices (an empty run is ts-proto's way to write no path)
    const f = (last = compressed
      ? nextField(r, M.CompressedExistenceProof, 4, 0, 0, F4, false, last)
      : nextField(r, M.ExistenceProof, 4, 0, F4, 0, false, last));
    if (f === 1) ep.key = bytesField(r, f);
    else if (f === 2) ep.value = bytesField(r, f);
    else {
      const outer = enter(r, f);
      if (f === 3) ep.leaf = decodeLeaf(r);
      else if (!compressed) ep.path.push(decodeInner(r));
      else while (r.pos < r.end) ep.path.push(int32Field(r, f, V_ELEMENT));
      leave(r, outer);
    }
  }
  return ep as Exist | CompressedExist;
}

/** A NonExistenceProof, or its compressed form. */
function decodeNonExist(r: Reader): NonExist;
function decodeNonExist(r: Reader, compressed: true): CompressedNonExist;
function decodeNonExist(r: Reader, compressed = false): NonExist | CompressedNonExist {
  const np: { key: Uint8Array; left?: Exist | CompressedExist; right?: Exist | CompressedExist } = { key: EMPTY, left: undefined, right: undefined };
  let last = 0;
  while (r.pos < r.end) {
    const f = (last = nextField(r, compressed ? M.CompressedNonExistenceProof : M.NonExistenceProof, 3, 0, 0, 0, false, last));
    // the key it proves absent (field 1): read and, as in ics23, never used
    if (f === 1) np.key = bytesField(r, f);
    else {
      const outer = enter(r, f);
      const ep = compressed ? decodeExist(r, true) : decodeExist(r);
      if (f === 2) np.left = ep;
      else np.right = ep;
      leave(r, outer);
    }
  }
  return np as NonExist | CompressedNonExist;
}

/** A BatchEntry or CompressedBatchEntry: at most one member. */
function decodeEntry(r: Reader, compressed: boolean): Entry | CompressedEntry {
  let entry: Entry | CompressedEntry;
  let last = 0;
  while (r.pos < r.end) {
    const f = (last = nextField(r, compressed ? M.CompressedBatchEntry : M.BatchEntry, 2, 0, 0, 0, true, last));
    const outer = enter(r, f);
    if (compressed) entry = f === 1 ? { exist: decodeExist(r, true) } : { nonexist: decodeNonExist(r, true) };
    else entry = f === 1 ? { exist: decodeExist(r) } : { nonexist: decodeNonExist(r) };
    leave(r, outer);
  }
  return entry;
}

/** A BatchProof (field 1: entries) or a CompressedBatchProof (field 1: entries, field 2: lookup_inners). */
function decodeBatch(r: Reader, compressed: boolean): { entries: (Entry | CompressedEntry)[]; lookup: Inner[] } {
  const entries: (Entry | CompressedEntry)[] = [];
  const lookup: Inner[] = [];
  let last = 0;
  while (r.pos < r.end) {
    const f = (last = compressed ? nextField(r, M.CompressedBatchProof, 2, 0, F1_2, 0, false, last) : nextField(r, M.BatchProof, 1, 0, F1, 0, false, last));
    const outer = enter(r, f);
    if (f === 1) entries.push(decodeEntry(r, compressed));
    else lookup.push(decodeInner(r));
    leave(r, outer);
  }
  return { entries, lookup };
}

/** A CompressedExistenceProof: an ExistenceProof whose path is indices into the batch's lookup table. */
interface CompressedExist {
  key: Uint8Array;
  value: Uint8Array;
  leaf: Leaf | undefined;
  path: number[];
}

interface CompressedNonExist {
  key: Uint8Array;
  left: CompressedExist | undefined;
  right: CompressedExist | undefined;
}

type CompressedEntry = { exist: CompressedExist } | { nonexist: CompressedNonExist } | undefined;

/** Decompress (ics23 v0.11): every entry's path resolved through the lookup table, or the proof refused. */
function decompress(entries: CompressedEntry[], lookup: Inner[]): Entry[] {
  const expand = (c: CompressedExist): Exist => ({
    key: c.key,
    value: c.value,
    leaf: c.leaf,
    path: c.path.map((i) => {
      if (i < 0 || i >= lookup.length) refuse(R.CompressedIndex, W.Proof, 0, i, lookup.length);
      return lookup[i];
    }),
  });
  return entries.map((c): Entry => {
    if (c === undefined) return undefined;
    if ("exist" in c) return { exist: expand(c.exist) };
    const n = c.nonexist;
    return { nonexist: { key: n.key, left: n.left && expand(n.left), right: n.right && expand(n.right) } };
  });
}

/** A CommitmentProof: at most one member of its oneof; a compressed batch is decompressed into a batch. */
export function decodeProof(bytes: Uint8Array): Proof {
  const r = new Reader(bytes, bytes.length);
  let proof: Proof = { kind: NONE };
  let compressed: ReturnType<typeof decodeBatch> | undefined;
  let last = 0;
  while (r.pos < r.end) {
    const f = (last = nextField(r, M.CommitmentProof, 4, 0, 0, 0, true, last));
    const outer = enter(r, f);
    if (f === 1) proof = { kind: EXIST, exist: decodeExist(r) };
    else if (f === 2) proof = { kind: NONEXIST, nonexist: decodeNonExist(r) };
    else if (f === 3) proof = { kind: BATCH, entries: decodeBatch(r, false).entries as Entry[] };
    else compressed = decodeBatch(r, true);
    leave(r, outer);
  }
  // Decompressed as ics23 v0.11 does before anything else, once the whole proof is read.
  return compressed ? { kind: BATCH, entries: decompress(compressed.entries as CompressedEntry[], compressed.lookup) } : proof;
}
// ---- hashing ----

let scratch = new Uint8Array(1024);

function room(n: number): Uint8Array {
  if (n > scratch.length) scratch = new Uint8Array(Math.max(n, scratch.length * 2));
  return scratch;
}

function hash(op: number, data: Uint8Array): Uint8Array {
  if (op !== HashOp.SHA256) refuse(R.UnsupportedHash, W.Proof, 0, op);
  return sha256(data);
}

/** The leaf's key or value as it enters the leaf hash: prehashed, then length-prefixed. */
function prepare(hashOp: number, lengthOp: number, data: Uint8Array): Uint8Array {
  const d = hashOp === HashOp.NO_HASH ? data : hash(hashOp, data);
  const n = d.length;
  switch (lengthOp) {
    case LengthOp.NO_PREFIX:
      return d;
    case LengthOp.VAR_PROTO: {
      let size = 1;
      for (let x = n; x >= 0x80; x = Math.floor(x / 128)) size++;
      const out = new Uint8Array(size + n);
      let at = 0;
      let x = n;
      while (x >= 0x80) {
        out[at++] = (x & 0x7f) | 0x80;
        x = Math.floor(x / 128);
      }
      out[at++] = x;
      out.set(d, at);
      return out;
    }
    case LengthOp.REQUIRE_32_BYTES:
    case LengthOp.REQUIRE_64_BYTES:
      if (n !== (lengthOp === LengthOp.REQUIRE_32_BYTES ? 32 : 64)) refuse(R.LengthRequired, W.Leaf, 0, n, lengthOp);
      return d;
    case LengthOp.FIXED32_BIG:
    case LengthOp.FIXED32_LITTLE:
    case LengthOp.FIXED64_BIG:
    case LengthOp.FIXED64_LITTLE: {
      const w = lengthOp <= LengthOp.FIXED32_LITTLE ? 4 : 8;
      const out = new Uint8Array(w + n);
      const dv = new DataView(out.buffer);
      if (w === 4) dv.setUint32(0, n, lengthOp === LengthOp.FIXED32_LITTLE);
      else dv.setBigUint64(0, BigInt(n), lengthOp === LengthOp.FIXED64_LITTLE);
      out.set(d, w);
      return out;
    }
    default:
      refuse(R.UnsupportedLength, W.Leaf, 0, lengthOp);
  }
}

function applyLeaf(leaf: Leaf, key: Uint8Array, value: Uint8Array): Uint8Array {
  if (key.length === 0) refuse(R.EmptyKey, W.Leaf);
  if (value.length === 0) refuse(R.EmptyValue, W.Leaf);
  let pkey: Uint8Array;
  let pvalue: Uint8Array;
  try {
    pkey = prepare(leaf.prehashKey, leaf.length, key);
    pvalue = prepare(leaf.prehashValue, leaf.length, value);
  } catch (e) {
    if (e instanceof Refusal) (e.f as { where: number }).where = W.Leaf;
    throw e;
  }
  if (leaf.hash !== HashOp.SHA256) refuse(R.UnsupportedHash, W.Leaf, 0, leaf.hash);
  const n = leaf.prefix.length + pkey.length + pvalue.length;
  const buf = room(n);
  buf.set(leaf.prefix, 0);
  buf.set(pkey, leaf.prefix.length);
  buf.set(pvalue, leaf.prefix.length + pkey.length);
  return sha256(buf.subarray(0, n));
}

function applyInner(op: Inner, step: number, child: Uint8Array): Uint8Array {
  if (op.hash !== HashOp.SHA256) refuse(R.UnsupportedHash, W.Inner, step, op.hash);
  const p = op.prefix.length;
  const n = p + child.length + op.suffix.length;
  const buf = room(n);
  buf.set(op.prefix, 0);
  buf.set(child, p);
  buf.set(op.suffix, p + child.length);
  return sha256(buf.subarray(0, n));
}

/** ExistenceProof.Calculate: the root the leaf and path hash to. */
function calculate(ep: Exist): Uint8Array {
  if (ep.leaf === undefined) refuse(R.NoLeaf);
  let h = applyLeaf(ep.leaf, ep.key, ep.value);
  for (let i = 0; i < ep.path.length; i++) h = applyInner(ep.path[i], i, h);
  return h;
}

// ---- checks against the spec ----

/**
 * IAVL's prefix rule (ops.go validateIavlOps): zigzag varints height, size, version, each read as Go's
 * binary.ReadVarint and non-negative; the height at least the layer (0 for the leaf); after them nothing
 * for a leaf (whose height must be 0 and size 1), and for an inner op 1 or 34 bytes (the child's length
 * byte, or the left child and the right child's length byte).
 */
function checkIavlPrefix(prefix: Uint8Array, layer: number, where: number, step: number): void {
  let pos = 0;
  const values: bigint[] = [];
  for (let i = 0; i < 3; i++) {
    // binary.ReadUvarint: at most 10 bytes, the 10th at most 1.
    let x = 0n;
    let shift = 0n;
    let ok = false;
    for (let k = 0; k < 10; k++) {
      if (pos >= prefix.length) break;
      const b = prefix[pos++];
      if (b < 0x80) {
        if (k === 9 && b > 1) break;
        x |= BigInt(b) << shift;
        ok = true;
        break;
      }
      x |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    }
    if (!ok) refuse(R.IavlVarint, where, step, i);
    const v = BigInt.asIntN(64, (x >> 1n) ^ -(x & 1n));
    values.push(v);
    if (i === 0 && (v < 0n || v < BigInt(layer))) refuse(R.IavlHeight, where, step, layer, 0, 0, v);
    if (i === 1 && v < 0n) refuse(R.IavlSize, where, step, layer, 0, 0, v);
    if (i === 2 && v < 0n) refuse(R.IavlVersion, where, step, layer, 0, 0, v);
  }
  const rest = prefix.length - pos;
  if (layer === 0) {
    if (rest !== 0) refuse(R.IavlRemainder, where, step, rest, 0);
    if (values[0] !== 0n) refuse(R.IavlHeight, where, step, 0, 1, 0, values[0]);
    if (values[1] !== 1n) refuse(R.IavlSize, where, step, 0, 1, 0, values[1]);
  } else if (rest !== 1 && rest !== 34) refuse(R.IavlRemainder, where, step, rest, 1);
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** ExistenceProof.CheckAgainstSpec. */
function checkAgainstSpec(ep: Exist, cs: CheckedSpec): void {
  const { leafSpec, innerSpec, minDepth } = cs.spec;
  const leaf = ep.leaf;
  if (leaf === undefined) refuse(R.NoLeaf);
  if (cs.family === Family.Iavl) checkIavlPrefix(leaf.prefix, 0, W.Leaf, 0);
  if (leaf.hash !== leafSpec.hash) refuse(R.LeafHash, W.Leaf, 0, leaf.hash, leafSpec.hash);
  if (leaf.prehashKey !== leafSpec.prehashKey) refuse(R.LeafPrehashKey, W.Leaf, 0, leaf.prehashKey, leafSpec.prehashKey);
  if (leaf.prehashValue !== leafSpec.prehashValue) refuse(R.LeafPrehashValue, W.Leaf, 0, leaf.prehashValue, leafSpec.prehashValue);
  if (leaf.length !== leafSpec.length) refuse(R.LeafLength, W.Leaf, 0, leaf.length, leafSpec.length);
  if (!startsWith(leaf.prefix, leafSpec.prefix)) refuse(R.LeafPrefix, W.Leaf);
  const depth = ep.path.length;
  if (minDepth > 0 && depth < minDepth) refuse(R.MinDepth, W.Proof, 0, depth, minDepth);
  if (depth > cs.maxDepth) refuse(R.MaxDepth, W.Proof, 0, depth, cs.maxDepth);
  const maxPrefix = innerSpec.maxPrefixLength + (innerSpec.childOrder.length - 1) * innerSpec.childSize;
  for (let i = 0; i < depth; i++) {
    const op = ep.path[i];
    if (op.hash !== innerSpec.hash) refuse(R.InnerHash, W.Inner, i, op.hash, innerSpec.hash);
    if (cs.family === Family.Iavl) checkIavlPrefix(op.prefix, i + 1, W.Inner, i);
    else if (cs.family === Family.Tendermint) {
      if (op.prefix.length === 0) refuse(R.TendermintPrefix, W.Inner, i, 0);
      if (op.hasSuffix && (op.prefix.length !== 1 || op.prefix[0] !== 1)) refuse(R.TendermintPrefix, W.Inner, i, 1);
      if (op.prefix[0] !== 1) refuse(R.TendermintPrefix, W.Inner, i, 2);
    }
    if (startsWith(op.prefix, leafSpec.prefix)) refuse(R.InnerLeafPrefix, W.Inner, i);
    if (op.prefix.length < innerSpec.minPrefixLength) refuse(R.InnerPrefixShort, W.Inner, i, op.prefix.length, innerSpec.minPrefixLength);
    if (op.prefix.length > maxPrefix) refuse(R.InnerPrefixLong, W.Inner, i, op.prefix.length, maxPrefix);
    if (op.suffix.length % innerSpec.childSize !== 0) refuse(R.InnerSuffix, W.Inner, i, op.suffix.length, innerSpec.childSize);
  }
}

/**
 * ExistenceProof.Verify against `root`, or, without one, the root it calculates (CommitmentOp.Run verifies
 * a proof against the root calculated from it, so the comparison there is the proof's own consistency).
 */
function verifyExist(ep: Exist, cs: CheckedSpec, key: Uint8Array, value: Uint8Array, root: Uint8Array | undefined): Uint8Array {
  checkAgainstSpec(ep, cs);
  if (!equal(key, ep.key)) refuse(R.KeyMismatch);
  if (!equal(value, ep.value)) refuse(R.ValueMismatch);
  const calc = calculate(ep);
  if (root !== undefined && !equal(root, calc)) refuse(R.RootMismatch);
  return calc;
}

// ---- neighbours (proof.go IsLeftMost, IsRightMost, IsLeftNeighbor) ----

function hasPadding(op: Inner, minPrefix: number, maxPrefix: number, suffix: number): boolean {
  return op.prefix.length >= minPrefix && op.prefix.length <= maxPrefix && op.suffix.length === suffix;
}

/** [minPrefix, maxPrefix, suffix] of a child at `branch`. */
function padding(cs: CheckedSpec, branch: number): [number, number, number] {
  const { childSize, minPrefixLength, maxPrefixLength, childOrder } = cs.spec.innerSpec;
  const idx = cs.position[branch];
  return [idx * childSize + minPrefixLength, idx * childSize + maxPrefixLength, (childOrder.length - 1 - idx) * childSize];
}

/** The branch whose padding the op has, or -1. */
function orderFromPadding(cs: CheckedSpec, op: Inner): number {
  const n = cs.spec.innerSpec.childOrder.length;
  for (let branch = 0; branch < n; branch++) {
    const [minp, maxp, suffix] = padding(cs, branch);
    if (hasPadding(op, minp, maxp, suffix)) return branch;
  }
  return -1;
}

function emptyAt(cs: CheckedSpec, bytes: Uint8Array, from: number): boolean {
  const { emptyChild, childSize } = cs.spec.innerSpec;
  if (from < 0 || from + childSize > bytes.length || emptyChild.length !== childSize) return false;
  for (let i = 0; i < childSize; i++) if (bytes[from + i] !== emptyChild[i]) return false;
  return true;
}

function leftBranchesAreEmpty(cs: CheckedSpec, op: Inner): boolean {
  const idx = orderFromPadding(cs, op);
  if (idx <= 0) return false;
  const { childSize } = cs.spec.innerSpec;
  const actualPrefix = op.prefix.length - idx * childSize;
  if (actualPrefix < 0) return false;
  for (let i = 0; i < idx; i++) if (!emptyAt(cs, op.prefix, actualPrefix + cs.position[i] * childSize)) return false;
  return true;
}

function rightBranchesAreEmpty(cs: CheckedSpec, op: Inner): boolean {
  const idx = orderFromPadding(cs, op);
  if (idx < 0) return false;
  const { childSize, childOrder } = cs.spec.innerSpec;
  const rightBranches = childOrder.length - 1 - idx;
  if (rightBranches === 0 || op.suffix.length !== rightBranches * childSize) return false;
  for (let i = 0; i < rightBranches; i++) if (!emptyAt(cs, op.suffix, cs.position[i] * childSize)) return false;
  return true;
}

function isLeftMost(cs: CheckedSpec, path: Inner[], from: number, to: number): boolean {
  const [minp, maxp, suffix] = padding(cs, 0);
  for (let i = from; i < to; i++) if (!hasPadding(path[i], minp, maxp, suffix) && !leftBranchesAreEmpty(cs, path[i])) return false;
  return true;
}

function isRightMost(cs: CheckedSpec, path: Inner[], from: number, to: number): boolean {
  const [minp, maxp, suffix] = padding(cs, cs.spec.innerSpec.childOrder.length - 1);
  for (let i = from; i < to; i++) if (!hasPadding(path[i], minp, maxp, suffix) && !rightBranchesAreEmpty(cs, path[i])) return false;
  return true;
}

/** Below the paths' common top, the left path's first divergent step is one branch left of the right's, and the rest are right-most and left-most. */
function isLeftNeighbor(cs: CheckedSpec, left: Inner[], right: Inner[]): boolean {
  let l = left.length - 1;
  let r = right.length - 1;
  if (l < 0 || r < 0) return false;
  while (equal(left[l].prefix, right[r].prefix) && equal(left[l].suffix, right[r].suffix)) {
    if (l === 0 || r === 0) return false;
    l--;
    r--;
  }
  const li = orderFromPadding(cs, left[l]);
  const ri = orderFromPadding(cs, right[r]);
  if (li < 0 || ri < 0 || ri !== li + 1) return false;
  return isRightMost(cs, left, 0, l) && isLeftMost(cs, right, 0, r);
}

function keyForComparison(cs: CheckedSpec, key: Uint8Array): Uint8Array {
  if (!cs.spec.prehashKeyBeforeComparison) return key;
  const op = cs.spec.leafSpec.prehashKey;
  return op === HashOp.NO_HASH ? key : hash(op, key);
}

/** NonExistenceProof.Verify against `root`, or without one against the root its first neighbour calculates. */
function verifyNonExist(np: NonExist, cs: CheckedSpec, key: Uint8Array, root: Uint8Array | undefined): Uint8Array {
  const { left, right } = np;
  if (left !== undefined) root = onSide(S.Left, () => verifyExist(left, cs, left.key, left.value, root));
  if (right !== undefined) root = onSide(S.Right, () => verifyExist(right, cs, right.key, right.value, root));
  if (left === undefined && right === undefined) refuse(R.NoNeighbours);
  const k = keyForComparison(cs, key);
  if (right !== undefined && compare(k, keyForComparison(cs, right.key)) >= 0) refuse(R.NotLeftOfRight);
  if (left !== undefined && compare(k, keyForComparison(cs, left.key)) <= 0) refuse(R.NotRightOfLeft);
  if (left === undefined) {
    if (!isLeftMost(cs, right!.path, 0, right!.path.length)) refuse(R.NotLeftMost);
  } else if (right === undefined) {
    if (!isRightMost(cs, left.path, 0, left.path.length)) refuse(R.NotRightMost);
  } else if (!isLeftNeighbor(cs, left.path, right.path)) refuse(R.NotAdjacent);
  return root!;
}

// ---- the entry points ----

/** CommitmentProof.Calculate: the root of the (first) existence proof it holds. */
function calculateProof(p: Proof): Uint8Array {
  switch (p.kind) {
    case EXIST:
      return calculate(p.exist);
    case NONEXIST:
      return calculateNonExist(p.nonexist);
    case BATCH: {
      const first = p.entries[0];
      if (first === undefined) refuse(p.entries.length === 0 ? R.EmptyBatch : R.EmptyProof);
      return "exist" in first ? calculate(first.exist) : calculateNonExist(first.nonexist);
    }
    default:
      refuse(R.EmptyProof);
  }
}

function calculateNonExist(np: NonExist): Uint8Array {
  if (np.left !== undefined) return onSide(S.Left, () => calculate(np.left!));
  if (np.right !== undefined) return onSide(S.Right, () => calculate(np.right!));
  refuse(R.NoNeighbours);
}

export function calculateRoot(proof: Uint8Array): Uint8Array {
  return calculateProof(decodeProof(proof));
}

/** An existence proof or non-existence proof that verified, and the root it verified against. */
export interface Verified<T> {
  root: Uint8Array;
  proven: T;
}

/** VerifyMembership. Without `root`, against the root the proof calculates (a store proof's op); returns that root and the entry checked. */
export function verifyMembership(cs: CheckedSpec, root: Uint8Array | undefined, p: Proof, key: Uint8Array, value: Uint8Array): Verified<Exist> {
  switch (p.kind) {
    case EXIST:
      return { root: verifyExist(p.exist, cs, key, value, root), proven: p.exist };
    case BATCH: {
      root ??= calculateProof(p);
      for (const e of p.entries)
        if (e !== undefined && "exist" in e && equal(e.exist.key, key)) return { root: verifyExist(e.exist, cs, key, value, root), proven: e.exist };
      return refuse(R.NoBatchEntry, W.Proof, 0, 1);
    }
    case NONEXIST:
      return refuse(R.NotExistence, W.Proof, 0, 2);
    default:
      return refuse(R.EmptyProof);
  }
}

/** VerifyNonMembership (as verifyMembership); returns the root and the non-existence entry checked. */
export function verifyNonMembership(cs: CheckedSpec, root: Uint8Array | undefined, p: Proof, key: Uint8Array): Verified<NonExist> {
  switch (p.kind) {
    case NONEXIST:
      return { root: verifyNonExist(p.nonexist, cs, key, root), proven: p.nonexist };
    case BATCH: {
      root ??= calculateProof(p);
      const k = keyForComparison(cs, key);
      for (const e of p.entries) {
        if (e === undefined || !("nonexist" in e)) continue;
        const { left, right } = e.nonexist;
        if (
          (left === undefined || compare(keyForComparison(cs, left.key), k) < 0) &&
          (right === undefined || compare(keyForComparison(cs, right.key), k) > 0)
        ) {
          return { root: verifyNonExist(e.nonexist, cs, key, root), proven: e.nonexist };
        }
      }
      return refuse(R.NoBatchEntry, W.Proof, 0, 2);
    }
    case EXIST:
      return refuse(R.NotNonexistence, W.Proof, 0, 1);
    default:
      return refuse(R.EmptyProof);
  }
}

/** What op 0 of a verified store proof proved: the existence entry, or the non-existence entry, it checked. */
export type ChainProof = { exist: Exist; nonexist?: undefined } | { exist?: undefined; nonexist: NonExist };

/**
 * A store proof's ops in turn (CometBFT's ProofOperators.Verify running the SDK's CommitmentOp.Run): the
 * first proves the key's value (or its absence) in the store, each next one the previous root under its key;
 * the last root must be the app hash. Returns the index of the op that refused, with its refusal, or what
 * op 0 proved.
 */
export function verifyChain(
  ops: readonly { spec: CheckedSpec; key: Uint8Array; data: Uint8Array }[],
  appHash: Uint8Array,
  value: Uint8Array | undefined,
): { op: number; refusal: Refusal } | { proven: ChainProof } {
  let root: Uint8Array | undefined = value;
  let proven: ChainProof | undefined;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    try {
      const p = decodeProof(op.data);
      if (root === undefined) {
        const v = verifyNonMembership(op.spec, undefined, p, op.key);
        root = v.root;
        proven ??= { nonexist: v.proven };
      } else {
        const v = verifyMembership(op.spec, undefined, p, op.key, root);
        root = v.root;
        proven ??= { exist: v.proven };
      }
    } catch (e) {
      if (e instanceof Refusal) return { op: i, refusal: e };
      throw e;
    }
  }
  if (!equal(root!, appHash))
    return { op: ops.length, refusal: new Refusal({ reason: R.AppHashMismatch, where: W.Proof, side: S.None, step: 0, a: 0, b: 0, c: 0, v: 0n }) };
  return { proven: proven! };
}
