/**
 * Protobuf's wire format, read and written by hand, for the few messages the light client and the readiness codecs
 * handle (so that neither needs a protobuf runtime): tags, varints, fixed64, length-delimited values. Varints are read
 * by the core's one reader (js/varint.ts: at most 10 bytes, the bits past 64 dropped, as gogoproto reads them). A
 * truncated value, a length past the end, an illegal wire type or a group is a malformed-protobuf UpgradeError, worded
 * as the core's own decoders word it. What a field means, and whether an unknown one is refused, is the caller's.
 */
import { readVarint, type Varint } from "./js/varint.js";
import { Malformed, Status, statusError } from "./status.js";

export const WireType = { Varint: 0, Fixed64: 1, Len: 2, StartGroup: 3, EndGroup: 4, Fixed32: 5 } as const;
export type WireType = (typeof WireType)[keyof typeof WireType];

const malformed = (reason: number, field = 0, wireType = 0) => statusError(Status.Malformed, { reason, field, wireType });
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8 = new TextEncoder();

/** A cursor over one message: `tag()` then one read of the field's value (or `skip()`), until `done`. */
export class ProtoReader {
  pos = 0;
  /** The last tag's field number (-1 for a tag past 32 bits: no message has it) and wire type. */
  field = 0;
  wire = 0;
  private readonly v: Varint = { lo: 0, hi: 0, end: 0, bytes: 0, last: 0 };

  constructor(readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** The next tag; returns its field number. Field 0 and wire types 6 and 7 are refused here. */
  tag(): number {
    this.next(0);
    this.wire = this.v.lo & 7;
    this.field = this.v.hi !== 0 ? -1 : this.v.lo >>> 3;
    if (this.field === 0) throw malformed(Malformed.FieldZero, 0, this.wire);
    if (this.wire > 5) throw malformed(Malformed.IllegalWireType, this.field, this.wire);
    return this.field;
  }

  /** Refuses the last tag unless its wire type is `want`. */
  expect(want: WireType): this {
    if (this.wire !== want) throw malformed(Malformed.WrongWireType, this.field, this.wire);
    return this;
  }

  uint64(): bigint {
    this.next(this.field);
    return this.v.hi === 0 ? BigInt(this.v.lo) : (BigInt(this.v.hi) << 32n) | BigInt(this.v.lo);
  }

  int64(): bigint {
    return BigInt.asIntN(64, this.uint64());
  }

  /** uint32 and enums: the low 32 bits, as Go keeps them. */
  uint32(): number {
    this.next(this.field);
    return this.v.lo;
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    this.next(this.field);
    return (this.v.lo | this.v.hi) !== 0;
  }

  /** A length-delimited value (a view into the buffer, not a copy). */
  bytes(): Uint8Array {
    const start = this.lengthEnd();
    return this.buf.subarray(start, this.pos);
  }

  /** A string that must be valid UTF-8. */
  string(): string {
    try {
      return strictUtf8.decode(this.bytes());
    } catch (e) {
      if (e instanceof TypeError) throw malformed(Malformed.InvalidUtf8, this.field, WireType.Len);
      throw e;
    }
  }

  /** Skips the last tag's value (groups are refused, as the core refuses them). */
  skip(): void {
    switch (this.wire) {
      case WireType.Varint:
        this.next(this.field);
        return;
      case WireType.Fixed64:
      case WireType.Fixed32: {
        const n = this.wire === WireType.Fixed64 ? 8 : 4;
        if (this.buf.length - this.pos < n) throw malformed(Malformed.TruncatedFixed, this.field, this.wire);
        this.pos += n;
        return;
      }
      case WireType.Len:
        this.lengthEnd();
        return;
      default:
        throw malformed(Malformed.Group, this.field, this.wire);
    }
  }

  private next(field: number): void {
    const err = readVarint(this.buf, this.pos, this.buf.length, this.v);
    if (err !== 0) throw malformed(err, field);
    this.pos = this.v.end;
  }

  /** Reads a length prefix, moves past the value and returns where it started. */
  private lengthEnd(): number {
    this.next(this.field);
    const start = this.pos;
    if (this.v.hi !== 0 || this.v.lo > this.buf.length - start) throw malformed(Malformed.LengthPastEnd, this.field, WireType.Len);
    this.pos = start + this.v.lo;
    return start;
  }
}

/** A growing buffer of fields. Nothing is skipped here: leaving a default value out is the caller's rule. */
export class ProtoWriter {
  private buf = new Uint8Array(64);
  private pos = 0;

  tag(field: number, wire: WireType): this {
    return this.varint(field * 8 + wire);
  }

  /** Any varint type: a negative value is written as its 64-bit two's complement (10 bytes), as Go writes int32/int64. */
  varint(value: number | bigint): this {
    if (typeof value === "number" && value >= 0 && value <= 0xffffffff) {
      this.room(5);
      let v = value;
      while (v >= 0x80) {
        this.buf[this.pos++] = (v & 0x7f) | 0x80;
        v = Math.floor(v / 128);
      }
      this.buf[this.pos++] = v;
      return this;
    }
    this.room(10);
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
    return this;
  }

  /** fixed64 / sfixed64: 8 bytes, little-endian. */
  fixed64(value: bigint): this {
    this.room(8);
    new DataView(this.buf.buffer).setBigUint64(this.pos, BigInt.asUintN(64, value), true);
    this.pos += 8;
    return this;
  }

  /** A length-delimited value: its length, then the bytes. */
  bytes(value: Uint8Array): this {
    this.varint(value.length);
    return this.raw(value);
  }

  string(value: string): this {
    return this.bytes(utf8.encode(value));
  }

  /** Bytes as they are, with no length (a message's fields already encoded). */
  raw(value: Uint8Array): this {
    this.room(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }
}
