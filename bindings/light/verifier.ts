/**
 * One step of verification (docs/spec/light-client.md §4), CometBFT's light/verifier.go: from a trusted light
 * block to an untrusted one, adjacent (the next height) or skipping (any later height). Each check has its
 * own error (./errors.ts).
 */
import { DEFAULT_TRUST_LEVEL, type CommitTally, type TrustLevel, verifyCommitLight, verifyCommitLightTrusting } from "./commit.js";
import { ClockDriftError, HeaderOrderError, NextValidatorsHashMismatchError, TrustRootExpiredError, ValidatorsHashMismatchError } from "./errors.js";
import { validateSignedHeader } from "./header.js";
import type { SignatureEngine } from "./signatures.js";
import { type SignedHeader, type Timestamp, formatTimestamp, timestampFromNs, timestampNs } from "./types.js";
import type { ValidatorSet } from "./validators.js";
import { equalBytes } from "../base/bytes.js";

/** A signed header with the validator set that signed it, checked against each other (LightBlock.ValidateBasic). */
export interface LightBlock {
  readonly signedHeader: SignedHeader;
  readonly validatorSet: ValidatorSet;
  /** The header's hash (= the block id its commit signs). */
  readonly hash: Uint8Array;
  readonly height: bigint;
}

export interface VerifyOptions {
  /** How long a verified header can vouch for later ones (ns). */
  trustingPeriodNs: bigint;
  /** How far a header's time may be ahead of `now` (ns). */
  maxClockDriftNs: bigint;
  now: Timestamp;
  trustLevel?: TrustLevel;
  engine?: SignatureEngine;
}

/**
 * LightBlock.ValidateBasic: the signed header is well formed, of `chainId`, and signs itself; the validator set
 * is the one the header names. What a provider checks before handing a block over.
 */
export function lightBlock(signedHeader: SignedHeader, validatorSet: ValidatorSet, chainId: string): LightBlock {
  const hash = validateSignedHeader(signedHeader, chainId);
  const height = signedHeader.header.height;
  const valsHash = validatorSet.hash();
  if (!equalBytes(signedHeader.header.validatorsHash, valsHash)) throw new ValidatorsHashMismatchError(signedHeader.header.validatorsHash, valsHash, height);
  return { signedHeader, validatorSet, hash, height };
}

/** HeaderExpired: the trusted header's time + the trusting period is not after now. */
export function headerExpired(trusted: SignedHeader, trustingPeriodNs: bigint, now: Timestamp): boolean {
  return timestampNs(trusted.header.time) + trustingPeriodNs <= timestampNs(now);
}

export function checkNotExpired(trusted: LightBlock, o: VerifyOptions): void {
  if (headerExpired(trusted.signedHeader, o.trustingPeriodNs, o.now)) {
    const at = timestampFromNs(timestampNs(trusted.signedHeader.header.time) + o.trustingPeriodNs);
    throw new TrustRootExpiredError(formatTimestamp(at), formatTimestamp(o.now), trusted.height);
  }
}

/** verifyNewHeaderAndVals, after LightBlock.ValidateBasic: later than the trusted header, not from the future. */
function checkNewHeader(trusted: LightBlock, untrusted: LightBlock, o: VerifyOptions): void {
  const h = untrusted.signedHeader.header;
  const t = trusted.signedHeader.header;
  if (h.height <= t.height) throw new HeaderOrderError(`the header is not above the trusted height ${t.height}`, h.height);
  if (timestampNs(h.time) <= timestampNs(t.time)) {
    throw new HeaderOrderError(`the header's time ${formatTimestamp(h.time)} is not after the trusted header's ${formatTimestamp(t.time)}`, h.height);
  }
  if (timestampNs(h.time) >= timestampNs(o.now) + o.maxClockDriftNs) {
    throw new ClockDriftError(
      `the header's time ${formatTimestamp(h.time)} is in the future (now ${formatTimestamp(o.now)}, allowed clock drift ${o.maxClockDriftNs / 1_000_000n} ms)`,
      h.height,
    );
  }
}

/** VerifyAdjacent: the next height, signed by more than 2/3 of the validators the trusted header announced. */
export async function verifyAdjacent(trusted: LightBlock, untrusted: LightBlock, o: VerifyOptions): Promise<CommitTally> {
  if (untrusted.height !== trusted.height + 1n) throw new RangeError("headers must be adjacent in height");
  checkNotExpired(trusted, o);
  checkNewHeader(trusted, untrusted, o);
  const h = untrusted.signedHeader.header;
  const next = trusted.signedHeader.header.nextValidatorsHash;
  if (!equalBytes(h.validatorsHash, next)) throw new NextValidatorsHashMismatchError(next, h.validatorsHash, h.height);
  const { commit } = untrusted.signedHeader;
  return verifyCommitLight(trusted.signedHeader.header.chainId, untrusted.validatorSet, commit.blockId, h.height, commit, o.engine);
}

/**
 * VerifyNonAdjacent: a later height, when more than the trust level (1/3) of the trusted validators signed it
 * — at least one of them honest — and more than 2/3 of its own validators did. The 2/3 check is last: the
 * untrusted set can be made huge to waste the client's time.
 */
export async function verifyNonAdjacent(trusted: LightBlock, untrusted: LightBlock, o: VerifyOptions): Promise<CommitTally> {
  if (untrusted.height === trusted.height + 1n) throw new RangeError("headers must be non adjacent in height");
  checkNotExpired(trusted, o);
  checkNewHeader(trusted, untrusted, o);
  const chainId = trusted.signedHeader.header.chainId;
  const { commit } = untrusted.signedHeader;
  const trusting = await verifyCommitLightTrusting(chainId, trusted.validatorSet, commit, o.trustLevel ?? DEFAULT_TRUST_LEVEL, o.engine);
  const own = await verifyCommitLight(chainId, untrusted.validatorSet, commit.blockId, untrusted.height, commit, o.engine);
  return { ...own, signaturesVerified: trusting.signaturesVerified + own.signaturesVerified };
}

/** Verify: adjacent or skipping, by height. */
export function verify(trusted: LightBlock, untrusted: LightBlock, o: VerifyOptions): Promise<CommitTally> {
  return untrusted.height === trusted.height + 1n ? verifyAdjacent(trusted, untrusted, o) : verifyNonAdjacent(trusted, untrusted, o);
}
