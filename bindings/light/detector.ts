/**
 * Witnesses (docs/spec/light-client.md §4.7), CometBFT's light/detector.go: once the primary's header is
 * verified, each witness is asked for the header at the same height, and at least one must have the same one.
 * A witness that cannot answer is *unavailable*; one that answers something malformed or unverifiable is
 * *faulty*, named with its reason, and ignored (it is asked again next time: CometBFT drops it instead).
 * A different header is examined (handleConflictingHeaders): when it too verifies from the trusted header,
 * two valid headers exist at one height — a light client attack. Evidence against each side goes to the other,
 * as CometBFT's detector sends it, and verification fails with what each node answered.
 */
import {
  LightClientAttackError,
  ConflictingHeadersError,
  NoWitnessConfirmedError,
  ProposerPrioritiesDivergeError,
  ProviderError,
  VerificationError,
  type WitnessFault,
  hex,
} from "./errors.js";
import { type EvidenceAnswer, type EvidenceSent, attackKind, evidenceHash, newLightClientAttackEvidence } from "./evidence.js";
import { type LightProvider, fetchLightBlock } from "./provider.js";
import { timestampNs } from "./types.js";
import type { LightBlock } from "./verifier.js";
import { equalBytes } from "../base/bytes.js";
import { messageOf } from "../base/errors.js";
import { sleep } from "../base/sleep.js";

/** What the witnesses said about one verified header. */
export interface WitnessReport {
  /** The witnesses that have the same header. */
  confirmed: string[];
  /** Those that answered something malformed or unverifiable. */
  faulty: WitnessFault[];
  /** Those that could not answer. */
  unavailable: WitnessFault[];
}

type Answer = { kind: "block"; block: LightBlock } | { kind: "faulty" | "unavailable"; reason: string };

/** Why a witness gave no light block: it could not answer, or what it answered is not a valid one. */
function failed(e: unknown): Answer {
  if (e instanceof ProviderError) return { kind: e.failure === "garbage" ? "faulty" : "unavailable", reason: e.reason };
  // Another chain's block, a header that does not hash to what its commit signs, another validator set: LightBlock.ValidateBasic.
  if (e instanceof VerificationError) return { kind: "faulty", reason: `its light block fails its own checks: ${e.detail}` };
  return { kind: "unavailable", reason: messageOf(e) };
}

/**
 * The witness's light block at the target's height (compareNewLightBlockWithWitness). A witness that has not
 * reached the height gets up to `lagMs`; meanwhile its latest block is compared by time: one no earlier than
 * the target's means the target is from the future (a forward lunatic attack), and is returned as the conflict.
 */
async function witnessBlock(witness: LightProvider, target: LightBlock, chainId: string, lagMs: number): Promise<Answer> {
  const deadline = Date.now() + lagMs;
  for (;;) {
    try {
      return { kind: "block", block: await fetchLightBlock(witness, target.height, chainId) };
    } catch (e) {
      if (!(e instanceof ProviderError && e.failure === "too-high")) return failed(e);
    }
    let latest: LightBlock;
    try {
      latest = await fetchLightBlock(witness, undefined, chainId);
    } catch (e) {
      return failed(e);
    }
    if (latest.height === target.height) return { kind: "block", block: latest };
    if (latest.height > target.height) {
      // It got there meanwhile (getTargetBlockOrLatest): asked once more, it must have it now.
      try {
        return { kind: "block", block: await fetchLightBlock(witness, target.height, chainId) };
      } catch (e) {
        if (!(e instanceof ProviderError && e.failure === "too-high")) return failed(e);
        return { kind: "faulty", reason: `it says it has not reached height ${target.height}, yet its latest header is at height ${latest.height}` };
      }
    }
    if (timestampNs(latest.signedHeader.header.time) >= timestampNs(target.signedHeader.header.time)) return { kind: "block", block: latest };
    if (Date.now() >= deadline) return { kind: "unavailable", reason: `it has not reached height ${target.height} (its latest is ${latest.height})` };
    await sleep(Math.min(250, Math.max(0, deadline - Date.now())));
  }
}

/**
 * compareFirstLightBlockWithWitnesses: at the trust root, a witness with another header fails it; the others are
 * not required to answer. Resolves to what each witness said.
 */
export async function compareFirstWithWitnesses(root: LightBlock, witnesses: readonly LightProvider[], chainId: string): Promise<WitnessReport> {
  const answers = await Promise.all(witnesses.map((w) => witnessBlock(w, root, chainId, 0)));
  const report: WitnessReport = { confirmed: [], faulty: [], unavailable: [] };
  answers.forEach((a, i) => {
    const label = witnesses[i].label;
    if (a.kind !== "block") return report[a.kind].push({ witness: label, reason: a.reason });
    if (!equalBytes(a.block.hash, root.hash)) throw new ConflictingHeadersError(label, root.hash, a.block.hash, root.height, "it is not the trusted header");
    if (!a.block.validatorSet.samePriorities(root.validatorSet)) throw new ProposerPrioritiesDivergeError(label, root.height);
    report.confirmed.push(label);
  });
  return report;
}

export interface DetectOptions {
  chainId: string;
  maxBlockLagMs: number;
  primary: LightProvider;
  /** The client's verifySkipping: the trace from `trusted` to `target`, headers in between from `source`. */
  verifySkipping: (source: LightProvider, trusted: LightBlock, target: LightBlock) => Promise<LightBlock[]>;
}

/**
 * detectDivergence over the primary's verified trace (its first block trusted, its last the target): resolves to
 * what each witness said, or throws — a LightClientAttackError, a ProposerPrioritiesDivergeError, or a
 * NoWitnessConfirmedError when no witness has the same header. Without witnesses, nothing is compared.
 */
export async function detectDivergence(trace: readonly LightBlock[], witnesses: readonly LightProvider[], o: DetectOptions): Promise<WitnessReport> {
  const report: WitnessReport = { confirmed: [], faulty: [], unavailable: [] };
  if (witnesses.length === 0) return report;
  const target = trace[trace.length - 1];
  const answers = await Promise.all(witnesses.map((w) => witnessBlock(w, target, o.chainId, o.maxBlockLagMs)));
  for (let i = 0; i < witnesses.length; i++) {
    const a = answers[i];
    const w = witnesses[i];
    if (a.kind !== "block") {
      report[a.kind].push({ witness: w.label, reason: a.reason });
      continue;
    }
    if (equalBytes(a.block.hash, target.hash)) {
      if (!a.block.validatorSet.samePriorities(target.validatorSet)) throw new ProposerPrioritiesDivergeError(w.label, target.height);
      report.confirmed.push(w.label);
      continue;
    }
    // Throws when it is an attack; else the witness's header does not verify, and the witness is faulty.
    const problem = await handleConflictingHeaders(trace, a.block, w, o);
    report.faulty.push({
      witness: w.label,
      reason: `its header ${hex(a.block.hash)} at height ${a.block.height} conflicts with the primary's ${hex(target.hash)} and does not verify (${problem})`,
    });
  }
  if (report.confirmed.length === 0) throw new NoWitnessConfirmedError(report.faulty, report.unavailable, target.height);
  return report;
}

/** The traces do not fit together as examineConflictingHeaderAgainstTrace requires. */
class TraceMismatch extends Error {}

/**
 * examineConflictingHeaderAgainstTrace: `source`'s blocks at the heights of `trace` are verified one from the
 * next, starting from the trace's first (which `source` must have too), until one differs from the trace's: the
 * bifurcation. Resolves to `source`'s trace from the last block both have to its differing one, and the trace's
 * block at that point. A `target` below the trace's end (the trace runs into the future: a forward lunatic
 * attack) makes the first trace block above it the divergent one.
 */
async function examine(
  trace: readonly LightBlock[],
  target: LightBlock,
  source: LightProvider,
  o: DetectOptions,
): Promise<{ sourceTrace: LightBlock[]; divergent: LightBlock }> {
  if (target.height < trace[0].height) throw new TraceMismatch(`the conflicting header is below the trusted height (${target.height} < ${trace[0].height})`);
  let previous = trace[0];
  for (let idx = 0; idx < trace.length; idx++) {
    const traceBlock = trace[idx];
    if (traceBlock.height > target.height) {
      if (timestampNs(traceBlock.signedHeader.header.time) > timestampNs(target.signedHeader.header.time)) {
        throw new TraceMismatch("the trace's header above the conflicting one is later in time than it");
      }
      const sourceTrace = await o.verifySkipping(source, previous, target);
      return { sourceTrace, divergent: traceBlock };
    }
    const sourceBlock = traceBlock.height === target.height ? target : await fetchLightBlock(source, traceBlock.height, o.chainId);
    if (idx === 0) {
      if (!equalBytes(sourceBlock.hash, traceBlock.hash)) {
        throw new TraceMismatch(`its header at the trusted height ${traceBlock.height} is ${hex(sourceBlock.hash)}, not the trusted ${hex(traceBlock.hash)}`);
      }
      previous = sourceBlock;
      continue;
    }
    const sourceTrace = await o.verifySkipping(source, previous, sourceBlock);
    if (!equalBytes(sourceBlock.hash, traceBlock.hash)) return { sourceTrace, divergent: traceBlock };
    previous = sourceBlock;
  }
  throw new TraceMismatch("no divergence between the trace and the source's headers");
}

/** Sends `evidence` accusing `against`'s header to `to`, best effort: the answer is reported, never thrown. */
async function send(
  against: EvidenceSent["against"],
  conflicted: LightBlock,
  trusted: LightBlock,
  common: LightBlock,
  to: LightProvider,
): Promise<EvidenceSent> {
  const evidence = newLightClientAttackEvidence(conflicted, trusted, common);
  let answer: EvidenceAnswer;
  if (!to.reportEvidence) answer = { accepted: false, error: `${to.label} cannot report evidence: its provider has no broadcast_evidence` };
  else {
    try {
      answer = { accepted: true, hash: await to.reportEvidence(evidence) };
    } catch (e) {
      answer = { accepted: false, error: messageOf(e) };
    }
  }
  const kind = attackKind(conflicted.signedHeader, trusted.signedHeader);
  return { against, sentTo: to.label, kind, evidence, hash: evidenceHash(evidence), answer };
}

/**
 * handleConflictingHeaders: the witness's header is examined against the primary's trace. When it verifies, the
 * evidence against the primary goes to the witness; the primary's header is then examined against the
 * witness's trace, and when that holds too, the evidence against the witness goes to the primary. Throws the
 * attack; resolves to why the witness's header does not verify otherwise.
 */
async function handleConflictingHeaders(
  primaryTrace: readonly LightBlock[],
  challenging: LightBlock,
  witness: LightProvider,
  o: DetectOptions,
): Promise<string> {
  const target = primaryTrace[primaryTrace.length - 1];
  let examined: { sourceTrace: LightBlock[]; divergent: LightBlock };
  try {
    examined = await examine(primaryTrace, challenging, witness, o);
  } catch (e) {
    return messageOf(e);
  }
  const witnessTrace = examined.sourceTrace;
  const primaryBlock = examined.divergent;
  const sent = [await send("primary", primaryBlock, witnessTrace[witnessTrace.length - 1], witnessTrace[0], witness)];
  let unexamined: string | undefined;
  try {
    const back = await examine(witnessTrace, primaryBlock, o.primary, o);
    sent.push(await send("witness", back.divergent, back.sourceTrace[back.sourceTrace.length - 1], back.sourceTrace[0], o.primary));
  } catch (e) {
    unexamined = messageOf(e);
  }
  throw new LightClientAttackError(witness.label, target.hash, challenging.hash, target.height, sent, unexamined);
}
