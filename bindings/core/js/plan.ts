/**
 * cosmos.upgrade.v1beta1.Plan in protobuf, byte-identical to the Go (gogoproto) encoder, a strict
 * decoder (docs/spec/keeper.md §3), and Plan.ValidateBasic (§4). Twin of assembly/plan.ts.
 */
import type { Plan } from "../types.js";
import { Malformed, Status, statusError } from "../status.js";
import { writeUtf8, tryReadUtf8 } from "../utf8.js";
import { readVarint, type Varint } from "./varint.js";

/** Plan.ValidateBasic (docs/spec/keeper.md §4): the first failing check, in order. */
export function validateBasic(plan: Plan, timeIsZero: boolean): void {
  if (!timeIsZero) throw statusError(Status.TimeDeprecated);
  if (plan.name.length === 0) throw statusError(Status.NameEmpty);
  if (plan.height <= 0n) throw statusError(Status.HeightNotPositive);
}

/** Field 2, always written: Timestamp{seconds: -62135596800} = 0001-01-01T00:00:00Z. */
const ZERO_TIME_FIELD = Uint8Array.of(0x12, 0x0b, 0x08, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x01);
const ZERO_TIME_SECONDS_LO = 0x886e0900; // -62135596800 as two's-complement halves
const ZERO_TIME_SECONDS_HI = 0xfffffff1;

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function writeVarint(out: Uint8Array, pos: number, n: number): number {
  while (n >= 0x80) {
    out[pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[pos++] = n;
  return pos;
}

function writeVarint64(out: Uint8Array, pos: number, v: bigint): number {
  if (v >= 0n && v <= 0xffffffffn) return writeVarint(out, pos, Number(v));
  let u = BigInt.asUintN(64, v);
  while (u >= 0x80n) {
    out[pos++] = Number(u & 0x7fn) | 0x80;
    u >>= 7n;
  }
  out[pos++] = Number(u);
  return pos;
}

function varint64Size(v: bigint): number {
  if (v >= 0n && v <= 0xffffffffn) return varintSize(Number(v));
  let u = BigInt.asUintN(64, v);
  let size = 1;
  while (u >= 0x80n) {
    u >>= 7n;
    size++;
  }
  return size;
}

/** Name and info are encoded here first: their UTF-8 lengths come out of the encoding, with no separate pass. */
let scratch = new Uint8Array(1024);

function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, from: number, len: number): void {
  if (len > 32) dst.set(src.subarray(from, from + len), at);
  else for (let i = 0; i < len; i++) dst[at + i] = src[from + i];
}

/** Encodes without validation (Go writes whatever it is given); callers validate first. */
export function encodePlanUnchecked(plan: Plan): Uint8Array {
  const room = (plan.name.length + plan.info.length) * 3;
  if (room > scratch.length) scratch = new Uint8Array(Math.max(room, scratch.length * 2));
  const nameLen = writeUtf8(plan.name, scratch, 0);
  const infoLen = writeUtf8(plan.info, scratch, nameLen);
  let size = ZERO_TIME_FIELD.length;
  if (nameLen > 0) size += 1 + varintSize(nameLen) + nameLen;
  if (plan.height !== 0n) size += 1 + varint64Size(plan.height);
  if (infoLen > 0) size += 1 + varintSize(infoLen) + infoLen;
  const out = new Uint8Array(size);
  let pos = 0;
  if (nameLen > 0) {
    out[pos++] = 0x0a;
    pos = writeVarint(out, pos, nameLen);
    copyBytes(out, pos, scratch, 0, nameLen);
    pos += nameLen;
  }
  out.set(ZERO_TIME_FIELD, pos);
  pos += ZERO_TIME_FIELD.length;
  if (plan.height !== 0n) {
    out[pos++] = 0x18;
    pos = writeVarint64(out, pos, plan.height);
  }
  if (infoLen > 0) {
    out[pos++] = 0x22;
    pos = writeVarint(out, pos, infoLen);
    copyBytes(out, pos, scratch, nameLen, infoLen);
  }
  return out;
}

// ---- decoding ----

/** A decoding cursor; a varint's halves land in lo/hi (uint32 each). */
class Reader {
  pos = 0;
  lo = 0;
  hi = 0;
  /** the last tag's field number (-1 for numbers past 2^29) and wire type */
  field = 0;
  wire = 0;
  constructor(
    readonly buf: Uint8Array,
    public end: number,
  ) {}

  private readonly v: Varint = { lo: 0, hi: 0, end: 0, bytes: 0, last: 0 };

  /** The next varint (./varint.ts); returns a Malformed reason or 0. */
  varint(): number {
    const e = readVarint(this.buf, this.pos, this.end, this.v);
    if (e !== 0) return e;
    this.pos = this.v.end;
    this.lo = this.v.lo;
    this.hi = this.v.hi;
    return 0;
  }

  int64(): bigint {
    if (this.hi === 0) return BigInt(this.lo);
    return BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo));
  }
}

class DecodeFailure {
  constructor(
    readonly status: number,
    readonly reason: number,
    readonly field: number,
    readonly wireType: number,
  ) {}
}

const malformed = (reason: number, field = 0, wireType = 0) => new DecodeFailure(Status.Malformed, reason, field, wireType);

/** Reads one tag into r.field / r.wire; a tag past 32 bits is field -1 (unknown, skipped). */
function readTag(r: Reader): void {
  const err = r.varint();
  if (err) throw malformed(err);
  r.wire = r.lo & 7;
  r.field = r.hi !== 0 ? -1 : r.lo >>> 3;
  if (r.field === 0) throw malformed(Malformed.FieldZero, 0, r.wire);
}

/** Skips a field of an unknown number. */
function skip(r: Reader, field: number, wt: number): void {
  switch (wt) {
    case 0: {
      const err = r.varint();
      if (err) throw malformed(err, field);
      return;
    }
    case 1:
    case 5: {
      const n = wt === 1 ? 8 : 4;
      if (r.end - r.pos < n) throw malformed(Malformed.TruncatedFixed, field, wt);
      r.pos += n;
      return;
    }
    case 2:
      r.pos = lengthEnd(r, field);
      return;
    case 3:
    case 4:
      throw malformed(Malformed.Group, field, wt);
    default:
      throw malformed(Malformed.IllegalWireType, field, wt);
  }
}

/** Reads a length prefix and returns the end offset of the value. */
function lengthEnd(r: Reader, field: number): number {
  const err = r.varint();
  if (err) throw malformed(err, field);
  if (r.hi !== 0 || r.lo > r.end - r.pos) throw malformed(Malformed.LengthPastEnd, field, 2);
  return r.pos + r.lo;
}

function expectWireType(field: number, wt: number, expected: number): void {
  if (wt === 6 || wt === 7) throw malformed(Malformed.IllegalWireType, field, wt);
  if (wt !== expected) throw malformed(Malformed.WrongWireType, field, wt);
}

function readString(r: Reader, field: number): string {
  const end = lengthEnd(r, field);
  const s = tryReadUtf8(r.buf, r.pos, end);
  if (s === undefined) throw malformed(Malformed.InvalidUtf8, field, 2);
  r.pos = end;
  return s;
}

/** Parses a Timestamp submessage; true when it is exactly the zero time. */
function readTimestampIsZero(r: Reader, end: number): boolean {
  const outerEnd = r.end;
  r.end = end;
  let secLo = 0;
  let secHi = 0;
  let nanos = 0;
  while (r.pos < end) {
    readTag(r);
    const { field, wire: wt } = r;
    if (field === 1 || field === 2) {
      expectWireType(2, wt, 0);
      const err = r.varint();
      if (err) throw malformed(err, 2);
      if (field === 1) {
        secLo = r.lo;
        secHi = r.hi;
      } else nanos = r.lo | 0; // int32: the low 32 bits
    } else skip(r, 2, wt);
  }
  r.end = outerEnd;
  return secLo === ZERO_TIME_SECONDS_LO && secHi === ZERO_TIME_SECONDS_HI && nanos === 0;
}

/** Parses an Any submessage only to check that it is well-formed. */
function checkAny(r: Reader, end: number): void {
  const outerEnd = r.end;
  r.end = end;
  while (r.pos < end) {
    readTag(r);
    const { field, wire: wt } = r;
    if (field === 1) {
      expectWireType(5, wt, 2);
      readString(r, 5);
    } else if (field === 2) {
      expectWireType(5, wt, 2);
      r.pos = lengthEnd(r, 5);
    } else skip(r, 5, wt);
  }
  r.end = outerEnd;
}

/** Decodes Plan bytes; throws the typed error (malformed, or ValidateBasic 1–2). */
export function decodePlan(bytes: Uint8Array): Plan {
  const result = decodePlanStatus(bytes);
  if (result instanceof DecodeFailure) {
    throw statusError(result.status, { reason: result.reason, field: result.field, wireType: result.wireType });
  }
  return result;
}

/** Like decodePlan, but a stored plan that fails becomes a corrupt-store error. */
export function decodeStoredPlan(bytes: Uint8Array): Plan {
  const result = decodePlanStatus(bytes);
  if (result instanceof DecodeFailure) {
    const reason = result.status === Status.Malformed ? result.reason : -result.status;
    throw statusError(Status.CorruptPlan, { reason, field: result.field, wireType: result.wireType });
  }
  return result;
}

function decodePlanStatus(bytes: Uint8Array): Plan | DecodeFailure {
  const r = new Reader(bytes, bytes.length);
  let name = "";
  let info = "";
  let height = 0n;
  let timeIsZero = true;
  let hasClientState = false;
  try {
    while (r.pos < r.end) {
      readTag(r);
      const { field, wire: wt } = r;
      switch (field) {
        case 1:
          expectWireType(1, wt, 2);
          name = readString(r, 1);
          break;
        case 2: {
          expectWireType(2, wt, 2);
          const end = lengthEnd(r, 2);
          timeIsZero = readTimestampIsZero(r, end); // each occurrence replaces the last (gogo stdtime)
          break;
        }
        case 3: {
          expectWireType(3, wt, 0);
          const err = r.varint();
          if (err) throw malformed(err, 3);
          height = r.int64();
          break;
        }
        case 4:
          expectWireType(4, wt, 2);
          info = readString(r, 4);
          break;
        case 5: {
          expectWireType(5, wt, 2);
          const end = lengthEnd(r, 5);
          checkAny(r, end);
          hasClientState = true;
          break;
        }
        default:
          skip(r, field, wt);
      }
    }
  } catch (e) {
    if (e instanceof DecodeFailure) return e;
    throw e;
  }
  if (!timeIsZero) return new DecodeFailure(Status.TimeDeprecated, 0, 2, 2);
  if (hasClientState) return new DecodeFailure(Status.IbcMoved, 0, 5, 2);
  return { name, height, info };
}
