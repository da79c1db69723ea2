/** Big-endian 64-bit codecs over a shared DataView (a DataView per call costs ten times more). */
import { Status, statusError } from "../status.js";

const scratch = new DataView(new ArrayBuffer(8));

export function encodeInt64BE(value: bigint): Uint8Array {
  scratch.setBigInt64(0, value);
  return new Uint8Array(scratch.buffer.slice(0));
}

export function encodeUint64BE(value: bigint): Uint8Array {
  scratch.setBigUint64(0, value);
  return new Uint8Array(scratch.buffer.slice(0));
}

/** Reads BE int64 (signed) from 8 bytes at `pos`. */
export function readInt64BE(b: Uint8Array, pos: number): bigint {
  const hi = (b[pos] << 24) | (b[pos + 1] << 16) | (b[pos + 2] << 8) | b[pos + 3] | 0;
  const lo = ((b[pos + 4] << 24) | (b[pos + 5] << 16) | (b[pos + 6] << 8) | b[pos + 7]) >>> 0;
  if (hi === 0) return BigInt(lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

export function readUint64BE(b: Uint8Array, pos: number): bigint {
  const hi = ((b[pos] << 24) | (b[pos + 1] << 16) | (b[pos + 2] << 8) | b[pos + 3]) >>> 0;
  const lo = ((b[pos + 4] << 24) | (b[pos + 5] << 16) | (b[pos + 6] << 8) | b[pos + 7]) >>> 0;
  if (hi === 0) return BigInt(lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** An 8-byte store value, or the corrupt-store error naming its key. */
export function checkedInt64(key: Uint8Array, value: Uint8Array): bigint {
  if (value.length !== 8) throw statusError(Status.CorruptValue, { key, length: value.length });
  return readInt64BE(value, 0);
}

export function checkedUint64(key: Uint8Array, value: Uint8Array): bigint {
  if (value.length !== 8) throw statusError(Status.CorruptValue, { key, length: value.length });
  return readUint64BE(value, 0);
}
