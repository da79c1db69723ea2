/**
 * A signed header in itself (docs/spec/light-client.md §4.2): its hash — the Merkle root of the 14
 * proto-encoded fields, CometBFT's Header.Hash — and SignedHeader.ValidateBasic: a well-formed header and
 * commit, of the expected chain, the commit for this height and for this very header.
 */
import { headerLeaves } from "./encoding.js";
import { ChainIdMismatchError, HeaderHashMismatchError, InvalidHeaderError } from "./errors.js";
import { hashFromByteSlices } from "./merkle.js";
import type { BlockID, Commit, CommitSig, Header, SignedHeader } from "./types.js";
import { BLOCK_ID_FLAG_ABSENT, BLOCK_ID_FLAG_COMMIT, BLOCK_ID_FLAG_NIL } from "./types.js";

/** version.BlockProtocol of CometBFT v0.38. */
export const BLOCK_PROTOCOL = 11n;
export const MAX_CHAIN_ID_LEN = 50;
export const HASH_SIZE = 32;
export const ADDRESS_SIZE = 20;
export const MAX_SIGNATURE_SIZE = 64;
/** Go's zero time.Time (0001-01-01T00:00:00Z), what an absent signature carries. */
export const GO_ZERO_TIME_SECONDS = -62135596800n;

/** Header.Hash; undefined when the header has no validators_hash (CometBFT hashes such a header to nil). */
export function headerHash(h: Header): Uint8Array | undefined {
  if (h.validatorsHash.length === 0) return undefined;
  return hashFromByteSlices(headerLeaves(h));
}

const validHash = (b: Uint8Array) => b.length === 0 || b.length === HASH_SIZE;

function blockIdProblem(id: BlockID): string | undefined {
  if (!validHash(id.hash)) return "wrong Hash";
  if (!validHash(id.partSetHeader.hash)) return "wrong PartSetHeader: wrong Hash";
  return undefined;
}

const isZeroBlockId = (id: BlockID) => id.hash.length === 0 && id.partSetHeader.total === 0 && id.partSetHeader.hash.length === 0;

/** Header.ValidateBasic: the reason, or undefined. */
export function headerProblem(h: Header): string | undefined {
  if (h.version.block !== BLOCK_PROTOCOL) return `block protocol is incorrect: got: ${h.version.block}, want: ${BLOCK_PROTOCOL}`;
  if (h.chainId.length > MAX_CHAIN_ID_LEN) return `chainID is too long; got: ${h.chainId.length}, max: ${MAX_CHAIN_ID_LEN}`;
  if (h.height < 0n) return "negative Height";
  if (h.height === 0n) return "zero Height";
  const lb = blockIdProblem(h.lastBlockId);
  if (lb) return `wrong LastBlockID: ${lb}`;
  const hashes: [string, Uint8Array][] = [
    ["LastCommitHash", h.lastCommitHash],
    ["DataHash", h.dataHash],
    ["EvidenceHash", h.evidenceHash],
  ];
  for (const [name, v] of hashes) if (!validHash(v)) return `wrong ${name}: expected size to be ${HASH_SIZE} bytes, got ${v.length} bytes`;
  if (h.proposerAddress.length !== ADDRESS_SIZE) return `invalid ProposerAddress length; got: ${h.proposerAddress.length}, expected: ${ADDRESS_SIZE}`;
  const more: [string, Uint8Array][] = [
    ["ValidatorsHash", h.validatorsHash],
    ["NextValidatorsHash", h.nextValidatorsHash],
    ["ConsensusHash", h.consensusHash],
    ["LastResultsHash", h.lastResultsHash],
  ];
  for (const [name, v] of more) if (!validHash(v)) return `wrong ${name}: expected size to be ${HASH_SIZE} bytes, got ${v.length} bytes`;
  return undefined;
}

function commitSigProblem(s: CommitSig): string | undefined {
  if (s.blockIdFlag !== BLOCK_ID_FLAG_ABSENT && s.blockIdFlag !== BLOCK_ID_FLAG_COMMIT && s.blockIdFlag !== BLOCK_ID_FLAG_NIL) {
    return `unknown BlockIDFlag: ${s.blockIdFlag}`;
  }
  if (s.blockIdFlag === BLOCK_ID_FLAG_ABSENT) {
    if (s.validatorAddress.length !== 0) return "validator address is present";
    if (s.timestamp.seconds !== GO_ZERO_TIME_SECONDS || s.timestamp.nanos !== 0) return "time is present";
    if (s.signature.length !== 0) return "signature is present";
    return undefined;
  }
  if (s.validatorAddress.length !== ADDRESS_SIZE) return `expected ValidatorAddress size to be ${ADDRESS_SIZE} bytes, got ${s.validatorAddress.length} bytes`;
  if (s.signature.length === 0) return "signature is missing";
  if (s.signature.length > MAX_SIGNATURE_SIZE) return `signature is too big (max: ${MAX_SIGNATURE_SIZE})`;
  return undefined;
}

/** Commit.ValidateBasic: the reason, or undefined. */
export function commitProblem(c: Commit): string | undefined {
  if (c.height < 0n) return "negative Height";
  if (c.round < 0) return "negative Round";
  if (c.height >= 1n) {
    if (isZeroBlockId(c.blockId)) return "commit cannot be for nil block";
    if (c.signatures.length === 0) return "no signatures in commit";
    for (let i = 0; i < c.signatures.length; i++) {
      const p = commitSigProblem(c.signatures[i]);
      if (p) return `wrong CommitSig #${i}: ${p}`;
    }
  }
  return undefined;
}

/**
 * SignedHeader.ValidateBasic(chainId), with each failure its own error. Returns the header's hash (computed
 * here once: it is also the block's identity from now on).
 */
export function validateSignedHeader(sh: SignedHeader, chainId: string): Uint8Array {
  const { header, commit } = sh;
  const hp = headerProblem(header);
  if (hp) throw new InvalidHeaderError(`malformed header: ${hp}`, header.height);
  const cp = commitProblem(commit);
  if (cp) throw new InvalidHeaderError(`malformed commit: ${cp}`, header.height);
  if (header.chainId !== chainId) throw new ChainIdMismatchError(chainId, header.chainId, header.height);
  if (commit.height !== header.height)
    throw new InvalidHeaderError(`the header and its commit are for different heights: ${header.height} vs ${commit.height}`, header.height);
  const hash = headerHash(header) ?? new Uint8Array(0);
  const signed = commit.blockId.hash;
  if (hash.length !== signed.length || hash.some((b, i) => b !== signed[i])) throw new HeaderHashMismatchError(hash, signed, header.height);
  return hash;
}
