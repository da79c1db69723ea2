// cosmos.upgrade.v1beta1.Plan: the Go encoder's exact bytes and a strict decoder. Twin of bindings/core/js/plan.ts.
import {
  H_FIELD, H_INFO_LEN, H_INFO_PTR, H_NAME_LEN, H_NAME_PTR, H_OUT_LEN, H_PLAN_HEIGHT, H_REASON, H_WIRE,
  OUT, ensure, setHeaderI32, setHeaderI64,
} from "./memory";
import {
  HEIGHT_NOT_POSITIVE, IBC_MOVED, MALFORMED, NAME_EMPTY, OK, TIME_DEPRECATED,
  M_FIELD_ZERO, M_GROUP, M_ILLEGAL_WIRE_TYPE, M_INVALID_UTF8, M_LENGTH_PAST_END, M_TRUNCATED_FIXED,
  M_WRONG_WIRE_TYPE,
} from "./status";
import { validUtf8 } from "./utf8";
import { readVarint, varintEnd, varintValue } from "./varint";

// Field 2, always written: Timestamp{seconds: -62135596800} = 0001-01-01T00:00:00Z.
const ZERO_TIME_FIELD: usize = memory.data<u8>([0x12, 0x0b, 0x08, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x01]);
const ZERO_TIME_LEN: i32 = 13;
const ZERO_TIME_SECONDS: i64 = -62135596800;

/** Plan.ValidateBasic (time assumed zero unless said otherwise). */
export function validateBasic(nameLen: i32, height: i64, timeIsZero: bool): i32 {
  if (!timeIsZero) return TIME_DEPRECATED;
  if (nameLen == 0) return NAME_EMPTY;
  if (height <= 0) return HEIGHT_NOT_POSITIVE;
  return OK;
}

function varintSize(v: u64): i32 {
  let n = 1;
  while (v >= 0x80) { v >>= 7; n++; }
  return n;
}

function writeVarint(pos: usize, v: u64): usize {
  while (v >= 0x80) {
    store<u8>(pos++, <u8>(v & 0x7f) | 0x80);
    v >>= 7;
  }
  store<u8>(pos++, <u8>v);
  return pos;
}

/** Encodes name/info bytes and a height into OUT (no validation); returns the length. */
export function encodePlanTo(namePtr: usize, nameLen: i32, infoPtr: usize, infoLen: i32, height: i64): i32 {
  let size = ZERO_TIME_LEN;
  if (nameLen > 0) size += 1 + varintSize(<u64>nameLen) + nameLen;
  if (height != 0) size += 1 + varintSize(<u64>height);
  if (infoLen > 0) size += 1 + varintSize(<u64>infoLen) + infoLen;
  const out = ensure(OUT, size);
  let pos = out;
  if (nameLen > 0) {
    store<u8>(pos++, 0x0a);
    pos = writeVarint(pos, <u64>nameLen);
    memory.copy(pos, namePtr, <usize>nameLen);
    pos += <usize>nameLen;
  }
  memory.copy(pos, ZERO_TIME_FIELD, <usize>ZERO_TIME_LEN);
  pos += <usize>ZERO_TIME_LEN;
  if (height != 0) {
    store<u8>(pos++, 0x18);
    pos = writeVarint(pos, <u64>height);
  }
  if (infoLen > 0) {
    store<u8>(pos++, 0x22);
    pos = writeVarint(pos, <u64>infoLen);
    memory.copy(pos, infoPtr, <usize>infoLen);
    pos += <usize>infoLen;
  }
  setHeaderI32(H_OUT_LEN, size);
  return size;
}

// ---- decoding: a cursor over [pos, end) and the last varint read ----

let pos: usize = 0;
let end: usize = 0;
let varint: u64 = 0;

/** Records why the bytes did not decode; returns MALFORMED. */
function fail(reason: i32, field: i32, wire: i32): i32 {
  setHeaderI32(H_REASON, reason);
  setHeaderI32(H_FIELD, field);
  setHeaderI32(H_WIRE, wire);
  return MALFORMED;
}

/** The next varint (./varint.ts) into `varint`; returns a reason or 0. */
function nextVarint(): i32 {
  const e = readVarint(pos, end);
  if (e) return e;
  pos = varintEnd;
  varint = varintValue;
  return 0;
}

let tagField: i32 = 0;
let tagWire: i32 = 0;

function readTag(): i32 {
  const err = nextVarint();
  if (err) return fail(err, 0, 0);
  tagWire = <i32>(varint & 7);
  tagField = (varint >> 32) != 0 ? -1 : <i32>((varint & 0xffffffff) >> 3);
  if (tagField == 0) return fail(M_FIELD_ZERO, 0, tagWire);
  return OK;
}

/** Reads a length prefix; on success the value spans [pos, lengthEnd). */
let lengthEnd: usize = 0;

function readLength(field: i32): i32 {
  const err = nextVarint();
  if (err) return fail(err, field, 0);
  if (varint > <u64>(end - pos)) return fail(M_LENGTH_PAST_END, field, 2);
  lengthEnd = pos + <usize>varint;
  return OK;
}

function skip(field: i32, wire: i32): i32 {
  switch (wire) {
    case 0: {
      const err = nextVarint();
      return err ? fail(err, field, 0) : OK;
    }
    case 1:
    case 5: {
      const n: usize = wire == 1 ? 8 : 4;
      if (end - pos < n) return fail(M_TRUNCATED_FIXED, field, wire);
      pos += n;
      return OK;
    }
    case 2: {
      const st = readLength(field);
      if (st) return st;
      pos = lengthEnd;
      return OK;
    }
    case 3:
    case 4:
      return fail(M_GROUP, field, wire);
    default:
      return fail(M_ILLEGAL_WIRE_TYPE, field, wire);
  }
}

function expectWire(field: i32, wire: i32, expected: i32): i32 {
  if (wire == 6 || wire == 7) return fail(M_ILLEGAL_WIRE_TYPE, field, wire);
  if (wire != expected) return fail(M_WRONG_WIRE_TYPE, field, wire);
  return OK;
}

let timeIsZero: bool = true;

/** Parses a Timestamp spanning [pos, subEnd); sets timeIsZero. */
function readTimestamp(subEnd: usize): i32 {
  const outerEnd = end;
  end = subEnd;
  let seconds: i64 = 0;
  let nanos: i32 = 0;
  while (pos < end) {
    let st = readTag();
    if (st) return st;
    const field = tagField;
    if (field == 1 || field == 2) {
      st = expectWire(2, tagWire, 0);
      if (st) return st;
      const err = nextVarint();
      if (err) return fail(err, 2, 0);
      if (field == 1) seconds = <i64>varint;
      else nanos = <i32>varint; // int32: the low 32 bits
    } else {
      st = skip(2, tagWire);
      if (st) return st;
    }
  }
  end = outerEnd;
  timeIsZero = seconds == ZERO_TIME_SECONDS && nanos == 0;
  return OK;
}

/** Checks that an Any spanning [pos, subEnd) is well-formed. */
function checkAny(subEnd: usize): i32 {
  const outerEnd = end;
  end = subEnd;
  while (pos < end) {
    let st = readTag();
    if (st) return st;
    const field = tagField;
    if (field == 1 || field == 2) {
      st = expectWire(5, tagWire, 2);
      if (st) return st;
      st = readLength(5);
      if (st) return st;
      if (field == 1 && !validUtf8(pos, <i32>(lengthEnd - pos))) return fail(M_INVALID_UTF8, 5, 2);
      pos = lengthEnd;
    } else {
      st = skip(5, tagWire);
      if (st) return st;
    }
  }
  end = outerEnd;
  return OK;
}

function readStringField(field: i32, ptrOffset: usize, lenOffset: usize): i32 {
  const st = readLength(field);
  if (st) return st;
  const len = <i32>(lengthEnd - pos);
  if (!validUtf8(pos, len)) return fail(M_INVALID_UTF8, field, 2);
  setHeaderI32(ptrOffset, <i32>pos);
  setHeaderI32(lenOffset, len);
  pos = lengthEnd;
  return OK;
}

/**
 * Decodes Plan bytes at [ptr, ptr+len) into the header (name and info point into the input).
 * Returns OK, MALFORMED (reason in the header), TIME_DEPRECATED or IBC_MOVED.
 */
export function decodePlanAt(ptr: usize, len: i32): i32 {
  pos = ptr;
  end = ptr + <usize>len;
  setHeaderI32(H_NAME_PTR, <i32>ptr);
  setHeaderI32(H_NAME_LEN, 0);
  setHeaderI32(H_INFO_PTR, <i32>ptr);
  setHeaderI32(H_INFO_LEN, 0);
  let height: i64 = 0;
  timeIsZero = true;
  let hasClientState = false;
  while (pos < end) {
    let st = readTag();
    if (st) return st;
    const field = tagField;
    const wire = tagWire;
    switch (field) {
      case 1:
        st = expectWire(1, wire, 2);
        if (st) return st;
        st = readStringField(1, H_NAME_PTR, H_NAME_LEN);
        if (st) return st;
        break;
      case 2:
        st = expectWire(2, wire, 2);
        if (st) return st;
        st = readLength(2);
        if (st) return st;
        st = readTimestamp(lengthEnd); // each occurrence replaces the last (gogo stdtime)
        if (st) return st;
        break;
      case 3: {
        st = expectWire(3, wire, 0);
        if (st) return st;
        const err = nextVarint();
        if (err) return fail(err, 3, 0);
        height = <i64>varint;
        break;
      }
      case 4:
        st = expectWire(4, wire, 2);
        if (st) return st;
        st = readStringField(4, H_INFO_PTR, H_INFO_LEN);
        if (st) return st;
        break;
      case 5:
        st = expectWire(5, wire, 2);
        if (st) return st;
        st = readLength(5);
        if (st) return st;
        st = checkAny(lengthEnd);
        if (st) return st;
        hasClientState = true;
        break;
      default:
        st = skip(field, wire);
        if (st) return st;
    }
  }
  setHeaderI64(H_PLAN_HEIGHT, height);
  if (!timeIsZero) return TIME_DEPRECATED;
  if (hasClientState) return IBC_MOVED;
  return OK;
}
