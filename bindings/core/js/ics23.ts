/**
 * ICS23 proof verification in TypeScript (docs/spec/core.md §14). Twin of assembly/ics23.ts: the same
 * decoding, the same checks in the same order, the same refusals (Ics23Failure, worded by ../ics23.ts).
 *
 * The checks are cosmos/ics23's (go/proof.go, go/ops.go): a proof's leaf and inner ops against the spec,
 * IAVL's and Tendermint's prefix rules, the depth limits, the hashes up to the root; for a non-existence
 * proof both neighbours, the key strictly between them, and the neighbours adjacent. Batch proofs are read
 * as ics23 v0.11 (the Cosmos SDK v0.50's) reads them.
 */
import { Ics23Reason as R, Ics23Side as S, Ics23Where as W, Family, HashOp, LengthOp, type CheckedSpec, type Ics23Failure } from "../ics23.js";
import { Malformed } from "../constants.generated.js";
import { sha256 } from "./sha256.js";

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
  /** whether the suffix field was on the wire (ics23's Tendermint rule tells a nil suffix from an empty one) */
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

type Proof =
  | { kind: 0 }
  | { kind: 1; exist: Exist }
  | { kind: 2; nonexist: NonExist }
  | { kind: 3; entries: Entry[] };

const NONE = 0;
const EXIST = 1;
const NONEXIST = 2;
const BATCH = 3;

const EMPTY = new Uint8Array(0);

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

// ---- protobuf ----

class Reader {
  pos = 0;
  /** the last varint, when it fits 32 bits (lengths, field numbers, enums); hi holds the rest */
  lo = 0;
  hi = 0;
  constructor(
    readonly buf: Uint8Array,
    public end: number,
  ) {}
}

function malformed(reason: number, field = 0, wire = 0): never {
  refuse(R.Malformed, W.Proof, 0, reason, field, wire);
}

/** A varint as gogoproto reads it: at most 10 bytes, bits past 64 dropped. */
function varint(r: Reader, field: number): void {
  const b = r.buf;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < 10; i++) {
    if (r.pos >= r.end) malformed(Malformed.TruncatedVarint, field);
    const c = b[r.pos++];
    const bits = c & 0x7f;
    if (i < 4) lo |= bits << (7 * i);
    else if (i === 4) {
      lo |= bits << 28;
      hi |= bits >>> 4;
    } else hi |= bits << (7 * i - 32);
    if (c < 0x80) {
      r.lo = lo >>> 0;
      r.hi = hi >>> 0;
      return;
    }
  }
  malformed(Malformed.VarintOverflow, field);
}

/** Reads a tag; returns the field number (-1 past 2^29: unknown) and leaves the wire type in r.hi's place. */
function tag(r: Reader): [number, number] {
  varint(r, 0);
  const wire = r.lo & 7;
  const field = r.hi !== 0 ? -1 : r.lo >>> 3;
  if (field === 0) malformed(Malformed.FieldZero, 0, wire);
  if (wire === 6 || wire === 7) malformed(Malformed.IllegalWireType, field, wire);
  // An end-group with no group open (gogoproto: "wiretype end group for non-group"); a group in an unknown field is skipped.
  if (wire === 4) malformed(Malformed.Group, field, wire);
  return [field, wire];
}

function lengthEnd(r: Reader, field: number): number {
  varint(r, field);
  if (r.hi !== 0 || r.lo > r.end - r.pos) malformed(Malformed.LengthPastEnd, field, 2);
  return r.pos + r.lo;
}

/** Skips an unknown field's value; a group (wire type 3) up to its end, nested groups counted, as gogoproto's skip. */
function skip(r: Reader, field: number, wire: number): void {
  let depth = wire === 3 ? 1 : 0;
  for (;;) {
    if (wire === 0) varint(r, field);
    else if (wire === 2) r.pos = lengthEnd(r, field);
    else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (r.end - r.pos < n) malformed(Malformed.TruncatedFixed, field, wire);
      r.pos += n;
    }
    if (depth === 0) return;
    varint(r, field);
    wire = r.lo & 7;
    if (wire === 6 || wire === 7) malformed(Malformed.IllegalWireType, field, wire);
    if (wire === 3) depth++;
    else if (wire === 4) depth--;
    if (depth === 0) return;
  }
}

function bytesField(r: Reader, field: number, wire: number): Uint8Array {
  if (wire !== 2) malformed(Malformed.WrongWireType, field, wire);
  const end = lengthEnd(r, field);
  const v = r.buf.subarray(r.pos, end);
  r.pos = end;
  return v;
}

/** An enum: an int32 varint (Go keeps the low 32 bits). */
function enumField(r: Reader, field: number, wire: number): number {
  if (wire !== 0) malformed(Malformed.WrongWireType, field, wire);
  varint(r, field);
  return r.lo | 0;
}

/** Enters a submessage: returns the end of the enclosing one and narrows the reader to the submessage. */
function enter(r: Reader, field: number, wire: number): number {
  if (wire !== 2) malformed(Malformed.WrongWireType, field, wire);
  const end = lengthEnd(r, field);
  const outer = r.end;
  r.end = end;
  return outer;
}

function leave(r: Reader, outer: number): void {
  r.end = outer;
}

/** LeafOp fields into `leaf` (a second occurrence of the field merges into the first, as protobuf says). */
function decodeLeaf(r: Reader, leaf: Leaf): void {
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field === 1) leaf.hash = enumField(r, field, wire);
    else if (field === 2) leaf.prehashKey = enumField(r, field, wire);
    else if (field === 3) leaf.prehashValue = enumField(r, field, wire);
    else if (field === 4) leaf.length = enumField(r, field, wire);
    else if (field === 5) leaf.prefix = bytesField(r, field, wire);
    else skip(r, field, wire);
  }
}

function decodeInner(r: Reader): Inner {
  const op: Inner = { hash: 0, prefix: EMPTY, suffix: EMPTY, hasSuffix: false };
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field === 1) op.hash = enumField(r, field, wire);
    else if (field === 2) op.prefix = bytesField(r, field, wire);
    else if (field === 3) {
      op.suffix = bytesField(r, field, wire);
      op.hasSuffix = true;
    } else skip(r, field, wire);
  }
  return op;
}

function decodeExist(r: Reader, ep: Exist): Exist {
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field === 1) ep.key = bytesField(r, field, wire);
    else if (field === 2) ep.value = bytesField(r, field, wire);
    else if (field === 3) {
      const outer = enter(r, field, wire);
      decodeLeaf(r, (ep.leaf ??= { hash: 0, prehashKey: 0, prehashValue: 0, length: 0, prefix: EMPTY }));
      leave(r, outer);
    } else if (field === 4) {
      const outer = enter(r, field, wire);
      ep.path.push(decodeInner(r));
      leave(r, outer);
    } else skip(r, field, wire);
  }
  return ep;
}

const newExist = (): Exist => ({ key: EMPTY, value: EMPTY, leaf: undefined, path: [] });

function decodeNonExist(r: Reader): NonExist {
  const np: NonExist = { key: EMPTY, left: undefined, right: undefined };
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field === 1) np.key = bytesField(r, field, wire);
    else if (field === 2 || field === 3) {
      const outer = enter(r, field, wire);
      if (field === 2) np.left = decodeExist(r, np.left ?? newExist());
      else np.right = decodeExist(r, np.right ?? newExist());
      leave(r, outer);
    } else skip(r, field, wire);
  }
  return np;
}

function decodeBatch(r: Reader): Entry[] {
  const entries: Entry[] = [];
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field !== 1) {
      skip(r, field, wire);
      continue;
    }
    const outer = enter(r, field, wire);
    let entry: Entry;
    while (r.pos < r.end) {
      const [f, w] = tag(r);
      if (f === 1 || f === 2) {
        const o = enter(r, f, w);
        entry = f === 1 ? { exist: decodeExist(r, newExist()) } : { nonexist: decodeNonExist(r) };
        leave(r, o);
      } else skip(r, f, w);
    }
    entries.push(entry);
    leave(r, outer);
  }
  return entries;
}

/** A CompressedExistenceProof: an ExistenceProof whose path is indices into the batch's lookup table. */
interface CompressedExist {
  key: Uint8Array;
  value: Uint8Array;
  leaf: Leaf | undefined;
  path: number[];
}

function decodeCompressedExist(r: Reader, ep: CompressedExist): CompressedExist {
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field === 1) ep.key = bytesField(r, field, wire);
    else if (field === 2) ep.value = bytesField(r, field, wire);
    else if (field === 3) {
      const outer = enter(r, field, wire);
      decodeLeaf(r, (ep.leaf ??= { hash: 0, prehashKey: 0, prehashValue: 0, length: 0, prefix: EMPTY }));
      leave(r, outer);
    } else if (field === 4 && wire === 2) {
      // packed int32s (Go keeps each value's low 32 bits)
      const outer = enter(r, field, wire);
      while (r.pos < r.end) {
        varint(r, field);
        ep.path.push(r.lo | 0);
      }
      leave(r, outer);
    } else if (field === 4) ep.path.push(enumField(r, field, wire));
    else skip(r, field, wire);
  }
  return ep;
}

const newCompressedExist = (): CompressedExist => ({ key: EMPTY, value: EMPTY, leaf: undefined, path: [] });

type CompressedEntry = { exist: CompressedExist } | { key: Uint8Array; left?: CompressedExist; right?: CompressedExist } | undefined;

function decodeCompressedNonExist(r: Reader): CompressedEntry {
  const ne: { key: Uint8Array; left?: CompressedExist; right?: CompressedExist } = { key: EMPTY };
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field === 1) ne.key = bytesField(r, field, wire);
    else if (field === 2 || field === 3) {
      const outer = enter(r, field, wire);
      if (field === 2) ne.left = decodeCompressedExist(r, ne.left ?? newCompressedExist());
      else ne.right = decodeCompressedExist(r, ne.right ?? newCompressedExist());
      leave(r, outer);
    } else skip(r, field, wire);
  }
  return ne;
}

/** A CompressedBatchProof as it is on the wire: entries whose paths index the lookup table. */
function decodeCompressed(r: Reader): { entries: CompressedEntry[]; lookup: Inner[] } {
  const entries: CompressedEntry[] = [];
  const lookup: Inner[] = [];
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field !== 1 && field !== 2) {
      skip(r, field, wire);
      continue;
    }
    const outer = enter(r, field, wire);
    if (field === 2) lookup.push(decodeInner(r));
    else {
      let entry: CompressedEntry;
      while (r.pos < r.end) {
        const [f, w] = tag(r);
        if (f === 1 || f === 2) {
          const o = enter(r, f, w);
          entry = f === 1 ? { exist: decodeCompressedExist(r, newCompressedExist()) } : decodeCompressedNonExist(r);
          leave(r, o);
        } else skip(r, f, w);
      }
      entries.push(entry);
    }
    leave(r, outer);
  }
  return { entries, lookup };
}

/** Decompress (ics23 v0.11): every entry's path resolved through the lookup table, or the proof refused. */
function decompress({ entries, lookup }: { entries: CompressedEntry[]; lookup: Inner[] }): Entry[] {
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
    return { nonexist: { key: c.key, left: c.left && expand(c.left), right: c.right && expand(c.right) } };
  });
}

/** A CommitmentProof. The oneof's last field on the wire wins; a compressed batch is decompressed into a batch. */
export function decodeProof(bytes: Uint8Array): Proof {
  const r = new Reader(bytes, bytes.length);
  let proof: Proof = { kind: NONE };
  let compressed: ReturnType<typeof decodeCompressed> | undefined;
  while (r.pos < r.end) {
    const [field, wire] = tag(r);
    if (field < 1 || field > 4) {
      skip(r, field, wire);
      continue;
    }
    const outer = enter(r, field, wire);
    compressed = undefined;
    if (field === 1) proof = { kind: EXIST, exist: decodeExist(r, newExist()) };
    else if (field === 2) proof = { kind: NONEXIST, nonexist: decodeNonExist(r) };
    else if (field === 3) proof = { kind: BATCH, entries: decodeBatch(r) };
    else compressed = decodeCompressed(r);
    leave(r, outer);
  }
  return compressed ? { kind: BATCH, entries: decompress(compressed) } : proof;
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

/** VerifyMembership. Without `root`, against the root the proof calculates (a store proof's op); returns that root. */
export function verifyMembership(cs: CheckedSpec, root: Uint8Array | undefined, p: Proof, key: Uint8Array, value: Uint8Array): Uint8Array {
  switch (p.kind) {
    case EXIST:
      return verifyExist(p.exist, cs, key, value, root);
    case BATCH: {
      root ??= calculateProof(p);
      for (const e of p.entries) if (e !== undefined && "exist" in e && equal(e.exist.key, key)) return verifyExist(e.exist, cs, key, value, root);
      refuse(R.NoBatchEntry, W.Proof, 0, 1);
    }
    // eslint-disable-next-line no-fallthrough
    case NONEXIST:
      refuse(R.NotExistence, W.Proof, 0, 2);
    default:
      refuse(R.EmptyProof);
  }
}

export function verifyNonMembership(cs: CheckedSpec, root: Uint8Array | undefined, p: Proof, key: Uint8Array): Uint8Array {
  switch (p.kind) {
    case NONEXIST:
      return verifyNonExist(p.nonexist, cs, key, root);
    case BATCH: {
      root ??= calculateProof(p);
      const k = keyForComparison(cs, key);
      for (const e of p.entries) {
        if (e === undefined || !("nonexist" in e)) continue;
        const { left, right } = e.nonexist;
        if ((left === undefined || compare(keyForComparison(cs, left.key), k) < 0) && (right === undefined || compare(keyForComparison(cs, right.key), k) > 0)) {
          return verifyNonExist(e.nonexist, cs, key, root);
        }
      }
      refuse(R.NoBatchEntry, W.Proof, 0, 2);
    }
    // eslint-disable-next-line no-fallthrough
    case EXIST:
      refuse(R.NotNonexistence, W.Proof, 0, 1);
    default:
      refuse(R.EmptyProof);
  }
}

/**
 * A store proof's ops in turn (CometBFT's ProofOperators.Verify running the SDK's CommitmentOp.Run): the
 * first proves the key's value (or its absence) in the store, each next one the previous root under its key;
 * the last root must be the app hash. Returns the index of the op that refused, with its refusal, or throws
 * nothing when the proof holds.
 */
export function verifyChain(
  ops: readonly { spec: CheckedSpec; key: Uint8Array; data: Uint8Array }[],
  appHash: Uint8Array,
  value: Uint8Array | undefined,
): { op: number; refusal: Refusal } | undefined {
  let root: Uint8Array | undefined = value;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    try {
      const p = decodeProof(op.data);
      root = root === undefined ? verifyNonMembership(op.spec, undefined, p, op.key) : verifyMembership(op.spec, undefined, p, op.key, root);
    } catch (e) {
      if (e instanceof Refusal) return { op: i, refusal: e };
      throw e;
    }
  }
  if (!equal(root!, appHash)) return { op: ops.length, refusal: new Refusal({ reason: R.AppHashMismatch, where: W.Proof, side: S.None, step: 0, a: 0, b: 0, c: 0, v: 0n }) };
  return undefined;
}
