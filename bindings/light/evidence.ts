/**
 * Light client attack evidence (docs/spec/light-client.md §4.7), CometBFT's types.LightClientAttackEvidence and
 * light/detector.go's newLightClientAttackEvidence: the conflicting light block, the height both sides last
 * agreed on (or the conflict's own height when the conflicting header is a valid state transition), the
 * validators that signed what they should not have, and the total power and time at that height — what a full
 * node checks against its own chain before it commits the evidence. Built from light blocks the client already
 * verified; nothing is decoded again.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { type Header, type SignedHeader, type Timestamp, type Validator, BLOCK_ID_FLAG_COMMIT } from "./types.js";
import type { ValidatorSet } from "./validators.js";
import type { LightBlock } from "./verifier.js";
import { compareBytes, concatBytes, equalBytes } from "../base/bytes.js";
import { varint } from "../store/iavl/encoding.js";

export interface LightClientAttackEvidence {
  conflictingBlock: LightBlock;
  commonHeight: bigint;
  /** In CometBFT's order: by power, descending, then by address. */
  byzantineValidators: Validator[];
  totalVotingPower: bigint;
  timestamp: Timestamp;
}

/**
 * lunatic: the conflicting header is not a valid state transition (other validators, consensus params, app
 * state or results) — the validators of the common height that signed it are byzantine. equivocation: a valid
 * transition signed in the same round as the trusted header — those that signed both are. amnesia: another
 * round — who lied cannot be told, and no one is named.
 */
export type AttackKind = "lunatic" | "equivocation" | "amnesia";

/** What the node a piece of evidence was sent to answered: the hash it gives the evidence, or why it did not take it. */
export type EvidenceAnswer = { accepted: true; hash: Uint8Array } | { accepted: false; error: string };

/** One piece of evidence sent, and what the node answered. */
export interface EvidenceSent {
  /** Whose header the evidence holds as the conflicting one. */
  against: "primary" | "witness";
  /** The node it was sent to: the other one. */
  sentTo: string;
  kind: AttackKind;
  evidence: LightClientAttackEvidence;
  /** The evidence's hash, as CometBFT computes it. */
  hash: Uint8Array;
  answer: EvidenceAnswer;
}

/** ConflictingHeaderIsInvalid: does the conflicting header differ from the trusted one in what a valid block of that height must share? */
export function conflictingHeaderIsInvalid(conflicting: Header, trusted: Header): boolean {
  return (
    !equalBytes(trusted.validatorsHash, conflicting.validatorsHash) ||
    !equalBytes(trusted.nextValidatorsHash, conflicting.nextValidatorsHash) ||
    !equalBytes(trusted.consensusHash, conflicting.consensusHash) ||
    !equalBytes(trusted.appHash, conflicting.appHash) ||
    !equalBytes(trusted.lastResultsHash, conflicting.lastResultsHash)
  );
}

export function attackKind(conflicting: SignedHeader, trusted: SignedHeader): AttackKind {
  if (conflictingHeaderIsInvalid(conflicting.header, trusted.header)) return "lunatic";
  return conflicting.commit.round === trusted.commit.round ? "equivocation" : "amnesia";
}

/** ValidatorsByVotingPower. */
const byPower = (a: Validator, b: Validator) => (a.votingPower === b.votingPower ? compareBytes(a.address, b.address) : a.votingPower > b.votingPower ? -1 : 1);

/** GetByzantineValidators. */
export function byzantineValidators(conflicting: LightBlock, commonVals: ValidatorSet, trusted: SignedHeader): Validator[] {
  const out: Validator[] = [];
  const sigs = conflicting.signedHeader.commit.signatures;
  switch (attackKind(conflicting.signedHeader, trusted)) {
    case "lunatic":
      // The common height's validators that signed the conflicting header.
      for (const s of sigs) {
        if (s.blockIdFlag !== BLOCK_ID_FLAG_COMMIT) continue;
        const i = commonVals.indexOf(s.validatorAddress);
        if (i >= 0) out.push(commonVals.validators[i]);
      }
      break;
    case "equivocation":
      // The same validator set (its hash is one of the fields compared): signature i is validator i's in both commits.
      sigs.forEach((s, i) => {
        const other = trusted.commit.signatures[i];
        if (s.blockIdFlag !== BLOCK_ID_FLAG_COMMIT || other?.blockIdFlag !== BLOCK_ID_FLAG_COMMIT) return;
        const at = conflicting.validatorSet.indexOf(s.validatorAddress);
        if (at >= 0) out.push(conflicting.validatorSet.validators[at]);
      });
      break;
    case "amnesia":
      break;
  }
  return out.sort(byPower);
}

/**
 * newLightClientAttackEvidence: `conflicted` is the header accused, `trusted` the one at the same height the other
 * side verified, `common` where both traces start (the last header they agree on).
 */
export function newLightClientAttackEvidence(conflicted: LightBlock, trusted: LightBlock, common: LightBlock): LightClientAttackEvidence {
  // A lunatic attack is dated from the common height, where the validators that signed it were bonded; an
  // equivocation or amnesia from its own height.
  const at = conflictingHeaderIsInvalid(conflicted.signedHeader.header, trusted.signedHeader.header) ? common : trusted;
  return {
    conflictingBlock: conflicted,
    commonHeight: at.height,
    byzantineValidators: byzantineValidators(conflicted, common.validatorSet, trusted.signedHeader),
    totalVotingPower: at.validatorSet.totalVotingPower,
    timestamp: at.signedHeader.header.time,
  };
}

/**
 * LightClientAttackEvidence.Hash: sha256 of the conflicting header's hash and the common height (a signed
 * varint) — bytes 0–30 of the hash, a zero byte where CometBFT's copy stops one short, then the varint. The
 * same conflict at the same common height is one piece of evidence, whichever signatures it carries.
 */
export function evidenceHash(ev: { conflictingBlock: { hash: Uint8Array }; commonHeight: bigint }): Uint8Array {
  const head = new Uint8Array(32);
  head.set(ev.conflictingBlock.hash.subarray(0, 31));
  return sha256(concatBytes(head, varint(Number(ev.commonHeight))));
}
