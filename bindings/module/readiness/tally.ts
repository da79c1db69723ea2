/**
 * The readiness tally of one plan (docs/spec/readiness.md §4): from each bonded validator's latest
 * attestation, the voting power that is ready — a passing pre-flight and rehearsal of the expected binary —
 * and the power that is not, by reason; and the validators grouped by the app hash their rehearsals reached.
 *
 * Pure and deterministic: the same plan, validators and attestations give the same tally on every node,
 * so the chain can keep it in its state.
 */
import { fromHex, toHex } from "@cosmjs/encoding";
import { compareBytes, equalBytes } from "../../base/bytes.js";
import { checkUrl } from "../plan-info/check.js";
import { parseInfoDocument } from "../plan-info/parse.js";
import { decodeVoteExtension, type ReadinessAttestation } from "./attestation.js";

export type ReadinessStatus = "ready" | "different_binary" | "failed" | "not_rehearsed" | "no_attestation";
export const READINESS_STATUSES: readonly ReadinessStatus[] = ["ready", "different_binary", "failed", "not_rehearsed", "no_attestation"];

export interface ValidatorReadiness {
  /** Consensus address, 20 bytes. */
  address: Uint8Array;
  name: string;
  power: bigint;
  status: ReadinessStatus;
  attestation?: ReadinessAttestation;
  /** The block that first carried this attestation (0 without one). */
  attestedHeight: bigint;
}

export interface AppHashGroup {
  snapshotHeight: bigint;
  appHash: Uint8Array;
  power: bigint;
  validators: Uint8Array[];
}

export type ExpectedBinarySource = "plan_info" | "most_power";

export interface ExpectedBinary {
  platform: string;
  sha256: Uint8Array;
  source: ExpectedBinarySource;
}

export interface ReadinessTally {
  planName: string;
  planHeight: bigint;
  /** The block in which the tally last changed. */
  updatedHeight: bigint;
  totalPower: bigint;
  readyPower: bigint;
  differentBinaryPower: bigint;
  failedPower: bigint;
  notRehearsedPower: bigint;
  noAttestationPower: bigint;
  validators: ValidatorReadiness[];
  appHashGroups: AppHashGroup[];
  expectedBinaries: ExpectedBinary[];
  appHashesDisagree: boolean;
}

export interface TallyPlan {
  name: string;
  height: bigint;
  info: string;
}

export interface TallyValidator {
  address: Uint8Array;
  name: string;
  power: bigint;
}

/** A validator's latest attestation for the plan and the block that first carried it. */
export interface Attested {
  attestation: ReadinessAttestation;
  height: bigint;
}

/** Attestations by consensus address (uppercase hex). */
export type AttestedMap = ReadonlyMap<string, Attested>;

const addressKey = (address: Uint8Array) => toHex(address).toUpperCase();

/** CometBFT's validator order: power, highest first, then address. */
export function byPowerThenAddress(a: { power: bigint; address: Uint8Array }, b: { power: bigint; address: Uint8Array }): number {
  if (a.power !== b.power) return a.power > b.power ? -1 : 1;
  return compareBytes(a.address, b.address);
}

/**
 * The sha256 Plan.Info names for `platform` (its `binaries` entry, else `any`), from the URL's
 * `?checksum=sha256:<hex>`; undefined when the info is not a JSON document, names no such entry, or the
 * entry has no sha256 checksum.
 */
export function plannedSha256(info: string, platform: string): Uint8Array | undefined {
  let binaries: Map<string, string>;
  try {
    binaries = parseInfoDocument(info).binaries;
  } catch {
    return undefined;
  }
  const url = binaries.get(platform) ?? binaries.get("any");
  if (url === undefined) return undefined;
  const checked = checkUrl(url, false);
  if ("problem" in checked || checked.checksum?.algo !== "sha256") return undefined;
  return fromHex(checked.checksum.hex);
}

/** The expected binary of each platform some attestation names. */
export function expectedBinaries(info: string, attested: readonly { power: bigint; attestation: ReadinessAttestation }[]): ExpectedBinary[] {
  const platforms = [...new Set(attested.map((x) => x.attestation.platform))].sort();
  const out: ExpectedBinary[] = [];
  for (const platform of platforms) {
    const planned = plannedSha256(info, platform);
    if (planned) {
      out.push({ platform, sha256: planned, source: "plan_info" });
      continue;
    }
    const power = new Map<string, bigint>();
    for (const { power: p, attestation: a } of attested) {
      if (a.platform !== platform || !a.preflightOk || a.binarySha256.length === 0) continue;
      const k = toHex(a.binarySha256);
      power.set(k, (power.get(k) ?? 0n) + p);
    }
    const best = [...power].sort(([ha, pa], [hb, pb]) => (pa !== pb ? (pa > pb ? -1 : 1) : ha < hb ? -1 : ha > hb ? 1 : 0))[0];
    if (best) out.push({ platform, sha256: fromHex(best[0]), source: "most_power" });
  }
  return out;
}

/** One validator's status (docs/spec/readiness.md §4.1). */
export function statusOf(a: ReadinessAttestation | undefined, expected: readonly ExpectedBinary[]): ReadinessStatus {
  if (a === undefined) return "no_attestation";
  if (!a.preflightOk || a.rehearsal === "failed") return "failed";
  const want = expected.find((e) => e.platform === a.platform);
  if (!want || !equalBytes(want.sha256, a.binarySha256)) return "different_binary";
  if (a.rehearsal === "not_rehearsed") return "not_rehearsed";
  return "ready";
}

export interface TallyInput {
  plan: TallyPlan;
  /** The bonded validators with their voting power. */
  validators: readonly TallyValidator[];
  attested: AttestedMap;
  updatedHeight: bigint;
}

/** The tally (docs/spec/readiness.md §4). Attestations of validators that are not bonded are left out. */
export function tallyReadiness(input: TallyInput): ReadinessTally {
  const { plan } = input;
  const validators = [...input.validators].sort(byPowerThenAddress);
  const withAttestation = validators.flatMap((v) => {
    const x = input.attested.get(addressKey(v.address));
    return x ? [{ v, power: v.power, attestation: x.attestation, height: x.height }] : [];
  });
  const expected = expectedBinaries(plan.info, withAttestation);
  const power: Record<ReadinessStatus, bigint> = { ready: 0n, different_binary: 0n, failed: 0n, not_rehearsed: 0n, no_attestation: 0n };
  let total = 0n;
  const rows: ValidatorReadiness[] = validators.map((v) => {
    const x = input.attested.get(addressKey(v.address));
    const status = statusOf(x?.attestation, expected);
    power[status] += v.power;
    total += v.power;
    return { address: v.address, name: v.name, power: v.power, status, ...(x ? { attestation: x.attestation } : {}), attestedHeight: x?.height ?? 0n };
  });
  const groups = new Map<string, AppHashGroup>();
  for (const { v, attestation: a } of withAttestation) {
    if (a.rehearsal !== "passed") continue;
    const key = `${a.snapshotHeight}/${toHex(a.appHash)}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { snapshotHeight: a.snapshotHeight, appHash: a.appHash, power: 0n, validators: [] }));
    g.power += v.power;
    g.validators.push(v.address);
  }
  const appHashGroups = [...groups.values()].sort((a, b) =>
    a.snapshotHeight !== b.snapshotHeight
      ? a.snapshotHeight < b.snapshotHeight
        ? -1
        : 1
      : a.power !== b.power
        ? a.power > b.power
          ? -1
          : 1
        : compareBytes(a.appHash, b.appHash),
  );
  const heights = appHashGroups.map((g) => g.snapshotHeight);
  return {
    planName: plan.name,
    planHeight: plan.height,
    updatedHeight: input.updatedHeight,
    totalPower: total,
    readyPower: power.ready,
    differentBinaryPower: power.different_binary,
    failedPower: power.failed,
    notRehearsedPower: power.not_rehearsed,
    noAttestationPower: power.no_attestation,
    validators: rows,
    appHashGroups,
    expectedBinaries: expected,
    appHashesDisagree: new Set(heights).size < heights.length,
  };
}

/** One validator's vote of a block, as the readiness module receives it. */
export interface ReadinessVote {
  address: Uint8Array;
  /**
   * The vote extension its signature covers; undefined when the block carries no signed extension for this
   * validator (absent, nil, or pruned by the proposer): nothing is learnt, the last attestation stands.
   */
  extension: Uint8Array | undefined;
}

/**
 * The attestations after a block's votes (docs/spec/readiness.md §4.2): a signed extension attesting the
 * plan replaces the validator's attestation (keeping its first height when it is the same); a signed
 * extension that is empty, or attests another plan, withdraws it; an unsigned vote changes nothing.
 * Extensions that fail the shape check change nothing either (ProcessProposal refuses blocks carrying them).
 */
export function recordVotes(
  previous: AttestedMap,
  votes: readonly ReadinessVote[],
  plan: { name: string; height: bigint },
  height: bigint,
): Map<string, Attested> {
  const next = new Map(previous);
  for (const vote of votes) {
    if (vote.extension === undefined) continue;
    let a: ReadinessAttestation | undefined;
    try {
      a = decodeVoteExtension(vote.extension);
    } catch {
      continue;
    }
    const key = addressKey(vote.address);
    if (a === undefined || a.planName !== plan.name || a.planHeight !== plan.height) {
      next.delete(key);
      continue;
    }
    const before = next.get(key);
    next.set(key, { attestation: a, height: before && sameAttestation(before.attestation, a) ? before.height : height });
  }
  return next;
}

export function sameAttestation(a: ReadinessAttestation, b: ReadinessAttestation): boolean {
  return (
    a.planName === b.planName &&
    a.planHeight === b.planHeight &&
    a.platform === b.platform &&
    equalBytes(a.binarySha256, b.binarySha256) &&
    a.preflightOk === b.preflightOk &&
    a.rehearsal === b.rehearsal &&
    a.rehearsalExitCode === b.rehearsalExitCode &&
    equalBytes(a.appHash, b.appHash) &&
    a.snapshotHeight === b.snapshotHeight &&
    a.binaryVersion === b.binaryVersion
  );
}

/** The attestations a stored tally holds, by address. */
export function attestedOf(tally: ReadinessTally | undefined): Map<string, Attested> {
  const out = new Map<string, Attested>();
  for (const v of tally?.validators ?? []) if (v.attestation) out.set(addressKey(v.address), { attestation: v.attestation, height: v.attestedHeight });
  return out;
}

/** More than two thirds of the power is ready (what the chain needs to resume after the halt). */
export const moreThanTwoThirdsReady = (t: Pick<ReadinessTally, "readyPower" | "totalPower">): boolean =>
  t.totalPower > 0n && t.readyPower * 3n > t.totalPower * 2n;
