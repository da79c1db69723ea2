/**
 * The byte encodings IAVL hashes and stores nodes with (cosmos/iavl `internal/encoding`): Go's
 * `binary.PutVarint` (zigzag, signed), `binary.PutUvarint`, and length-prefixed bytes (uvarint length,
 * then the bytes). Integers are JavaScript numbers: heights, sizes and versions stay below 2^53.
 */
import { CorruptStoreError } from "../errors.js";

/** Bytes `writeUvarint` takes for `v` (a non-negative safe integer, or 2 × one for zigzag). */
export function uvarintSize(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x20_0000) return 3;
  let n = 4;
  for (v = Math.floor(v / 0x20_0000); v >= 0x80; v = Math.floor(v / 128)) n++;
  return n;
}

/** Writes `v` (0 ≤ v < 2^54) as a uvarint at `pos`; returns the position after it. */
export function writeUvarint(buf: Uint8Array, pos: number, v: number): number {
  // Integer arithmetic below 2^31 (heights, sizes, versions, nonces, lengths): the common case.
  if (v < 0x8000_0000) {
    while (v >= 0x80) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    return pos;
  }
  while (v >= 0x80) {
    buf[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** Zigzag: 0 → 0, -1 → 1, 1 → 2, … (exact for safe integers: 2v stays an even integer below 2^54). */
const zigzag = (v: number) => (v >= 0 ? v * 2 : -v * 2 - 1);

export const varintSize = (v: number) => uvarintSize(zigzag(v));

/** Writes `v` as Go's signed varint at `pos`; returns the position after it. */
export function writeVarint(buf: Uint8Array, pos: number, v: number): number {
  return writeUvarint(buf, pos, zigzag(v));
}

export const bytesSize = (b: Uint8Array) => uvarintSize(b.length) + b.length;

/** Writes `b` prefixed with its length; returns the position after it. */
export function writeBytes(buf: Uint8Array, pos: number, b: Uint8Array): number {
  pos = writeUvarint(buf, pos, b.length);
  buf.set(b, pos);
  return pos + b.length;
}

/** Go's `binary.PutVarint` of `v` on its own. */
export function varint(v: number): Uint8Array {
  const out = new Uint8Array(varintSize(v));
  writeVarint(out, 0, v);
  return out;
}

/** A reader over encoded bytes; every read checks bounds and throws on malformed input. */
export class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}

  uvarint(): number {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.buf.length) throw new CorruptStoreError("truncated varint");
      const b = this.buf[this.pos++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(v)) break;
        return v;
      }
      scale *= 128;
    }
    throw new CorruptStoreError("varint out of range");
  }

  byte(): number {
    if (this.pos >= this.buf.length) throw new CorruptStoreError("truncated input");
    return this.buf[this.pos++];
  }

  varint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  bytes(): Uint8Array {
    const n = this.uvarint();
    if (this.pos + n > this.buf.length) throw new CorruptStoreError(`truncated bytes: ${n} announced, ${this.buf.length - this.pos} left`);
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The next `n` bytes (a copy), with no length prefix. */
  fixed(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new CorruptStoreError(`truncated input: ${n} bytes expected, ${this.buf.length - this.pos} left`);
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}
