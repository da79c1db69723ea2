/**
 * A protobuf varint as gogoproto reads it (docs/spec/core.md §2.3): at most 10 bytes, the bits past 64 dropped. Twin
 * of assembly/varint.ts. One reader for every decoder of the core (the Plan's, the ICS23 proof's): the value lands in
 * two uint32 halves, with where it ended and how it was written.
 */
import { Malformed } from "../constants.generated.js";

export interface Varint {
  lo: number;
  hi: number;
  /** Where it ended (the next byte to read). */
  end: number;
  /** Its bytes, and its last one. */
  bytes: number;
  last: number;
}

/** Reads the varint at [at, end) into `out`; returns 0, or the Malformed reason (truncated, or more than 10 bytes). */
export function readVarint(buf: Uint8Array, at: number, end: number, out: Varint): number {
  let lo = 0;
  let hi = 0;
  let p = at;
  for (let i = 0; i < 10; i++) {
    if (p >= end) return Malformed.TruncatedVarint;
    const c = buf[p++];
    const bits = c & 0x7f;
    if (i < 4) lo |= bits << (7 * i);
    else if (i === 4) {
      lo |= bits << 28;
      hi |= bits >>> 4;
    } else hi |= bits << (7 * i - 32);
    if (c < 0x80) {
      out.lo = lo >>> 0;
      out.hi = hi >>> 0;
      out.end = p;
      out.bytes = i + 1;
      out.last = c;
      return 0;
    }
  }
  return Malformed.VarintOverflow;
}

/** Whether `v` was written minimally (as every encoder writes it): no trailing zero group, a tenth byte only for bit 63. */
export const varintMinimal = (v: Varint): boolean => v.bytes === 1 || (v.last !== 0 && (v.bytes < 10 || v.last === 1));
