/**
 * The bytes CometBFT hashes and signs (docs/spec/light-client.md §4.2–§4.4): the 14 header fields as
 * Header.Hash encodes them, a validator's SimpleValidator bytes, the CanonicalVote a commit signature
 * covers, and the CanonicalVoteExtension a vote extension's signature covers. Messages cosmjs-types has are
 * encoded with it; the rest (the gogoproto wrappers of cdcEncode, CanonicalVote and CanonicalVoteExtension,
 * absent from cosmjs-types) are a few protobuf fields written here.
 */
import { Timestamp as PbTimestamp } from "cosmjs-types/google/protobuf/timestamp";
import { BlockID as PbBlockID } from "cosmjs-types/tendermint/types/types";
import { SimpleValidator } from "cosmjs-types/tendermint/types/validator";
import { Consensus } from "cosmjs-types/tendermint/version/types";
import type { BlockID, Commit, Header, Timestamp, Validator } from "./types.js";
import { BLOCK_ID_FLAG_COMMIT } from "./types.js";
import { concatBytes } from "../base/bytes.js";

const utf8 = new TextEncoder();

function varint(out: number[], value: bigint): void {
  let v = BigInt.asUintN(64, value);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

function lengthDelimited(out: number[], field: number, bytes: Uint8Array): void {
  out.push((field << 3) | 2);
  varint(out, BigInt(bytes.length));
  for (const b of bytes) out.push(b);
}

// cdcEncode (types/encoding_helper.go): gogoproto's StringValue / Int64Value / BytesValue, nothing for an empty value.
const EMPTY = new Uint8Array(0);

export function cdcString(s: string): Uint8Array {
  if (s === "") return EMPTY;
  const out: number[] = [];
  lengthDelimited(out, 1, utf8.encode(s));
  return Uint8Array.from(out);
}

export function cdcInt64(n: bigint): Uint8Array {
  if (n === 0n) return EMPTY;
  const out: number[] = [0x08];
  varint(out, n);
  return Uint8Array.from(out);
}

export function cdcBytes(b: Uint8Array): Uint8Array {
  if (b.length === 0) return EMPTY;
  const out: number[] = [];
  lengthDelimited(out, 1, b);
  return Uint8Array.from(out);
}

/** A Timestamp as gogoproto's StdTimeMarshal writes it (seconds and nanos, each only when non-zero). */
export const timestampBytes = (t: Timestamp): Uint8Array => PbTimestamp.encode(t).finish();

/** The BlockID proto (its part-set header always written: gogoproto non-nullable). */
export const blockIdBytes = (id: BlockID): Uint8Array => PbBlockID.encode(id).finish();

/** The 14 leaves of Header.Hash, in field order. */
export function headerLeaves(h: Header): Uint8Array[] {
  return [
    Consensus.encode(h.version).finish(),
    cdcString(h.chainId),
    cdcInt64(h.height),
    timestampBytes(h.time),
    blockIdBytes(h.lastBlockId),
    cdcBytes(h.lastCommitHash),
    cdcBytes(h.dataHash),
    cdcBytes(h.validatorsHash),
    cdcBytes(h.nextValidatorsHash),
    cdcBytes(h.consensusHash),
    cdcBytes(h.appHash),
    cdcBytes(h.lastResultsHash),
    cdcBytes(h.evidenceHash),
    cdcBytes(h.proposerAddress),
  ];
}

/** Validator.Bytes: SimpleValidator{pub_key, voting_power}, the leaf of the validator-set hash. */
export const validatorBytes = (v: Validator): Uint8Array => SimpleValidator.encode({ pubKey: v.pubKey, votingPower: v.votingPower }).finish();

export const PRECOMMIT_TYPE = 2;

function sfixed64(out: number[], field: number, v: bigint): void {
  out.push((field << 3) | 1);
  let u = BigInt.asUintN(64, v);
  for (let i = 0; i < 8; i++) {
    out.push(Number(u & 0xffn));
    u >>= 8n;
  }
}

/** CanonicalBlockID: nil (omitted) for the zero block id. */
function canonicalBlockId(out: number[], field: number, id: BlockID): void {
  const psh = id.partSetHeader;
  if (id.hash.length === 0 && psh.total === 0 && psh.hash.length === 0) return;
  const inner: number[] = [];
  if (id.hash.length) lengthDelimited(inner, 1, id.hash);
  const part: number[] = [];
  if (psh.total !== 0) {
    part.push(0x08);
    varint(part, BigInt(psh.total >>> 0));
  }
  if (psh.hash.length) lengthDelimited(part, 2, psh.hash);
  lengthDelimited(inner, 2, Uint8Array.from(part));
  lengthDelimited(out, field, Uint8Array.from(inner));
}

/**
 * The sign bytes of one commit signature (Commit.VoteSignBytes): the uvarint-length-delimited CanonicalVote
 * {type, sfixed64 height, sfixed64 round, block id (the commit's when the flag is COMMIT, else nil), the
 * signature's own timestamp, chain id}. Everything but the timestamp is the same for every signature of a
 * commit, so `voteSignBytesOf` builds the common parts once.
 */
export function voteSignBytesOf(chainId: string, commit: Commit): (index: number) => Uint8Array {
  const head: number[] = [];
  head.push(0x08, PRECOMMIT_TYPE);
  if (commit.height !== 0n) sfixed64(head, 2, commit.height);
  if (commit.round !== 0) sfixed64(head, 3, BigInt(commit.round));
  const withBlock: number[] = [...head];
  canonicalBlockId(withBlock, 4, commit.blockId);
  const tail: number[] = [];
  if (chainId !== "") lengthDelimited(tail, 6, utf8.encode(chainId));
  const heads = { commit: Uint8Array.from(withBlock), other: Uint8Array.from(head) };
  const tailBytes = Uint8Array.from(tail);
  return (index) => {
    const sig = commit.signatures[index];
    const ts: number[] = [];
    lengthDelimited(ts, 5, timestampBytes(sig.timestamp)); // non-nullable: always written
    const body = concatBytes(sig.blockIdFlag === BLOCK_ID_FLAG_COMMIT ? heads.commit : heads.other, Uint8Array.from(ts), tailBytes);
    const len: number[] = [];
    varint(len, BigInt(body.length));
    return concatBytes(Uint8Array.from(len), body);
  };
}

/** One signature's sign bytes (see voteSignBytesOf). */
export const voteSignBytes = (chainId: string, commit: Commit, index: number): Uint8Array => voteSignBytesOf(chainId, commit)(index);

/**
 * The sign bytes of a vote extension (types.VoteExtensionSignBytes): the uvarint-length-delimited
 * CanonicalVoteExtension {bytes extension, sfixed64 height, sfixed64 round, string chain_id}, each field only
 * when it is not its default. CometBFT signs it with the validator's key beside the precommit.
 */
export function voteExtensionSignBytes(chainId: string, height: bigint, round: number, extension: Uint8Array): Uint8Array {
  const body: number[] = [];
  if (extension.length) lengthDelimited(body, 1, extension);
  if (height !== 0n) sfixed64(body, 2, height);
  if (round !== 0) sfixed64(body, 3, BigInt(round));
  if (chainId !== "") lengthDelimited(body, 4, utf8.encode(chainId));
  const len: number[] = [];
  varint(len, BigInt(body.length));
  return concatBytes(Uint8Array.from(len), Uint8Array.from(body));
}
