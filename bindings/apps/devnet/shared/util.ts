/** Small byte, hash and time helpers shared by the devnet files. */
import { createHash } from "node:crypto";
import { splitNanos } from "../../../go/time.js";
import { CorruptStoreError } from "../../../store/errors.js";
import { InvalidEncodingError } from "./errors.js";

export const EMPTY = new Uint8Array(0);

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

export function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
export function fromUtf8(b: Uint8Array): string {
  return strict.decode(b);
}

export function hexUpper(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex").toUpperCase();
}

export function hexLower(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

export function base64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");
}

export function fromBase64Strict(s: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) throw new InvalidEncodingError("illegal base64 data");
  return new Uint8Array(Buffer.from(s, "base64"));
}

export function fromHexStrict(s: string): Uint8Array {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) throw new InvalidEncodingError(`encoding/hex: invalid byte in "${s.slice(0, 40)}"`);
  return new Uint8Array(Buffer.from(s, "hex"));
}

export function be64(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt.asUintN(64, v));
  return out;
}

export function readBe64(b: Uint8Array): bigint {
  // Its callers read stored counters (a proposal id, an account number): 8 bytes, or the store is damaged.
  if (b.length !== 8) throw new CorruptStoreError(`expected 8 bytes, got ${b.length}`);
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0);
}

/** Nanoseconds since the Unix epoch → protobuf Timestamp. */
export function toTimestamp(ns: bigint): { seconds: bigint; nanos: number } {
  const [seconds, nanos] = splitNanos(ns);
  return { seconds, nanos };
}

export function fromTimestamp(t: { seconds: bigint; nanos: number } | undefined): bigint {
  if (!t) return 0n;
  return t.seconds * 1_000_000_000n + BigInt(t.nanos);
}

/** The current wall-clock time in nanoseconds (millisecond clock plus the sub-millisecond part of hrtime). */
export function nowNs(): bigint {
  const sub = process.hrtime.bigint() % 1_000_000n;
  return BigInt(Date.now()) * 1_000_000n + sub;
}
