/**
 * The bytes CometBFT hashes and signs (docs/spec/light-client.md §4.2–§4.4): the 14 header fields as
 * Header.Hash encodes them, a validator's SimpleValidator bytes, the CanonicalVote a commit signature
 * covers, and the CanonicalVoteExtension a vote extension's signature covers. Each is a few protobuf fields,
 * written here as gogoproto writes them: proto3 scalars only when not their default, non-nullable messages always.
 */
import type { BlockID, Commit, Consensus, Header, Timestamp, Validator } from "./types.js";
import { BLOCK_ID_FLAG_COMMIT } from "./types.js";
import { ProtoWriter, WireType } from "../core/proto-wire.js";

const { Varint: V, Fixed64: I64, Len: LEN } = WireType;

// cdcEncode (types/encoding_helper.go): gogoproto's StringValue / Int64Value / BytesValue, nothing for an empty value.
const EMPTY = new Uint8Array(0);

export function cdcString(s: string): Uint8Array {
  if (s === "") return EMPTY;
  return new ProtoWriter().tag(1, LEN).string(s).finish();
}

export function cdcInt64(n: bigint): Uint8Array {
  if (n === 0n) return EMPTY;
  return new ProtoWriter().tag(1, V).varint(n).finish();
}

export function cdcBytes(b: Uint8Array): Uint8Array {
  if (b.length === 0) return EMPTY;
  return new ProtoWriter().tag(1, LEN).bytes(b).finish();
}

/** A Timestamp as gogoproto's StdTimeMarshal writes it (seconds and nanos, each only when non-zero). */
export function timestampBytes(t: Timestamp): Uint8Array {
  const w = new ProtoWriter();
  if (t.seconds !== 0n) w.tag(1, V).varint(t.seconds);
  if (t.nanos !== 0) w.tag(2, V).varint(t.nanos);
  return w.finish();
}

/** The BlockID proto (its part-set header always written: gogoproto non-nullable). */
export function blockIdBytes(id: BlockID): Uint8Array {
  const psh = id.partSetHeader;
  const part = new ProtoWriter();
  if (psh.total !== 0) part.tag(1, V).varint(psh.total >>> 0);
  if (psh.hash.length !== 0) part.tag(2, LEN).bytes(psh.hash);
  const w = new ProtoWriter();
  if (id.hash.length !== 0) w.tag(1, LEN).bytes(id.hash);
  return w.tag(2, LEN).bytes(part.finish()).finish();
}

/** tendermint.version.Consensus. */
function consensusBytes(c: Consensus): Uint8Array {
  const w = new ProtoWriter();
  if (c.block !== 0n) w.tag(1, V).varint(c.block);
  if (c.app !== 0n) w.tag(2, V).varint(c.app);
  return w.finish();
}

/** The 14 leaves of Header.Hash, in field order. */
export function headerLeaves(h: Header): Uint8Array[] {
  return [
    consensusBytes(h.version),
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
export function validatorBytes(v: Validator): Uint8Array {
  const key = new ProtoWriter();
  // PublicKey is a oneof: a key that is set is written even when empty.
  if (v.pubKey.ed25519 !== undefined) key.tag(1, LEN).bytes(v.pubKey.ed25519);
  if (v.pubKey.secp256k1 !== undefined) key.tag(2, LEN).bytes(v.pubKey.secp256k1);
  const w = new ProtoWriter().tag(1, LEN).bytes(key.finish());
  if (v.votingPower !== 0n) w.tag(2, V).varint(v.votingPower);
  return w.finish();
}

export const PRECOMMIT_TYPE = 2;

/** CanonicalBlockID: nil (omitted) for the zero block id. */
function canonicalBlockId(w: ProtoWriter, field: number, id: BlockID): void {
  const psh = id.partSetHeader;
  if (id.hash.length === 0 && psh.total === 0 && psh.hash.length === 0) return;
  w.tag(field, LEN).bytes(blockIdBytes(id)); // the same fields as BlockID, the part-set header always written
}

/** The message with its uvarint length in front (protoio.MarshalDelimited). */
const delimited = (body: ProtoWriter): Uint8Array => {
  const bytes = body.finish();
  return new ProtoWriter().bytes(bytes).finish();
};

/**
 * The sign bytes of one commit signature (Commit.VoteSignBytes): the uvarint-length-delimited CanonicalVote
 * {type, sfixed64 height, sfixed64 round, block id (the commit's when the flag is COMMIT, else nil), the
 * signature's own timestamp, chain id}. Everything but the timestamp is the same for every signature of a
 * commit, so `voteSignBytesOf` builds the common parts once.
 */
export function voteSignBytesOf(chainId: string, commit: Commit): (index: number) => Uint8Array {
  const head = new ProtoWriter().tag(1, V).varint(PRECOMMIT_TYPE);
  if (commit.height !== 0n) head.tag(2, I64).fixed64(commit.height);
  if (commit.round !== 0) head.tag(3, I64).fixed64(BigInt(commit.round));
  const other = head.finish();
  const withBlock = new ProtoWriter().raw(other);
  canonicalBlockId(withBlock, 4, commit.blockId);
  const heads = { commit: withBlock.finish(), other };
  const tail = chainId === "" ? EMPTY : new ProtoWriter().tag(6, LEN).string(chainId).finish();
  return (index) => {
    const sig = commit.signatures[index];
    const body = new ProtoWriter().raw(sig.blockIdFlag === BLOCK_ID_FLAG_COMMIT ? heads.commit : heads.other);
    body.tag(5, LEN).bytes(timestampBytes(sig.timestamp)); // non-nullable: always written
    return delimited(body.raw(tail));
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
  const body = new ProtoWriter();
  if (extension.length) body.tag(1, LEN).bytes(extension);
  if (height !== 0n) body.tag(2, I64).fixed64(height);
  if (round !== 0) body.tag(3, I64).fixed64(BigInt(round));
  if (chainId !== "") body.tag(4, LEN).string(chainId);
  return delimited(body);
}
