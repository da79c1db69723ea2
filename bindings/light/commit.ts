/**
 * Does a commit carry enough signatures (docs/spec/light-client.md §4.4–§4.5)? CometBFT's
 * VerifyCommitLight and VerifyCommitLightTrusting (types/validation.go), with their batch path's order:
 * signatures for the block are taken in commit order until their validators' power is past the threshold,
 * the power is checked, then exactly those signatures are verified (the first bad one is reported). Like
 * CometBFT's light client, signatures past the threshold are not checked.
 */
import { toHex } from "@cosmjs/encoding";
import { voteSignBytesOf } from "./encoding.js";
import { InvalidCommitError, NewValSetCantBeTrustedError, NotEnoughVotingPowerError, TrustOptionsError, WrongSignatureError, hex } from "./errors.js";
import { verifySignatures, type SignatureCheck, type SignatureEngine } from "./signatures.js";
import type { BlockID, Commit, CommitSig, Validator } from "./types.js";
import { BLOCK_ID_FLAG_COMMIT } from "./types.js";
import { type ValidatorSet, validatorKey } from "./validators.js";
import { equalBytes } from "../base/bytes.js";

/** A fraction of voting power; CometBFT's default trust level is 1/3. */
export interface TrustLevel {
  numerator: bigint;
  denominator: bigint;
}

export const DEFAULT_TRUST_LEVEL: TrustLevel = { numerator: 1n, denominator: 3n };

/**
 * CometBFT's ValidateTrustLevel: 1/3 ≤ level ≤ 1. Below 1/3, the signers a skip trusts could all be faulty;
 * above 1, no commit could carry enough of the trusted power.
 */
export function validateTrustLevel(level: TrustLevel): void {
  const { numerator: n, denominator: d } = level;
  if (typeof n !== "bigint" || typeof d !== "bigint") {
    throw new TrustOptionsError(`the trust level's numerator and denominator must be bigints (1n/3n), got ${String(n)}/${String(d)}`);
  }
  const given = `${n}/${d}`;
  if (d === 0n) throw new TrustOptionsError(`the trust level ${given} has a zero denominator`);
  if (d < 0n || n < 0n) throw new TrustOptionsError(`the trust level ${given} must be within [1/3, 1]: it is negative`);
  if (n * 3n < d) throw new TrustOptionsError(`the trust level ${given} must be within [1/3, 1]: below 1/3, every validator a skip trusts could be faulty`);
  if (n > d) throw new TrustOptionsError(`the trust level ${given} must be within [1/3, 1]: above 1, no commit could carry enough of the trusted power`);
}

/** What a commit check did: the power it counted against the threshold, the signatures that carry it, and how many of them it had to verify (the rest were verified earlier in the same step). */
export interface CommitTally {
  tallied: bigint;
  needed: bigint;
  total: bigint;
  signaturesCounted: number;
  signaturesVerified: number;
}

const sameBlockId = (a: BlockID, b: BlockID) =>
  equalBytes(a.hash, b.hash) && a.partSetHeader.total === b.partSetHeader.total && equalBytes(a.partSetHeader.hash, b.partSetHeader.hash);

interface Picked {
  checks: SignatureCheck[];
  indexes: number[];
  tallied: bigint;
}

/**
 * Signatures of a commit already verified, by index, with the chain id and key they were verified for. A
 * skipping step checks the same commit twice (1/3 of the trusted set, then 2/3 of its own, mostly the same
 * signers): a signature is verified once.
 */
const verified = new WeakMap<Commit, Map<number, string>>();

async function verifyPicked(chainId: string, picked: Picked, commit: Commit, engine: SignatureEngine | undefined): Promise<number> {
  let done = verified.get(commit);
  if (!done) verified.set(commit, (done = new Map()));
  const tag = (i: number) => `${chainId}\u0000${toHex(picked.checks[i].key)}`;
  const todo = picked.checks.map((_, i) => i).filter((i) => done.get(picked.indexes[i]) !== tag(i));
  const ok = await verifySignatures(
    todo.map((i) => picked.checks[i]),
    engine,
  );
  const bad = ok.indexOf(false);
  if (bad >= 0) {
    const idx = picked.indexes[todo[bad]];
    throw new WrongSignatureError(idx, commit.signatures[idx].validatorAddress, commit.height);
  }
  for (const i of todo) done.set(picked.indexes[i], tag(i));
  return todo.length;
}

/**
 * The signatures for the block, in commit order, until their validators' power is past `needed` (the batch path's
 * order). `signer` names the validator of signature i — or undefined: not counted — and refuses what it must.
 */
function pick(chainId: string, commit: Commit, needed: bigint, signer: (idx: number, sig: CommitSig) => Validator | undefined): Picked {
  const signBytes = voteSignBytesOf(chainId, commit);
  const picked: Picked = { checks: [], indexes: [], tallied: 0n };
  for (let idx = 0; idx < commit.signatures.length; idx++) {
    const sig = commit.signatures[idx];
    if (sig.blockIdFlag !== BLOCK_ID_FLAG_COMMIT) continue;
    const val = signer(idx, sig);
    if (!val) continue;
    const key = validatorKey(val)!;
    picked.checks.push({ type: key.type, key: key.bytes, message: signBytes(idx), signature: sig.signature });
    picked.indexes.push(idx);
    picked.tallied += val.votingPower;
    if (picked.tallied > needed) break;
  }
  return picked;
}

/** Verifies the picked signatures (those not verified before) and says what the check counted. */
async function tally(
  chainId: string,
  picked: Picked,
  needed: bigint,
  vals: ValidatorSet,
  commit: Commit,
  engine: SignatureEngine | undefined,
): Promise<CommitTally> {
  const fresh = await verifyPicked(chainId, picked, commit, engine);
  return { tallied: picked.tallied, needed, total: vals.totalVotingPower, signaturesCounted: picked.checks.length, signaturesVerified: fresh };
}

/** VerifyCommitLight: more than 2/3 of `vals`' power signed this block, signature i by validator i. */
export async function verifyCommitLight(
  chainId: string,
  vals: ValidatorSet,
  blockId: BlockID,
  height: bigint,
  commit: Commit,
  engine?: SignatureEngine,
): Promise<CommitTally> {
  if (vals.size !== commit.signatures.length) {
    throw new InvalidCommitError(`wrong set size: ${vals.size} validators, ${commit.signatures.length} signatures`, height);
  }
  if (height !== commit.height) throw new InvalidCommitError(`wrong height: ${height} vs ${commit.height}`, height);
  if (!sameBlockId(blockId, commit.blockId)) throw new InvalidCommitError(`wrong block ID: want ${hex(blockId.hash)}, got ${hex(commit.blockId.hash)}`, height);

  const needed = (vals.totalVotingPower * 2n) / 3n;
  const picked = pick(chainId, commit, needed, (idx, sig) => {
    const val = vals.validators[idx];
    if (!equalBytes(val.address, sig.validatorAddress)) {
      throw new InvalidCommitError(`validator address mismatch at index ${idx}: expected ${hex(val.address)}, got ${hex(sig.validatorAddress)}`, height);
    }
    return val;
  });
  if (picked.tallied <= needed) throw new NotEnoughVotingPowerError(picked.tallied, needed, height);
  return tally(chainId, picked, needed, vals, commit, engine);
}

/**
 * VerifyCommitLightTrusting: more than `trustLevel` of `vals`' power (a set that need not be the commit's)
 * signed this commit; signers are found by address, and one validator signing twice is refused.
 */
export async function verifyCommitLightTrusting(
  chainId: string,
  vals: ValidatorSet,
  commit: Commit,
  trustLevel: TrustLevel = DEFAULT_TRUST_LEVEL,
  engine?: SignatureEngine,
): Promise<CommitTally> {
  if (trustLevel.denominator === 0n) throw new RangeError("trustLevel has zero denominator");
  const needed = (vals.totalVotingPower * trustLevel.numerator) / trustLevel.denominator;
  const seen = new Map<number, number>();
  const picked = pick(chainId, commit, needed, (idx, sig) => {
    const valIdx = vals.indexOf(sig.validatorAddress);
    if (valIdx < 0) return undefined;
    const first = seen.get(valIdx);
    if (first !== undefined) throw new InvalidCommitError(`double vote from validator ${hex(sig.validatorAddress)} (#${first} and #${idx})`, commit.height);
    seen.set(valIdx, idx);
    return vals.validators[valIdx];
  });
  if (picked.tallied <= needed) throw new NewValSetCantBeTrustedError(picked.tallied, needed, commit.height);
  return tally(chainId, picked, needed, vals, commit, engine);
}
