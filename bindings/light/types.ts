/**
 * What the light client verifies, in cosmjs-types' shapes (tendermint.types): a signed header, the validator
 * set it claims, and the light block of both. 64-bit values are bigints; times are protobuf Timestamps, so the
 * nanoseconds a signature covers are never rounded through a Date.
 */
import type { Timestamp } from "cosmjs-types/google/protobuf/timestamp";
import type { BlockID, Commit, CommitSig, Header } from "cosmjs-types/tendermint/types/types";
import type { Validator } from "cosmjs-types/tendermint/types/validator";
import { formatRfc3339Nano } from "../go/time.js";

export type { BlockID, Commit, CommitSig, Header, Timestamp, Validator };

/** A header and the commit that signs it (cosmjs-types has both optional; here both are there). */
export interface SignedHeader {
  header: Header;
  commit: Commit;
}

/** BlockIDFlag (tendermint.types): what a commit signature says about the block. */
export const BLOCK_ID_FLAG_ABSENT = 1;
export const BLOCK_ID_FLAG_COMMIT = 2;
export const BLOCK_ID_FLAG_NIL = 3;

export const NS_PER_SECOND = 1_000_000_000n;

/** Nanoseconds since the Unix epoch. */
export const timestampNs = (t: Timestamp): bigint => t.seconds * NS_PER_SECOND + BigInt(t.nanos);

export function timestampFromNs(ns: bigint): Timestamp {
  let seconds = ns / NS_PER_SECOND;
  let nanos = ns % NS_PER_SECOND;
  if (nanos < 0n) {
    seconds -= 1n;
    nanos += NS_PER_SECOND;
  }
  return { seconds, nanos: Number(nanos) };
}

/** RFC 3339 with nanoseconds, as CometBFT prints times. */
export const formatTimestamp = (t: Timestamp): string => formatRfc3339Nano(t.seconds, t.nanos);

/** Now, as a Timestamp (millisecond precision). */
export const nowTimestamp = (): Timestamp => timestampFromNs(BigInt(Date.now()) * 1_000_000n);
