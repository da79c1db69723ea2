/**
 * Every way verification can fail, one class per check (docs/spec/light-client.md §5), as CometBFT's
 * light/errors.go and types/errors.go name them. Each error says which check failed (`check`) and, when it
 * concerns one header, at which height. Nothing a failed check touched may be shown as verified.
 */
import { toHex } from "@cosmjs/encoding";
import type { EvidenceSent } from "./evidence.js";
import { equalBytes } from "../base/bytes.js";

/** The named checks, in the order docs/spec/light-client.md §4 runs them. */
export type Check =
  | "trust-options"
  | "provider"
  | "header"
  | "chain-id"
  | "header-hash"
  | "last-block-id"
  | "trusted-hash"
  | "trusting-period"
  | "header-order"
  | "clock-drift"
  | "validator-set"
  | "validators-hash"
  | "next-validators-hash"
  | "commit"
  | "signature"
  | "voting-power"
  | "trust-level"
  | "witness"
  | "freshness"
  | "proof-missing"
  | "proof";

export const hex = (b: Uint8Array): string => toHex(b).toUpperCase();

/** A saved trust root (its JSON form, docs/spec/light-client.md §2.1) that does not read: the message says which part. */
export class SavedRootError extends Error {
  override name = "SavedRootError";
}

/** Base class: `verification failed` is what every surface prefixes (the CLI: `Error: verification failed: …`). */
export abstract class VerificationError extends Error {
  abstract readonly check: Check;
  constructor(
    /** What failed, without the height (the message says both). */
    readonly detail: string,
    /** The height of the header (or proof) that failed the check, when there is one. */
    readonly height?: bigint,
  ) {
    super(height === undefined ? detail : `at height ${height}: ${detail}`);
  }
}

/** The trust root itself is unusable: a height ≤ 0, a hash that is not 32 bytes, a non-positive period. */
export class TrustOptionsError extends VerificationError {
  override name = "TrustOptionsError";
  readonly check = "trust-options";
}

/** Why a node could not give what was asked. `not-found` and `too-high`: it does not keep (or has not reached) the height. */
export type ProviderFailure = "unreachable" | "not-found" | "too-high" | "rpc" | "garbage";

/** The node could not give what was asked (unreachable, an RPC error, a height it does not keep, an unreadable answer). */
export class ProviderError extends VerificationError {
  override name = "ProviderError";
  readonly check = "provider";
  constructor(
    readonly provider: string,
    readonly reason: string,
    readonly failure: ProviderFailure,
    height?: bigint,
  ) {
    super(`node ${provider}: ${reason}`, height);
  }
}

/** A header or commit that is malformed in itself (CometBFT's ValidateBasic). */
export class InvalidHeaderError extends VerificationError {
  override name = "InvalidHeaderError";
  readonly check = "header";
  constructor(
    readonly reason: string,
    height?: bigint,
  ) {
    super(reason, height);
  }
}

export class ChainIdMismatchError extends VerificationError {
  override name = "ChainIdMismatchError";
  readonly check = "chain-id";
  constructor(
    readonly expected: string,
    readonly got: string,
    height?: bigint,
  ) {
    super(`the header belongs to chain ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`, height);
  }
}

/** The header's hash (the Merkle root of its 14 fields) is not the block the commit signs. */
export class HeaderHashMismatchError extends VerificationError {
  override name = "HeaderHashMismatchError";
  readonly check = "header-hash";
  constructor(
    readonly headerHash: Uint8Array,
    readonly commitHash: Uint8Array,
    height?: bigint,
  ) {
    super(`the commit signs block ${hex(commitHash)}, but the header hashes to ${hex(headerHash)}`, height);
  }
}

/** Backwards: the header below a verified one is not the block that verified header names as its last. */
export class LastBlockIdMismatchError extends VerificationError {
  override name = "LastBlockIdMismatchError";
  readonly check = "last-block-id";
  constructor(
    readonly headerHash: Uint8Array,
    readonly lastBlockId: Uint8Array,
    height: bigint,
  ) {
    super(`the header hashes to ${hex(headerHash)}, but the verified header above it names ${hex(lastBlockId)} as its last block`, height);
  }
}

/** The node's header at the trusted height is not the trusted one. */
export class TrustedHashMismatchError extends VerificationError {
  override name = "TrustedHashMismatchError";
  readonly check = "trusted-hash";
  constructor(
    readonly expected: Uint8Array,
    readonly got: Uint8Array,
    height: bigint,
  ) {
    super(`the trusted header is ${hex(expected)}, the node's is ${hex(got)}`, height);
  }
}

/** The trusted header is older than the trusting period: it can no longer vouch for anything. */
export class TrustRootExpiredError extends VerificationError {
  override name = "TrustRootExpiredError";
  readonly check = "trusting-period";
  constructor(
    readonly expiredAt: string,
    readonly now: string,
    height: bigint,
  ) {
    super(`the trusted header expired at ${expiredAt} (now ${now}); obtain a newer trust root`, height);
  }
}

/** The new header is not after the trusted one (height or time). */
export class HeaderOrderError extends VerificationError {
  override name = "HeaderOrderError";
  readonly check = "header-order";
}

/** The new header's time is beyond now + the allowed clock drift. */
export class ClockDriftError extends VerificationError {
  override name = "ClockDriftError";
  readonly check = "clock-drift";
}

/** A validator set that is malformed in itself: empty, a key that does not give its address, too much power. */
export class InvalidValidatorSetError extends VerificationError {
  override name = "InvalidValidatorSetError";
  readonly check = "validator-set";
  constructor(
    readonly reason: string,
    height?: bigint,
  ) {
    super(`invalid validator set: ${reason}`, height);
  }
}

/** The validator set the node supplied does not hash to the header's validators_hash. */
export class ValidatorsHashMismatchError extends VerificationError {
  override name = "ValidatorsHashMismatchError";
  readonly check = "validators-hash";
  constructor(
    readonly headerHash: Uint8Array,
    readonly suppliedHash: Uint8Array,
    height: bigint,
  ) {
    super(`validators_hash ${hex(headerHash)} does not match the validator set the node supplied (${hex(suppliedHash)})`, height);
  }
}

/** Adjacent headers: the new header's validators are not the ones the trusted header announced. */
export class NextValidatorsHashMismatchError extends VerificationError {
  override name = "NextValidatorsHashMismatchError";
  readonly check = "next-validators-hash";
  constructor(
    readonly trustedNext: Uint8Array,
    readonly got: Uint8Array,
    height: bigint,
  ) {
    super(`validators_hash ${hex(got)} is not the next_validators_hash ${hex(trustedNext)} of the trusted header before it`, height);
  }
}

/** The commit does not fit the validator set (size, height, block id, a validator out of place, a double vote). */
export class InvalidCommitError extends VerificationError {
  override name = "InvalidCommitError";
  readonly check = "commit";
  constructor(
    readonly reason: string,
    height?: bigint,
  ) {
    super(`invalid commit: ${reason}`, height);
  }
}

/** A commit signature that does not verify. */
export class WrongSignatureError extends VerificationError {
  override name = "WrongSignatureError";
  readonly check = "signature";
  constructor(
    readonly index: number,
    readonly validatorAddress: Uint8Array,
    height: bigint,
  ) {
    super(`commit signature #${index} (validator ${hex(validatorAddress)}) is wrong`, height);
  }
}

/** The verified signatures hold 2/3 or less of the validator set's voting power. */
export class NotEnoughVotingPowerError extends VerificationError {
  override name = "NotEnoughVotingPowerError";
  readonly check = "voting-power";
  constructor(
    readonly got: bigint,
    readonly needed: bigint,
    height: bigint,
  ) {
    super(`not enough voting power signed: got ${got}, needed more than ${needed} (2/3 of the set)`, height);
  }
}

/**
 * Skipping: the trusted validators hold 1/3 or less of their power among the new commit's signers. Bisection
 * catches this and tries a header in between; it surfaces only when no header in between can be had.
 */
export class NewValSetCantBeTrustedError extends VerificationError {
  override name = "NewValSetCantBeTrustedError";
  readonly check = "trust-level";
  constructor(
    readonly got: bigint,
    readonly needed: bigint,
    height: bigint,
  ) {
    super(`the trusted validators signed too little of the new header: got ${got}, needed more than ${needed} (1/3 of the trusted set)`, height);
  }
}

/**
 * A witness answered a different header for the same height. `attack` when the witness's header also
 * verifies from the trust root: two valid headers at one height, a light client attack (or a fork) — then
 * it is a LightClientAttackError. At the trust root, any other header fails it.
 */
export class ConflictingHeadersError extends VerificationError {
  override name = "ConflictingHeadersError";
  readonly check = "witness";
  constructor(
    readonly witness: string,
    readonly primaryHash: Uint8Array,
    readonly witnessHash: Uint8Array,
    height: bigint,
    /** Why the witness's own header does not verify; undefined when it does (an attack). */
    readonly witnessProblem: string | undefined,
    /** What followed (the evidence sent), said after the conflict. */
    more = "",
  ) {
    super(
      `witness ${witness} has a conflicting header: primary ${hex(primaryHash)}, witness ${hex(witnessHash)} — ` +
        (witnessProblem === undefined
          ? "both are signed by the trusted validators: a light client attack (or a fork)"
          : `the witness's header does not verify either (${witnessProblem})`) +
        more,
      height,
    );
  }
  get attack(): boolean {
    return this.witnessProblem === undefined;
  }
}

/** A witness that did not confirm a header, and why (docs/spec/light-client.md §4.7). */
export interface WitnessFault {
  witness: string;
  reason: string;
}

const faults = (label: string, list: readonly WitnessFault[]) => (list.length ? [`${label}: ${list.map((f) => `${f.witness} (${f.reason})`).join("; ")}`] : []);

/**
 * No witness confirmed the header. Each is named in one of two groups: *faulty* — it answered something malformed
 * or unverifiable (an unreadable answer, a block of another chain or that fails its own checks, a conflicting
 * header that does not verify) — or *unavailable* — it could not answer (unreachable, timed out, an error, a
 * height it has not reached or no longer keeps).
 */
export class NoWitnessConfirmedError extends VerificationError {
  override name = "NoWitnessConfirmedError";
  readonly check = "witness";
  constructor(
    readonly faulty: readonly WitnessFault[],
    readonly unavailable: readonly WitnessFault[],
    height: bigint,
  ) {
    super(`no witness confirmed the header — ${[...faults("faulty", faulty), ...faults("unavailable", unavailable)].join(" — ")}`, height);
  }

  /** No witness answered anything false: they only could not answer. Nothing was confirmed, nothing contradicted. */
  get onlyUnavailable(): boolean {
    return this.faulty.length === 0;
  }
}

/** A witness has the same header, but a validator set with other proposer priorities (CometBFT's detector refuses that too). */
export class ProposerPrioritiesDivergeError extends VerificationError {
  override name = "ProposerPrioritiesDivergeError";
  readonly check = "witness";
  constructor(
    readonly witness: string,
    height: bigint,
  ) {
    super(`witness ${witness} has the same header but a validator set with other proposer priorities`, height);
  }
}

/** The node answered a store query without a proof (or with proof ops of the wrong kind). */
export class MissingProofError extends VerificationError {
  override name = "MissingProofError";
  readonly check = "proof-missing";
}

/** A store proof that does not prove the answer against the verified app hash. */
export class ProofError extends VerificationError {
  override name = "ProofError";
  readonly check = "proof";
}

/**
 * The newest header the node gave is older than the freshness bound allows: the node is behind, or serves an old
 * state as its latest. (A chain halted for an upgrade is not stale: its verified state says so.)
 */
export class StaleHeaderError extends VerificationError {
  override name = "StaleHeaderError";
  readonly check = "freshness";
  constructor(
    readonly headerTime: string,
    readonly ageMs: number,
    readonly maxAgeMs: number,
    height: bigint,
  ) {
    super(
      `the node's latest header is from ${headerTime}, ${formatAge(ageMs)} ago, older than the freshness bound (${formatAge(maxAgeMs)}): ` +
        "the node is behind or serves an old state as its latest; ask another node, or allow an older state (--max-age)",
      height,
    );
  }
}

/** An age as a person reads it: "42 s", "12 min 5 s", "3 h 20 min", "2 d 4 h". */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${s % 60 ? ` ${s % 60} s` : ""}`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ""}`;
  const d = Math.floor(h / 24);
  return `${d} d${h % 24 ? ` ${h % 24} h` : ""}`;
}

/**
 * The client was started without a witness and without saying so (CometBFT's ErrNoWitnesses): a primary alone
 * could present a fork of the chain as verified, and nothing would tell.
 */
export class NoWitnessesError extends VerificationError {
  override name = "NoWitnessesError";
  readonly check = "witness";
  constructor() {
    super(
      "no witness was given: the light client compares the primary's headers with at least one other node's (a witness), " +
        "so that the primary alone cannot present a fork as the chain; give one (witnesses: [<another node>]), " +
        "or opt out explicitly (withoutWitnesses: true), accepting that risk",
    );
  }
}

function sentText(e: EvidenceSent): string {
  const n = e.evidence.byzantineValidators.length;
  const what = `against the ${e.against} (${e.kind}, common height ${e.evidence.commonHeight}, ${n} byzantine validator${n === 1 ? "" : "s"}, hash ${hex(e.hash)}), sent to ${e.sentTo}: `;
  if (!e.answer.accepted) return what + `not taken (${e.answer.error})`;
  return what + (equalBytes(e.answer.hash, e.hash) ? "accepted" : `accepted under another hash, ${hex(e.answer.hash)}`);
}

/**
 * A light client attack (CometBFT's ErrLightClientAttack): a witness's header conflicts with the primary's and
 * both verify from the trusted header. As CometBFT's detector does, evidence against each side was sent to the
 * other (`broadcast_evidence`); each node's answer is reported. Verification fails all the same.
 */
export class LightClientAttackError extends ConflictingHeadersError {
  override name = "LightClientAttackError";
  constructor(
    witness: string,
    primaryHash: Uint8Array,
    witnessHash: Uint8Array,
    height: bigint,
    readonly evidence: readonly EvidenceSent[],
    /** Why the primary's header could not be examined against the witness's trace (then no evidence against the witness). */
    readonly unexamined?: string,
  ) {
    super(
      witness,
      primaryHash,
      witnessHash,
      height,
      undefined,
      ". Evidence " +
        evidence.map(sentText).join("; evidence ") +
        (unexamined === undefined ? "" : `; no evidence against the witness: the primary's header could not be examined against its trace (${unexamined})`),
    );
  }
}
