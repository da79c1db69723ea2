// A protobuf varint as gogoproto reads it (docs/spec/core.md §2.3): at most 10 bytes, the bits past 64 dropped.
// Twin of bindings/core/js/varint.ts. One reader for every decoder of the core (the Plan's, the ICS23 proof's):
// it leaves the value, where it ended and how it was written in globals the caller reads at once.
import { M_TRUNCATED_VARINT, M_VARINT_OVERFLOW } from "./status";

/** The value read. */
export let varintValue: u64 = 0;
/** Where the varint ended (the next byte to read). */
export let varintEnd: usize = 0;
/** Its bytes, and its last one: a minimal varint has no trailing zero group, and a tenth byte only for bit 63. */
export let varintBytes: i32 = 0;
export let varintLast: u32 = 0;

/** Reads the varint at [at, end); returns 0, or the Malformed reason (truncated, or more than 10 bytes). */
export function readVarint(at: usize, end: usize): i32 {
  let x: u64 = 0;
  let p = at;
  for (let i = 0; i < 10; i++) {
    if (p >= end) return M_TRUNCATED_VARINT;
    const c = <u64>load<u8>(p++);
    x |= (c & 0x7f) << (<u64>(7 * i));
    if (c < 0x80) {
      varintValue = x;
      varintEnd = p;
      varintBytes = i + 1;
      varintLast = <u32>c;
      return 0;
    }
  }
  return M_VARINT_OVERFLOW;
}

/** Whether the varint just read was written minimally (as every encoder writes it). */
export function varintMinimal(): bool {
  return varintBytes == 1 || (varintLast != 0 && (varintBytes < 10 || varintLast == 1));
}
