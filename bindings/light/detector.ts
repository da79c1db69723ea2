/**
 * Witnesses (docs/spec/light-client.md §4.7), CometBFT's light/detector.go: once the primary's header is
 * verified, each witness is asked for the header at the same height. At least one must have the same one.
 * A different header is examined: when it too verifies from the trusted header, two valid headers exist at
 * one height — a light client attack, reported with both hashes; when it does not, that witness is lying
 * (or broken) and is ignored, but if no witness confirmed the header, verification fails with the conflict.
 */
import { ConflictingHeadersError, ProposerPrioritiesDivergeError, ProviderError, VerificationError, WitnessUnavailableError } from "./errors.js";
import { type LightProvider, fetchLightBlock } from "./provider.js";
import type { LightBlock } from "./verifier.js";
import { sleep } from "../base/sleep.js";
import { equalBytes } from "../base/bytes.js";

type Answer = { kind: "block"; block: LightBlock } | { kind: "unavailable"; reason: string };

/** The witness's light block at `height`, waiting up to `lagMs` for a witness that has not reached it yet. */
async function witnessBlock(witness: LightProvider, height: bigint, chainId: string, lagMs: number): Promise<Answer> {
  const deadline = Date.now() + lagMs;
  for (;;) {
    try {
      return { kind: "block", block: await fetchLightBlock(witness, height, chainId) };
    } catch (e) {
      if (e instanceof ProviderError && e.failure === "too-high" && Date.now() < deadline) {
        await sleep(Math.min(250, Math.max(0, deadline - Date.now())));
        continue;
      }
      if (e instanceof ProviderError) return { kind: "unavailable", reason: `${witness.label}: ${e.reason}` };
      // A block that fails its own checks (another chain, a hash that does not match): a bad witness.
      return { kind: "unavailable", reason: `${witness.label} answered an invalid block: ${(e as Error).message}` };
    }
  }
}

/**
 * compareFirstLightBlockWithWitnesses: at the trust root, a witness with another header fails it; others are not
 * required. Resolves to the witnesses that have the same header.
 */
export async function compareFirstWithWitnesses(root: LightBlock, witnesses: readonly LightProvider[], chainId: string): Promise<string[]> {
  const answers = await Promise.all(witnesses.map((w) => witnessBlock(w, root.height, chainId, 0)));
  const confirmed: string[] = [];
  answers.forEach((a, i) => {
    if (a.kind !== "block") return;
    if (!equalBytes(a.block.hash, root.hash)) {
      throw new ConflictingHeadersError(witnesses[i].label, root.hash, a.block.hash, root.height, "it is not the trusted header");
    }
    if (!a.block.validatorSet.samePriorities(root.validatorSet)) throw new ProposerPrioritiesDivergeError(witnesses[i].label, root.height);
    confirmed.push(witnesses[i].label);
  });
  return confirmed;
}

export interface DetectOptions {
  chainId: string;
  maxBlockLagMs: number;
  /** Verifies a witness's block from the trace's trusted start, with the witness as the source of headers in between. */
  verifyWitnessTrace: (witness: LightProvider, block: LightBlock) => Promise<unknown>;
}

/**
 * detectDivergence over the primary's verified trace: resolves to the witnesses that confirmed its last header
 * (none needed when there are no witnesses), or throws.
 */
export async function detectDivergence(trace: readonly LightBlock[], witnesses: readonly LightProvider[], o: DetectOptions): Promise<string[]> {
  if (witnesses.length === 0) return [];
  const target = trace[trace.length - 1];
  const answers = await Promise.all(witnesses.map((w) => witnessBlock(w, target.height, o.chainId, o.maxBlockLagMs)));
  const confirmed: string[] = [];
  const unavailable: string[] = [];
  let conflict: ConflictingHeadersError | undefined;
  for (let i = 0; i < witnesses.length; i++) {
    const a = answers[i];
    const w = witnesses[i];
    if (a.kind === "unavailable") {
      unavailable.push(a.reason);
      continue;
    }
    if (equalBytes(a.block.hash, target.hash)) {
      if (!a.block.validatorSet.samePriorities(target.validatorSet)) throw new ProposerPrioritiesDivergeError(w.label, target.height);
      confirmed.push(w.label);
      continue;
    }
    let problem: string | undefined;
    try {
      await o.verifyWitnessTrace(w, a.block);
    } catch (e) {
      if (!(e instanceof VerificationError)) throw e;
      problem = e.message;
    }
    const err = new ConflictingHeadersError(w.label, target.hash, a.block.hash, target.height, problem);
    if (err.attack) throw err;
    conflict ??= err;
  }
  if (confirmed.length > 0) return confirmed;
  if (conflict) throw conflict;
  throw new WitnessUnavailableError(unavailable, target.height);
}
