/**
 * What the light client verifies, in the shapes of tendermint.types (the proto messages' fields in camelCase): a
 * signed header, the validator set it claims, and the light block of both. 64-bit values are bigints; times are
 * protobuf Timestamps, so the nanoseconds a signature covers are never rounded through a Date.
 */
import { formatRfc3339Nano } from "../go/time.js";

/** google.protobuf.Timestamp. */
export interface Timestamp {
  seconds: bigint;
  nanos: number;
}

/** tendermint.version.Consensus: the block and app protocol versions. */
export interface Consensus {
  block: bigint;
  app: bigint;
}

export interface PartSetHeader {
  total: number;
  hash: Uint8Array;
}

export interface BlockID {
  hash: Uint8Array;
  partSetHeader: PartSetHeader;
}

export interface Header {
  version: Consensus;
  chainId: string;
  height: bigint;
  time: Timestamp;
  lastBlockId: BlockID;
  lastCommitHash: Uint8Array;
  dataHash: Uint8Array;
  validatorsHash: Uint8Array;
  nextValidatorsHash: Uint8Array;
  consensusHash: Uint8Array;
  appHash: Uint8Array;
  lastResultsHash: Uint8Array;
  evidenceHash: Uint8Array;
  proposerAddress: Uint8Array;
}

export interface CommitSig {
  /** BLOCK_ID_FLAG_* below. */
  blockIdFlag: number;
  validatorAddress: Uint8Array;
  timestamp: Timestamp;
  signature: Uint8Array;
}

export interface Commit {
  height: bigint;
  round: number;
  blockId: BlockID;
  signatures: CommitSig[];
}

/** tendermint.crypto.PublicKey: one of its keys is set. */
export interface PublicKey {
  ed25519?: Uint8Array;
  secp256k1?: Uint8Array;
}

export interface Validator {
  address: Uint8Array;
  pubKey: PublicKey;
  votingPower: bigint;
  proposerPriority: bigint;
}

/** A header and the commit that signs it (both there: the proto message has both optional). */
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
