// ICS23 proof verification (docs/spec/core.md §14). Twin of bindings/core/js/ics23.ts: the same decoding,
// the same checks in the same order, the same refusals (assembly/ics23-reasons.ts). Nothing is allocated per
// call: a proof is read where the host wrote it (IO), its existence proofs into two static slots (one per
// neighbour), their inner ops into growable regions, and every hash preimage is built in one scratch region.
// What a verified proof proved is left at ics23Facts(): the places, in IO, of the entries it checked.
import { sha256 } from "./sha256";
import { H_OUT_LEN, IO, OUT, ensure, regionPtr, setHeaderI32 } from "./memory";
import { M_FIELD_ZERO, M_GROUP, M_ILLEGAL_WIRE_TYPE, M_LENGTH_PAST_END, M_WRONG_WIRE_TYPE } from "./status";
import {
  E_APP_HASH_MISMATCH, E_COMPRESSED_INDEX, E_EMPTY_BATCH, E_EMPTY_KEY, E_EMPTY_PROOF, E_EMPTY_VALUE, E_IAVL_HEIGHT, E_IAVL_REMAINDER,
  E_IAVL_SIZE, E_IAVL_VARINT, E_IAVL_VERSION, E_INNER_HASH, E_INNER_LEAF_PREFIX, E_INNER_PREFIX_LONG, E_INNER_PREFIX_SHORT,
  E_INNER_SUFFIX, E_KEY_MISMATCH, E_LEAF_HASH, E_LEAF_LENGTH, E_LEAF_PREFIX, E_LEAF_PREHASH_KEY, E_LEAF_PREHASH_VALUE,
  E_LENGTH_REQUIRED, E_MALFORMED, E_MAX_DEPTH, E_MIN_DEPTH, E_NO_BATCH_ENTRY, E_NO_LEAF, E_NO_NEIGHBOURS, E_NOT_ADJACENT,
  E_NOT_EXISTENCE, E_NOT_LEFT_MOST, E_NOT_LEFT_OF_RIGHT, E_NOT_NONEXISTENCE, E_NOT_RIGHT_MOST, E_NOT_RIGHT_OF_LEFT, E_OK,
  E_ROOT_MISMATCH, E_TENDERMINT_PREFIX, E_UNSUPPORTED_HASH, E_UNSUPPORTED_LENGTH, E_VALUE_MISMATCH, S_LEFT, S_NONE, S_RIGHT,
  W_INNER, W_LEAF, W_PROOF, E_NON_CANONICAL, N_ONEOF, N_TWICE, N_UNKNOWN, N_DEFAULT, N_ORDER, N_VARINT, N_INT32, N_UNPACKED,
  MSG_COMMITMENT_PROOF, MSG_EXISTENCE_PROOF, MSG_NON_EXISTENCE_PROOF, MSG_LEAF_OP, MSG_INNER_OP, MSG_BATCH_PROOF, MSG_BATCH_ENTRY,
  MSG_COMPRESSED_BATCH_PROOF, MSG_COMPRESSED_BATCH_ENTRY, MSG_COMPRESSED_EXISTENCE_PROOF, MSG_COMPRESSED_NON_EXISTENCE_PROOF,
  F_EXIST, F_LEFT, F_RIGHT, F_SIZE,
} from "./ics23-reasons";
import { readVarint, varintEnd, varintMinimal, varintValue } from "./varint";

// ---- the refusal's details, read by the host (bindings/core/wasm/ics23.ts) ----

// [reason, where, side, step, a, b, c, op] as i32, then v as i64.
const DETAIL: usize = memory.data(40, 8);

export function ics23Detail(): usize {
  return DETAIL;
}

function fail(reason: i32, where: i32, step: i32, a: i32, b: i32, c: i32, v: i64): i32 {
  store<i32>(DETAIL, reason, 0);
  store<i32>(DETAIL, where, 4);
  store<i32>(DETAIL, S_NONE, 8);
  store<i32>(DETAIL, step, 12);
  store<i32>(DETAIL, a, 16);
  store<i32>(DETAIL, b, 20);
  store<i32>(DETAIL, c, 24);
  store<i64>(DETAIL, v, 32);
  return reason;
}

@inline function refuse(reason: i32): i32 {
  return fail(reason, W_PROOF, 0, 0, 0, 0, 0);
}

/** Marks a neighbour's refusal with its side (unless it has one). */
function onSide(e: i32, side: i32): i32 {
  if (e != E_OK && load<i32>(DETAIL, 8) == S_NONE) store<i32>(DETAIL, side, 8);
  return e;
}

// ---- the spec, as the host encodes it (bindings/core/wasm/ics23.ts encodeSpec) ----

const SP_FAMILY = 0;
const SP_LEAF_HASH = 4;
const SP_PREHASH_KEY = 8;
const SP_PREHASH_VALUE = 12;
const SP_LENGTH = 16;
const SP_INNER_HASH = 20;
const SP_CHILD_SIZE = 24;
const SP_MIN_PREFIX = 28;
const SP_MAX_PREFIX = 32;
const SP_MAX_DEPTH = 36;
const SP_MIN_DEPTH = 40;
const SP_PREHASH_COMPARE = 44;
const SP_CHILDREN = 48;
const SP_LEAF_PREFIX_LEN = 52;
const SP_EMPTY_CHILD_LEN = 56;
const SP_ORDER = 60; // then the position of each branch (n i32), the leaf prefix, the empty child

const FAMILY_IAVL = 1;
const FAMILY_TENDERMINT = 2;
const HASH_NONE = 0;
const HASH_SHA256 = 1;

let spec: usize = 0;

@inline function sp(field: i32): i32 {
  return load<i32>(spec + <usize>field);
}

@inline function position(branch: i32): i32 {
  return load<i32>(spec + SP_ORDER + (<usize>(sp(SP_CHILDREN) + branch) << 2));
}

@inline function leafPrefix(): usize {
  return spec + SP_ORDER + (<usize>sp(SP_CHILDREN) << 3);
}

@inline function emptyChild(): usize {
  return leafPrefix() + <usize>sp(SP_LEAF_PREFIX_LEN);
}

// ---- regions of this file ----

const R_PATH0: i32 = 0; // inner ops of slot 0 (an existence proof, or the left neighbour)
const R_PATH1: i32 = 1; // inner ops of slot 1 (the right neighbour)
const R_LOOKUP: i32 = 2; // a compressed batch's lookup table
const R_SCRATCH: i32 = 3; // a hash preimage
const R_ENTRIES: i32 = 4; // a batch's entries: [kind, start, end]
const REGIONS: usize = memory.data(5 * 8, 8);

function grow(r: i32, n: i32): usize {
  const at = REGIONS + (<usize>r << 3);
  let ptr = <usize>load<u32>(at);
  const cap = load<i32>(at, 4);
  if (n <= cap) return ptr;
  const next = max(max(n, cap << 1), 256);
  ptr = ptr == 0 ? heap.alloc(<usize>next) : heap.realloc(ptr, <usize>next);
  store<u32>(at, <u32>ptr);
  store<i32>(at, next, 4);
  return ptr;
}

@inline function base(r: i32): usize {
  return <usize>load<u32>(REGIONS + (<usize>r << 3));
}

// ---- decoded existence proofs: two slots ----

// An inner op: [hash, prefix ptr, prefix len, suffix ptr, suffix len, suffix present].
const INNER = 24;
// A slot: key, value, leaf ops and prefix, path count, present.
const X_KEY_PTR = 0;
const X_KEY_LEN = 4;
const X_VAL_PTR = 8;
const X_VAL_LEN = 12;
const X_HAS_LEAF = 16;
const X_HASH = 20;
const X_PREHASH_KEY = 24;
const X_PREHASH_VALUE = 28;
const X_LENGTH = 32;
const X_PREFIX_PTR = 36;
const X_PREFIX_LEN = 40;
const X_PATH = 44;
const X_PRESENT = 48;
const SLOTS: usize = memory.data(2 * 64, 8);
// a non-existence proof has a key field too; it is read and, as in ics23, never used

@inline function slot(s: i32): usize {
  return SLOTS + (<usize>s << 6);
}

@inline function xi(s: i32, f: i32): i32 {
  return load<i32>(slot(s) + <usize>f);
}

@inline function setX(s: i32, f: i32, v: i32): void {
  store<i32>(slot(s) + <usize>f, v);
}

@inline function inner(s: i32, i: i32): usize {
  return base(s) + <usize>(i * INNER);
}

function clearSlot(s: i32): void {
  memory.fill(slot(s), 0, 64);
}

// ---- protobuf, as an honest encoder writes it (docs/spec/core.md §14.2) ----

let pos: usize = 0;
let end: usize = 0;
let vval: u64 = 0;
let tagField: i32 = 0;
let tagWire: i32 = 0;
// The message being read (MSG_*), for a refusal's wording: set by nextField before every tag.
let msg: i32 = 0;

// Which varint a non-minimal one is (E_NON_CANONICAL's v for N_VARINT).
const V_TAG = 0;
const V_LENGTH = 1;
const V_VALUE = 2;
const V_ELEMENT = 3;

@inline function malformed(reason: i32, field: i32, wire: i32): i32 {
  return fail(E_MALFORMED, W_PROOF, 0, reason, field, wire, 0);
}

function nonCanonical(form: i32, field: i32, other: i32): i32 {
  return fail(E_NON_CANONICAL, W_PROOF, 0, form, msg, field, <i64>other);
}

/** A varint (./varint.ts) into vval, and minimal: no trailing zero group, a tenth byte only to carry bit 63. */
function varint(field: i32, role: i32): i32 {
  const e = readVarint(pos, end);
  if (e) return malformed(e, field, 0);
  pos = varintEnd;
  vval = varintValue;
  if (!varintMinimal()) return nonCanonical(N_VARINT, role == V_TAG ? fieldOf(vval) : field, role);
  return E_OK;
}

/** A tag's field number; -1 past 32 bits (unknown to every message here). */
@inline function fieldOf(t: u64): i32 {
  return (t >> 32) != 0 ? -1 : <i32>(<u32>t >>> 3);
}

function tag(): i32 {
  const e = varint(0, V_TAG);
  if (e) return e;
  tagWire = <i32>(vval & 7);
  tagField = fieldOf(vval);
  if (tagField == 0) return malformed(M_FIELD_ZERO, 0, tagWire);
  if (tagWire == 6 || tagWire == 7) return malformed(M_ILLEGAL_WIRE_TYPE, tagField, tagWire);
  if (tagWire == 4) return malformed(M_GROUP, tagField, tagWire);
  return E_OK;
}

/**
 * The next field of message `m` (MSG_*), whose fields are 1 … n, into tagField: its tag, then the canonical
 * rules in this order — a field the message has; its wire type (0 for the fields in the bit set `enums`, else
 * 2; a field in `packed` written as one packed run); its place after field `last`: one member of a oneof,
 * ascending order, a singular field once (a field in `repeated` contiguous, which ascending order implies).
 */
function nextField(m: i32, n: i32, enums: i32, repeated: i32, packed: i32, oneof: bool, last: i32): i32 {
  msg = m;
  const e = tag();
  if (e) return e;
  const f = tagField;
  const w = tagWire;
  if (f < 1 || f > n) return nonCanonical(N_UNKNOWN, f, 0);
  const bit = 1 << f;
  if ((packed & bit) != 0 && w == 0) return nonCanonical(N_UNPACKED, f, 0);
  if (w != ((enums & bit) != 0 ? 0 : 2)) return malformed(M_WRONG_WIRE_TYPE, f, w);
  if (oneof && last != 0) return nonCanonical(N_ONEOF, f, last);
  if (f < last) return nonCanonical(N_ORDER, f, last);
  if (f == last && (repeated & bit) == 0) return nonCanonical(N_TWICE, f, 0);
  return E_OK;
}

// Field sets of nextField: bit f for field f.
const F1_4: i32 = 0b11110; // LeafOp's enums (hash, prehash_key, prehash_value, length)
const F1: i32 = 0b10; // InnerOp's enum (hash); a BatchProof's entries (repeated)
const F4: i32 = 0b10000; // ExistenceProof's path (repeated), CompressedExistenceProof's path (packed)
const F1_2: i32 = 0b110; // a CompressedBatchProof's entries and lookup_inners (repeated)

/** Reads a length prefix; the value's end is left in vval. */
function lengthEnd(field: i32): i32 {
  const e = varint(field, V_LENGTH);
  if (e) return e;
  if (vval > <u64>(end - pos)) return malformed(M_LENGTH_PAST_END, field, 2);
  vval = <u64>pos + vval;
  return E_OK;
}

// A bytes field's place, left by bytesField.
let bPtr: usize = 0;
let bLen: i32 = 0;

/** A bytes field's value (never empty: an encoder leaves an empty one out). */
function bytesField(field: i32): i32 {
  const e = lengthEnd(field);
  if (e) return e;
  bPtr = pos;
  bLen = <i32>(<usize>vval - pos);
  if (bLen == 0) return nonCanonical(N_DEFAULT, field, 0);
  pos = <usize>vval;
  return E_OK;
}

let enumValue: i32 = 0;

/** An int32 varint: a sign-extended 32-bit value (Go keeps the low 32 bits of any other). */
function int32Field(field: i32, role: i32): i32 {
  const e = varint(field, role);
  if (e) return e;
  const high = vval >> 31;
  if (high != 0 && high != 0x1ffffffff) return nonCanonical(N_INT32, field, 0);
  enumValue = <i32>vval;
  return E_OK;
}

/** An enum's value (never 0: an encoder leaves the default out). */
function enumField(field: i32): i32 {
  const e = int32Field(field, V_VALUE);
  if (e) return e;
  if (enumValue == 0) return nonCanonical(N_DEFAULT, field, 0);
  return E_OK;
}

/** Enters a submessage: `end` becomes its end; the enclosing end is returned through outerEnd. */
let outerEnd: usize = 0;

function enter(field: i32): i32 {
  const e = lengthEnd(field);
  if (e) return e;
  outerEnd = end;
  end = <usize>vval;
  return E_OK;
}

function decodeLeaf(s: i32): i32 {
  setX(s, X_HAS_LEAF, 1);
  let last = 0;
  while (pos < end) {
    let e = nextField(MSG_LEAF_OP, 5, F1_4, 0, 0, false, last);
    if (e) return e;
    const f = tagField;
    last = f;
    if (f <= 4) {
      e = enumField(f);
      if (e) return e;
      setX(s, f == 1 ? X_HASH : f == 2 ? X_PREHASH_KEY : f == 3 ? X_PREHASH_VALUE : X_LENGTH, enumValue);
    } else {
      e = bytesField(f);
      if (e) return e;
      setX(s, X_PREFIX_PTR, <i32>bPtr);
      setX(s, X_PREFIX_LEN, bLen);
    }
  }
  return E_OK;
}

/** An InnerOp into the record at `at`. */
function decodeInner(at: usize): i32 {
  memory.fill(at, 0, INNER);
  let last = 0;
  while (pos < end) {
    let e = nextField(MSG_INNER_OP, 3, F1, 0, 0, false, last);
    if (e) return e;
    const f = tagField;
    last = f;
    if (f == 1) {
      e = enumField(f);
      if (e) return e;
      store<i32>(at, enumValue, 0);
    } else {
      e = bytesField(f);
      if (e) return e;
      const slotAt = at + (f == 2 ? 4 : 12);
      store<i32>(slotAt, <i32>bPtr);
      store<i32>(slotAt, bLen, 4);
      if (f == 3) store<i32>(at, 1, 20);
    }
  }
  return E_OK;
}

/** One inner op into slot s's path. */
function pushInner(s: i32): i32 {
  const n = xi(s, X_PATH);
  const at = grow(s, (n + 1) * INNER) + <usize>(n * INNER);
  const e = decodeInner(at);
  if (e) return e;
  setX(s, X_PATH, n + 1);
  return E_OK;
}

// Compressed paths: 0 read the indices only, 1 also resolve them through the lookup table.
let resolving = false;
let lookupCount: i32 = 0;

function pushIndex(s: i32, index: i32): i32 {
  if (!resolving) return E_OK;
  if (index < 0 || index >= lookupCount) return fail(E_COMPRESSED_INDEX, W_PROOF, 0, index, lookupCount, 0, 0);
  const n = xi(s, X_PATH);
  const at = grow(s, (n + 1) * INNER) + <usize>(n * INNER);
  memory.copy(at, base(R_LOOKUP) + <usize>(index * INNER), INNER);
  setX(s, X_PATH, n + 1);
  return E_OK;
}

/** An ExistenceProof (or, compressed, a CompressedExistenceProof) into slot s. */
function decodeExist(s: i32, compressed: bool): i32 {
  setX(s, X_PRESENT, 1);
  let last = 0;
  while (pos < end) {
    // the compressed path is one packed run of indices (an empty run is ts-proto's way to write no path)
    let e = compressed ? nextField(MSG_COMPRESSED_EXISTENCE_PROOF, 4, 0, 0, F4, false, last) : nextField(MSG_EXISTENCE_PROOF, 4, 0, F4, 0, false, last);
    if (e) return e;
    const f = tagField;
    last = f;
    if (f == 1 || f == 2) {
      e = bytesField(f);
      if (e) return e;
      setX(s, f == 1 ? X_KEY_PTR : X_VAL_PTR, <i32>bPtr);
      setX(s, f == 1 ? X_KEY_LEN : X_VAL_LEN, bLen);
      continue;
    }
    e = enter(f);
    if (e) return e;
    const outer = outerEnd;
    if (f == 3) e = decodeLeaf(s);
    else if (!compressed) e = pushInner(s);
    else {
      while (pos < end) {
        e = int32Field(f, V_ELEMENT);
        if (e) return e;
        e = pushIndex(s, enumValue);
        if (e) return e;
      }
    }
    if (e) return e;
    end = outer;
  }
  return E_OK;
}

/** A NonExistenceProof: its left neighbour into slot 0, its right into slot 1. */
function decodeNonExist(compressed: bool): i32 {
  let last = 0;
  while (pos < end) {
    let e = nextField(compressed ? MSG_COMPRESSED_NON_EXISTENCE_PROOF : MSG_NON_EXISTENCE_PROOF, 3, 0, 0, 0, false, last);
    if (e) return e;
    const f = tagField;
    last = f;
    if (f == 1) {
      // the key it proves absent: read and, as in ics23, never used
      e = bytesField(f);
      if (e) return e;
      continue;
    }
    e = enter(f);
    if (e) return e;
    const outer = outerEnd;
    e = decodeExist(f == 2 ? 0 : 1, compressed);
    if (e) return e;
    end = outer;
  }
  return E_OK;
}

const K_NONE = 0;
const K_EXIST = 1;
const K_NONEXIST = 2;
const K_BATCH = 3;
const K_COMPRESSED = 4;

let entryCount: i32 = 0;

/**
 * A BatchEntry or CompressedBatchEntry at pos: its member decoded once to check it, and recorded as
 * [kind, start, end] for a later decode into the slots.
 */
function decodeEntry(compressed: bool): i32 {
  let kind = K_NONE;
  let start: usize = 0;
  let stop: usize = 0;
  let last = 0;
  while (pos < end) {
    let e = nextField(compressed ? MSG_COMPRESSED_BATCH_ENTRY : MSG_BATCH_ENTRY, 2, 0, 0, 0, true, last);
    if (e) return e;
    const f = tagField;
    last = f;
    e = enter(f);
    if (e) return e;
    const outer = outerEnd;
    start = pos;
    stop = end;
    clearSlot(0);
    clearSlot(1);
    e = f == 1 ? decodeExist(0, compressed) : decodeNonExist(compressed);
    if (e) return e;
    kind = f == 1 ? K_EXIST : K_NONEXIST;
    end = outer;
  }
  const at = grow(R_ENTRIES, (entryCount + 1) * 12) + <usize>(entryCount * 12);
  store<i32>(at, kind, 0);
  store<i32>(at, <i32>start, 4);
  store<i32>(at, <i32>stop, 8);
  entryCount++;
  return E_OK;
}

/** A BatchProof (field 1: entries) or a CompressedBatchProof (field 1: entries, field 2: lookup_inners). */
function decodeBatch(compressed: bool): i32 {
  entryCount = 0;
  lookupCount = 0;
  let last = 0;
  while (pos < end) {
    let e = compressed ? nextField(MSG_COMPRESSED_BATCH_PROOF, 2, 0, F1_2, 0, false, last) : nextField(MSG_BATCH_PROOF, 1, 0, F1, 0, false, last);
    if (e) return e;
    const f = tagField;
    last = f;
    e = enter(f);
    if (e) return e;
    const outer = outerEnd;
    if (f == 1) e = decodeEntry(compressed);
    else {
      const at = grow(R_LOOKUP, (lookupCount + 1) * INNER) + <usize>(lookupCount * INNER);
      e = decodeInner(at);
      lookupCount++;
    }
    if (e) return e;
    end = outer;
  }
  return E_OK;
}

let proofKind = K_NONE;

/** Decodes entry i of the batch into the slots. */
function loadEntry(i: i32): i32 {
  const at = base(R_ENTRIES) + <usize>(i * 12);
  clearSlot(0);
  clearSlot(1);
  pos = <usize>load<i32>(at, 4);
  end = <usize>load<i32>(at, 8);
  const compressed = proofKind == K_COMPRESSED;
  resolving = compressed;
  const e = load<i32>(at, 0) == K_EXIST ? decodeExist(0, compressed) : decodeNonExist(compressed);
  resolving = false;
  return e;
}

@inline function entryKind(i: i32): i32 {
  return load<i32>(base(R_ENTRIES) + <usize>(i * 12));
}

/** A CommitmentProof of `len` bytes at `ptr`: at most one member of its oneof. */
function decodeProof(ptr: usize, len: i32): i32 {
  pos = ptr;
  end = ptr + <usize>len;
  proofKind = K_NONE;
  resolving = false;
  let last = 0;
  while (pos < end) {
    let e = nextField(MSG_COMMITMENT_PROOF, 4, 0, 0, 0, true, last);
    if (e) return e;
    const f = tagField;
    last = f;
    e = enter(f);
    if (e) return e;
    const outer = outerEnd;
    clearSlot(0);
    clearSlot(1);
    if (f == 1) e = decodeExist(0, false);
    else if (f == 2) e = decodeNonExist(false);
    else e = decodeBatch(f == 4);
    if (e) return e;
    proofKind = f == 1 ? K_EXIST : f == 2 ? K_NONEXIST : f == 3 ? K_BATCH : K_COMPRESSED;
    end = outer;
  }
  if (proofKind == K_COMPRESSED) {
    // Decompress, as ics23 v0.11 does before anything else: every index of every entry resolved, in order.
    for (let i = 0; i < entryCount; i++) {
      if (entryKind(i) == K_NONE) continue;
      const e = loadEntry(i);
      if (e) return e;
    }
  }
  return E_OK;
}
// ---- hashing ----

// The root each slot calculates; the reference root a proof is checked against.
const ROOTS: usize = memory.data(64, 8);
const REF_BUF: usize = memory.data(32, 8);
const PREHASH: usize = memory.data(32, 8);
const KEY_A: usize = memory.data(32, 8);
const KEY_B: usize = memory.data(32, 8);
let refPtr: usize = 0;
let refLen: i32 = 0;
let hasRef = false;

@inline function rootOf(s: i32): usize {
  return ROOTS + (<usize>s << 5);
}

/** Appends the leaf's key or value, prehashed and length-prefixed, at `at`; returns the new end, or 0 after a refusal. */
let prepared: usize = 0;

function prepare(hashOp: i32, lengthOp: i32, data: usize, len: i32, at: usize): i32 {
  let d = data;
  let n = len;
  if (hashOp != HASH_NONE) {
    if (hashOp != HASH_SHA256) return fail(E_UNSUPPORTED_HASH, W_LEAF, 0, hashOp, 0, 0, 0);
    sha256(data, len, PREHASH);
    d = PREHASH;
    n = 32;
  }
  let p = at;
  if (lengthOp == 1) {
    // VAR_PROTO
    let x = <u32>n;
    while (x >= 0x80) {
      store<u8>(p++, <u8>((x & 0x7f) | 0x80));
      x >>= 7;
    }
    store<u8>(p++, <u8>x);
  } else if (lengthOp == 7 || lengthOp == 8) {
    // REQUIRE_32_BYTES, REQUIRE_64_BYTES
    if (n != (lengthOp == 7 ? 32 : 64)) return fail(E_LENGTH_REQUIRED, W_LEAF, 0, n, lengthOp, 0, 0);
  } else if (lengthOp == 3) {
    store<u32>(p, bswap<u32>(<u32>n));
    p += 4;
  } else if (lengthOp == 4) {
    store<u32>(p, <u32>n);
    p += 4;
  } else if (lengthOp == 5) {
    store<u64>(p, bswap<u64>(<u64>n));
    p += 8;
  } else if (lengthOp == 6) {
    store<u64>(p, <u64>n);
    p += 8;
  } else if (lengthOp != 0) return fail(E_UNSUPPORTED_LENGTH, W_LEAF, 0, lengthOp, 0, 0, 0);
  memory.copy(p, d, <usize>n);
  prepared = p + <usize>n;
  return E_OK;
}

/** ExistenceProof.Calculate for slot s, into rootOf(s). */
function calculate(s: i32): i32 {
  if (!xi(s, X_HAS_LEAF)) return refuse(E_NO_LEAF);
  const keyLen = xi(s, X_KEY_LEN);
  const valLen = xi(s, X_VAL_LEN);
  if (keyLen == 0) return fail(E_EMPTY_KEY, W_LEAF, 0, 0, 0, 0, 0);
  if (valLen == 0) return fail(E_EMPTY_VALUE, W_LEAF, 0, 0, 0, 0, 0);
  const prefixLen = xi(s, X_PREFIX_LEN);
  // prefix, two length prefixes of at most 10 bytes, key and value (or their 32-byte hashes)
  const buf = grow(R_SCRATCH, prefixLen + keyLen + valLen + 96);
  memory.copy(buf, <usize>xi(s, X_PREFIX_PTR), <usize>prefixLen);
  let e = prepare(xi(s, X_PREHASH_KEY), xi(s, X_LENGTH), <usize>xi(s, X_KEY_PTR), keyLen, buf + <usize>prefixLen);
  if (e) return e;
  e = prepare(xi(s, X_PREHASH_VALUE), xi(s, X_LENGTH), <usize>xi(s, X_VAL_PTR), valLen, prepared);
  if (e) return e;
  const hashOp = xi(s, X_HASH);
  if (hashOp != HASH_SHA256) return fail(E_UNSUPPORTED_HASH, W_LEAF, 0, hashOp, 0, 0, 0);
  const root = rootOf(s);
  sha256(buf, <i32>(prepared - buf), root);
  const n = xi(s, X_PATH);
  for (let i = 0; i < n; i++) {
    const op = inner(s, i);
    const h = load<i32>(op, 0);
    if (h != HASH_SHA256) return fail(E_UNSUPPORTED_HASH, W_INNER, i, h, 0, 0, 0);
    const pl = load<i32>(op, 8);
    const sl = load<i32>(op, 16);
    const b = grow(R_SCRATCH, pl + 32 + sl);
    memory.copy(b, <usize>load<i32>(op, 4), <usize>pl);
    memory.copy(b + <usize>pl, root, 32);
    memory.copy(b + <usize>pl + 32, <usize>load<i32>(op, 12), <usize>sl);
    sha256(b, pl + 32 + sl, root);
  }
  return E_OK;
}

// ---- checks against the spec ----

/** IAVL's prefix rule (see bindings/core/js/ics23.ts checkIavlPrefix). */
function checkIavlPrefix(prefix: usize, len: i32, layer: i32, where: i32, step: i32): i32 {
  let p: usize = 0;
  const n = <usize>len;
  let height: i64 = 0;
  let size: i64 = 0;
  for (let i = 0; i < 3; i++) {
    // binary.ReadUvarint: at most 10 bytes, the 10th at most 1
    let x: u64 = 0;
    let shift: u64 = 0;
    let ok = false;
    for (let k = 0; k < 10; k++) {
      if (p >= n) break;
      const b = <u64>load<u8>(prefix + p++);
      if (b < 0x80) {
        if (k == 9 && b > 1) break;
        x |= b << shift;
        ok = true;
        break;
      }
      x |= (b & 0x7f) << shift;
      shift += 7;
    }
    if (!ok) return fail(E_IAVL_VARINT, where, step, i, 0, 0, 0);
    const v = <i64>((x >> 1) ^ (0 - (x & 1)));
    if (i == 0) {
      height = v;
      if (v < 0 || v < <i64>layer) return fail(E_IAVL_HEIGHT, where, step, layer, 0, 0, v);
    } else if (i == 1) {
      size = v;
      if (v < 0) return fail(E_IAVL_SIZE, where, step, layer, 0, 0, v);
    } else if (v < 0) return fail(E_IAVL_VERSION, where, step, layer, 0, 0, v);
  }
  const rest = <i32>(n - p);
  if (layer == 0) {
    if (rest != 0) return fail(E_IAVL_REMAINDER, where, step, rest, 0, 0, 0);
    if (height != 0) return fail(E_IAVL_HEIGHT, where, step, 0, 1, 0, height);
    if (size != 1) return fail(E_IAVL_SIZE, where, step, 0, 1, 0, size);
  } else if (rest != 1 && rest != 34) return fail(E_IAVL_REMAINDER, where, step, rest, 1, 0, 0);
  return E_OK;
}

function startsWith(p: usize, len: i32, q: usize, qlen: i32): bool {
  if (len < qlen) return false;
  for (let i = 0; i < qlen; i++) if (load<u8>(p + <usize>i) != load<u8>(q + <usize>i)) return false;
  return true;
}

function equal(p: usize, len: i32, q: usize, qlen: i32): bool {
  if (len != qlen) return false;
  for (let i = 0; i < len; i++) if (load<u8>(p + <usize>i) != load<u8>(q + <usize>i)) return false;
  return true;
}

function compare(p: usize, len: i32, q: usize, qlen: i32): i32 {
  const n = min(len, qlen);
  for (let i = 0; i < n; i++) {
    const a = <i32>load<u8>(p + <usize>i);
    const b = <i32>load<u8>(q + <usize>i);
    if (a != b) return a - b;
  }
  return len - qlen;
}

/** ExistenceProof.CheckAgainstSpec for slot s. */
function checkAgainstSpec(s: i32): i32 {
  if (!xi(s, X_HAS_LEAF)) return refuse(E_NO_LEAF);
  const prefix = <usize>xi(s, X_PREFIX_PTR);
  const prefixLen = xi(s, X_PREFIX_LEN);
  const family = sp(SP_FAMILY);
  if (family == FAMILY_IAVL) {
    const e = checkIavlPrefix(prefix, prefixLen, 0, W_LEAF, 0);
    if (e) return e;
  }
  if (xi(s, X_HASH) != sp(SP_LEAF_HASH)) return fail(E_LEAF_HASH, W_LEAF, 0, xi(s, X_HASH), sp(SP_LEAF_HASH), 0, 0);
  if (xi(s, X_PREHASH_KEY) != sp(SP_PREHASH_KEY)) return fail(E_LEAF_PREHASH_KEY, W_LEAF, 0, xi(s, X_PREHASH_KEY), sp(SP_PREHASH_KEY), 0, 0);
  if (xi(s, X_PREHASH_VALUE) != sp(SP_PREHASH_VALUE)) return fail(E_LEAF_PREHASH_VALUE, W_LEAF, 0, xi(s, X_PREHASH_VALUE), sp(SP_PREHASH_VALUE), 0, 0);
  if (xi(s, X_LENGTH) != sp(SP_LENGTH)) return fail(E_LEAF_LENGTH, W_LEAF, 0, xi(s, X_LENGTH), sp(SP_LENGTH), 0, 0);
  const lp = leafPrefix();
  const lpLen = sp(SP_LEAF_PREFIX_LEN);
  if (!startsWith(prefix, prefixLen, lp, lpLen)) return fail(E_LEAF_PREFIX, W_LEAF, 0, 0, 0, 0, 0);
  const depth = xi(s, X_PATH);
  const minDepth = sp(SP_MIN_DEPTH);
  if (minDepth > 0 && depth < minDepth) return fail(E_MIN_DEPTH, W_PROOF, 0, depth, minDepth, 0, 0);
  if (depth > sp(SP_MAX_DEPTH)) return fail(E_MAX_DEPTH, W_PROOF, 0, depth, sp(SP_MAX_DEPTH), 0, 0);
  const childSize = sp(SP_CHILD_SIZE);
  const minPrefix = sp(SP_MIN_PREFIX);
  const maxPrefix = sp(SP_MAX_PREFIX) + (sp(SP_CHILDREN) - 1) * childSize;
  const innerHash = sp(SP_INNER_HASH);
  for (let i = 0; i < depth; i++) {
    const op = inner(s, i);
    const h = load<i32>(op, 0);
    const p = <usize>load<i32>(op, 4);
    const pl = load<i32>(op, 8);
    const sl = load<i32>(op, 16);
    if (h != innerHash) return fail(E_INNER_HASH, W_INNER, i, h, innerHash, 0, 0);
    if (family == FAMILY_IAVL) {
      const e = checkIavlPrefix(p, pl, i + 1, W_INNER, i);
      if (e) return e;
    } else if (family == FAMILY_TENDERMINT) {
      if (pl == 0) return fail(E_TENDERMINT_PREFIX, W_INNER, i, 0, 0, 0, 0);
      if (load<i32>(op, 20) && (pl != 1 || load<u8>(p) != 1)) return fail(E_TENDERMINT_PREFIX, W_INNER, i, 1, 0, 0, 0);
      if (load<u8>(p) != 1) return fail(E_TENDERMINT_PREFIX, W_INNER, i, 2, 0, 0, 0);
    }
    if (startsWith(p, pl, lp, lpLen)) return fail(E_INNER_LEAF_PREFIX, W_INNER, i, 0, 0, 0, 0);
    if (pl < minPrefix) return fail(E_INNER_PREFIX_SHORT, W_INNER, i, pl, minPrefix, 0, 0);
    if (pl > maxPrefix) return fail(E_INNER_PREFIX_LONG, W_INNER, i, pl, maxPrefix, 0, 0);
    if (sl % childSize != 0) return fail(E_INNER_SUFFIX, W_INNER, i, sl, childSize, 0, 0);
  }
  return E_OK;
}

/**
 * ExistenceProof.Verify for slot s: against the reference root when there is one, else its calculated root
 * becomes the reference (a store proof's op is checked against the root it calculates itself).
 */
function verifyExist(s: i32, key: usize, keyLen: i32, value: usize, valueLen: i32): i32 {
  let e = checkAgainstSpec(s);
  if (e) return e;
  if (!equal(key, keyLen, <usize>xi(s, X_KEY_PTR), xi(s, X_KEY_LEN))) return refuse(E_KEY_MISMATCH);
  if (!equal(value, valueLen, <usize>xi(s, X_VAL_PTR), xi(s, X_VAL_LEN))) return refuse(E_VALUE_MISMATCH);
  e = calculate(s);
  if (e) return e;
  if (hasRef) {
    if (!equal(refPtr, refLen, rootOf(s), 32)) return refuse(E_ROOT_MISMATCH);
  } else {
    memory.copy(REF_BUF, rootOf(s), 32);
    refPtr = REF_BUF;
    refLen = 32;
    hasRef = true;
  }
  return E_OK;
}

// ---- neighbours ----

function hasPadding(op: usize, minPrefix: i32, maxPrefix: i32, suffix: i32): bool {
  const pl = load<i32>(op, 8);
  return pl >= minPrefix && pl <= maxPrefix && load<i32>(op, 16) == suffix;
}

let padMin: i32 = 0;
let padMax: i32 = 0;
let padSuffix: i32 = 0;

function padding(branch: i32): void {
  const idx = position(branch);
  const cs = sp(SP_CHILD_SIZE);
  padMin = idx * cs + sp(SP_MIN_PREFIX);
  padMax = idx * cs + sp(SP_MAX_PREFIX);
  padSuffix = (sp(SP_CHILDREN) - 1 - idx) * cs;
}

function orderFromPadding(op: usize): i32 {
  const n = sp(SP_CHILDREN);
  for (let branch = 0; branch < n; branch++) {
    padding(branch);
    if (hasPadding(op, padMin, padMax, padSuffix)) return branch;
  }
  return -1;
}

function emptyAt(bytes: usize, len: i32, from: i32): bool {
  const cs = sp(SP_CHILD_SIZE);
  if (from < 0 || from + cs > len || sp(SP_EMPTY_CHILD_LEN) != cs) return false;
  return equal(bytes + <usize>from, cs, emptyChild(), cs);
}

function leftBranchesAreEmpty(op: usize): bool {
  const idx = orderFromPadding(op);
  if (idx <= 0) return false;
  const cs = sp(SP_CHILD_SIZE);
  const pl = load<i32>(op, 8);
  const actual = pl - idx * cs;
  if (actual < 0) return false;
  for (let i = 0; i < idx; i++) if (!emptyAt(<usize>load<i32>(op, 4), pl, actual + position(i) * cs)) return false;
  return true;
}

function rightBranchesAreEmpty(op: usize): bool {
  const idx = orderFromPadding(op);
  if (idx < 0) return false;
  const cs = sp(SP_CHILD_SIZE);
  const right = sp(SP_CHILDREN) - 1 - idx;
  const sl = load<i32>(op, 16);
  if (right == 0 || sl != right * cs) return false;
  for (let i = 0; i < right; i++) if (!emptyAt(<usize>load<i32>(op, 12), sl, position(i) * cs)) return false;
  return true;
}

function isLeftMost(s: i32, to: i32): bool {
  padding(0);
  const a = padMin;
  const b = padMax;
  const c = padSuffix;
  for (let i = 0; i < to; i++) {
    const op = inner(s, i);
    if (!hasPadding(op, a, b, c) && !leftBranchesAreEmpty(op)) return false;
  }
  return true;
}

function isRightMost(s: i32, to: i32): bool {
  padding(sp(SP_CHILDREN) - 1);
  const a = padMin;
  const b = padMax;
  const c = padSuffix;
  for (let i = 0; i < to; i++) {
    const op = inner(s, i);
    if (!hasPadding(op, a, b, c) && !rightBranchesAreEmpty(op)) return false;
  }
  return true;
}

function sameOp(p: usize, q: usize): bool {
  return equal(<usize>load<i32>(p, 4), load<i32>(p, 8), <usize>load<i32>(q, 4), load<i32>(q, 8)) &&
    equal(<usize>load<i32>(p, 12), load<i32>(p, 16), <usize>load<i32>(q, 12), load<i32>(q, 16));
}

function isLeftNeighbor(): bool {
  let l = xi(0, X_PATH) - 1;
  let r = xi(1, X_PATH) - 1;
  if (l < 0 || r < 0) return false;
  while (sameOp(inner(0, l), inner(1, r))) {
    if (l == 0 || r == 0) return false;
    l--;
    r--;
  }
  const li = orderFromPadding(inner(0, l));
  const ri = orderFromPadding(inner(1, r));
  if (li < 0 || ri < 0 || ri != li + 1) return false;
  return isRightMost(0, l) && isLeftMost(1, r);
}

let kfcPtr: usize = 0;
let kfcLen: i32 = 0;

/** The key as compared: prehashed first when the spec says so; into kfcPtr/kfcLen (`buf` holds a hash). */
function keyForComparison(key: usize, len: i32, buf: usize): i32 {
  kfcPtr = key;
  kfcLen = len;
  if (!sp(SP_PREHASH_COMPARE)) return E_OK;
  const op = sp(SP_PREHASH_KEY);
  if (op == HASH_NONE) return E_OK;
  if (op != HASH_SHA256) return fail(E_UNSUPPORTED_HASH, W_PROOF, 0, op, 0, 0, 0);
  sha256(key, len, buf);
  kfcPtr = buf;
  kfcLen = 32;
  return E_OK;
}

/** NonExistenceProof.Verify over the slots. */
function verifyNonExist(key: usize, keyLen: i32): i32 {
  const left = xi(0, X_PRESENT);
  const right = xi(1, X_PRESENT);
  let e: i32;
  if (left) {
    e = onSide(verifyExist(0, <usize>xi(0, X_KEY_PTR), xi(0, X_KEY_LEN), <usize>xi(0, X_VAL_PTR), xi(0, X_VAL_LEN)), S_LEFT);
    if (e) return e;
  }
  if (right) {
    e = onSide(verifyExist(1, <usize>xi(1, X_KEY_PTR), xi(1, X_KEY_LEN), <usize>xi(1, X_VAL_PTR), xi(1, X_VAL_LEN)), S_RIGHT);
    if (e) return e;
  }
  if (!left && !right) return refuse(E_NO_NEIGHBOURS);
  e = keyForComparison(key, keyLen, KEY_A);
  if (e) return e;
  const k = kfcPtr;
  const kl = kfcLen;
  if (right) {
    e = keyForComparison(<usize>xi(1, X_KEY_PTR), xi(1, X_KEY_LEN), KEY_B);
    if (e) return e;
    if (compare(k, kl, kfcPtr, kfcLen) >= 0) return refuse(E_NOT_LEFT_OF_RIGHT);
  }
  if (left) {
    e = keyForComparison(<usize>xi(0, X_KEY_PTR), xi(0, X_KEY_LEN), KEY_B);
    if (e) return e;
    if (compare(k, kl, kfcPtr, kfcLen) <= 0) return refuse(E_NOT_RIGHT_OF_LEFT);
  }
  if (!left) {
    if (!isLeftMost(1, xi(1, X_PATH))) return refuse(E_NOT_LEFT_MOST);
  } else if (!right) {
    if (!isRightMost(0, xi(0, X_PATH))) return refuse(E_NOT_RIGHT_MOST);
  } else if (!isLeftNeighbor()) return refuse(E_NOT_ADJACENT);
  return E_OK;
}

// ---- what a verified proof proved ----

const FACTS: usize = memory.data(F_SIZE, 8);

export function ics23Facts(): usize {
  return FACTS;
}

function fact(record: i32, s: i32): void {
  const at = FACTS + <usize>record;
  store<i32>(at, xi(s, X_PRESENT), 0);
  store<i32>(at, xi(s, X_KEY_PTR), 4);
  store<i32>(at, xi(s, X_KEY_LEN), 8);
  store<i32>(at, xi(s, X_VAL_PTR), 12);
  store<i32>(at, xi(s, X_VAL_LEN), 16);
}

/** The entry just verified, still in the slots: an existence proof in slot 0, or the two neighbours. */
function recordFacts(absent: bool): void {
  memory.fill(FACTS, 0, F_SIZE);
  if (absent) {
    fact(F_LEFT, 0);
    fact(F_RIGHT, 1);
  } else fact(F_EXIST, 0);
}

// ---- the entry points ----

/** NonExistenceProof.Calculate over the slots, into the reference root. */
function calculateNonExist(): i32 {
  let s = -1;
  if (xi(0, X_PRESENT)) s = 0;
  else if (xi(1, X_PRESENT)) s = 1;
  else return refuse(E_NO_NEIGHBOURS);
  const e = onSide(calculate(s), s == 0 ? S_LEFT : S_RIGHT);
  if (e) return e;
  memory.copy(REF_BUF, rootOf(s), 32);
  return E_OK;
}

/** CommitmentProof.Calculate of the decoded proof, into REF_BUF. */
function calculateProof(): i32 {
  if (proofKind == K_EXIST) {
    const e = calculate(0);
    if (e) return e;
    memory.copy(REF_BUF, rootOf(0), 32);
    return E_OK;
  }
  if (proofKind == K_NONEXIST) return calculateNonExist();
  if (proofKind == K_BATCH || proofKind == K_COMPRESSED) {
    if (entryCount == 0) return refuse(E_EMPTY_BATCH);
    const kind = entryKind(0);
    if (kind == K_NONE) return refuse(E_EMPTY_PROOF);
    let e = loadEntry(0);
    if (e) return e;
    if (kind == K_EXIST) {
      e = calculate(0);
      if (e) return e;
      memory.copy(REF_BUF, rootOf(0), 32);
      return E_OK;
    }
    return calculateNonExist();
  }
  return refuse(E_EMPTY_PROOF);
}

/** The batch's reference root when none was given: the first entry's (ics23's CommitmentProof.Calculate). */
function batchRoot(): i32 {
  if (hasRef) return E_OK;
  const e = calculateProof();
  if (e) return e;
  refPtr = REF_BUF;
  refLen = 32;
  hasRef = true;
  return E_OK;
}

function membership(key: usize, keyLen: i32, value: usize, valueLen: i32): i32 {
  if (proofKind == K_EXIST) return verifyExist(0, key, keyLen, value, valueLen);
  if (proofKind == K_BATCH || proofKind == K_COMPRESSED) {
    let e = batchRoot();
    if (e) return e;
    for (let i = 0; i < entryCount; i++) {
      if (entryKind(i) != K_EXIST) continue;
      e = loadEntry(i);
      if (e) return e;
      if (equal(<usize>xi(0, X_KEY_PTR), xi(0, X_KEY_LEN), key, keyLen)) return verifyExist(0, key, keyLen, value, valueLen);
    }
    return fail(E_NO_BATCH_ENTRY, W_PROOF, 0, 1, 0, 0, 0);
  }
  if (proofKind == K_NONEXIST) return fail(E_NOT_EXISTENCE, W_PROOF, 0, 2, 0, 0, 0);
  return refuse(E_EMPTY_PROOF);
}

function nonMembership(key: usize, keyLen: i32): i32 {
  if (proofKind == K_NONEXIST) return verifyNonExist(key, keyLen);
  if (proofKind == K_BATCH || proofKind == K_COMPRESSED) {
    let e = batchRoot();
    if (e) return e;
    e = keyForComparison(key, keyLen, KEY_A);
    if (e) return e;
    for (let i = 0; i < entryCount; i++) {
      if (entryKind(i) != K_NONEXIST) continue;
      e = loadEntry(i);
      if (e) return e;
      // the key as compared is in KEY_A or the caller's bytes: recompute it, a neighbour's may have replaced kfcPtr
      e = keyForComparison(key, keyLen, KEY_A);
      if (e) return e;
      const k = kfcPtr;
      const kl = kfcLen;
      let ok = true;
      if (xi(0, X_PRESENT)) {
        e = keyForComparison(<usize>xi(0, X_KEY_PTR), xi(0, X_KEY_LEN), KEY_B);
        if (e) return e;
        ok = compare(kfcPtr, kfcLen, k, kl) < 0;
      }
      if (ok && xi(1, X_PRESENT)) {
        e = keyForComparison(<usize>xi(1, X_KEY_PTR), xi(1, X_KEY_LEN), KEY_B);
        if (e) return e;
        ok = compare(kfcPtr, kfcLen, k, kl) > 0;
      }
      if (ok) return verifyNonExist(key, keyLen);
    }
    return fail(E_NO_BATCH_ENTRY, W_PROOF, 0, 2, 0, 0, 0);
  }
  if (proofKind == K_EXIST) return fail(E_NOT_NONEXISTENCE, W_PROOF, 0, 1, 0, 0, 0);
  return refuse(E_EMPTY_PROOF);
}

/**
 * mode 0: CommitmentProof.Calculate (the root to OUT); 1: VerifyMembership; 2: VerifyNonMembership (the
 * neighbours it checked at ics23Facts()). IO holds the spec, the root, the proof, the key and the value, back to
 * back, with the lengths given (specLen 0 for mode 0). Returns E_OK or the reason, with the details at
 * ics23Detail().
 */
export function ics23Verify(mode: i32, specLen: i32, rootLen: i32, proofLen: i32, keyLen: i32, valueLen: i32): i32 {
  const io = regionPtr(IO);
  spec = io;
  const root = io + <usize>specLen;
  const proof = root + <usize>rootLen;
  const key = proof + <usize>proofLen;
  const value = key + <usize>keyLen;
  store<i32>(DETAIL, -1, 28);
  let e = decodeProof(proof, proofLen);
  if (e) return e;
  if (mode == 0) {
    e = calculateProof();
    if (e) return e;
    memory.copy(ensure(OUT, 32), REF_BUF, 32);
    setHeaderI32(H_OUT_LEN, 32);
    return E_OK;
  }
  refPtr = root;
  refLen = rootLen;
  hasRef = true;
  if (mode == 1) return membership(key, keyLen, value, valueLen);
  e = nonMembership(key, keyLen);
  if (!e) recordFacts(true);
  return e;
}

const CHAIN_VALUE: usize = memory.data(32, 8);

/**
 * A store proof's ops in turn (bindings/core/js/ics23.ts verifyChain). IO: the app hash (appHashLen bytes),
 * the value (valueLen bytes; -1: prove absence), then `count` ops, each [u32 specLen][spec][u32 keyLen][key]
 * [u32 dataLen][data]. Returns E_OK or the reason, the failing op's index at ics23Detail() + 28; op 0's
 * verified entry (or neighbours) at ics23Facts().
 */
export function ics23VerifyChain(count: i32, appHashLen: i32, valueLen: i32): i32 {
  const io = regionPtr(IO);
  const appHash = io;
  let value = appHash + <usize>appHashLen;
  let vlen = valueLen;
  let at = value + <usize>max(valueLen, 0);
  for (let i = 0; i < count; i++) {
    const specLen = load<i32>(at);
    spec = at + 4;
    at = spec + <usize>specLen;
    const keyLen = load<i32>(at);
    const key = at + 4;
    at = key + <usize>keyLen;
    const dataLen = load<i32>(at);
    const data = at + 4;
    at = data + <usize>dataLen;
    hasRef = false;
    let e = decodeProof(data, dataLen);
    if (!e) e = vlen < 0 ? nonMembership(key, keyLen) : membership(key, keyLen, value, vlen);
    if (e) {
      store<i32>(DETAIL, i, 28);
      return e;
    }
    if (i == 0) recordFacts(vlen < 0);
    memory.copy(CHAIN_VALUE, refPtr, 32);
    value = CHAIN_VALUE;
    vlen = 32;
  }
  if (!equal(value, vlen, appHash, appHashLen)) {
    const e = refuse(E_APP_HASH_MISMATCH);
    store<i32>(DETAIL, count, 28);
    return e;
  }
  return E_OK;
}

/** SHA-256 of `len` bytes in IO into OUT. */
export function sha256Digest(len: i32): void {
  sha256(regionPtr(IO), len, ensure(OUT, 32));
  setHeaderI32(H_OUT_LEN, 32);
}
