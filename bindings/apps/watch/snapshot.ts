/**
 * What the watch knows of one chain after a poll (docs/spec/watch.md §4): every fact verified — the header it was
 * proven against, the plan (its absence proven too), the proposals in their voting period, the readiness tally —
 * or the failed check that stopped verification; and how the chain's trust began. Browser-safe: the fleet page
 * makes the same snapshots in its static mode.
 */
import type { TrustOrigin } from "../../light/trust-root.js";
import type { EtaBand } from "./eta.js";

export type ChainStatus =
  /** Everything below was verified at `header`. */
  | "verified"
  /** A check failed: the node (or a witness) served something that does not verify. */
  | "failed"
  /** The node, or every witness, did not answer (or not what was asked): nothing was verified this time. */
  | "unreachable"
  /** No trust root: given none, saved none, and first use was not asked for. */
  | "no-root"
  | "starting";

export interface PlanFact {
  name: string;
  height: bigint;
  info: string;
}

export interface ReadinessFact {
  readyPower: bigint;
  totalPower: bigint;
  /** readyPower / totalPower (0 when there is no power). */
  share: number;
  updatedHeight: bigint;
}

export interface VisorFact {
  /** The visor's stage (`running`, `halt`, `switch`, …) and the upgrade `current` points at, as its /metrics say (this machine, not verified). */
  stage?: string;
  current?: string;
  nodeHeight?: number;
  problem?: string;
}

export interface ChainSnapshot {
  name: string;
  chainId?: string;
  /** Local clock, ms. */
  at: number;
  status: ChainStatus;
  failure?: { check: string; height?: bigint; message: string };
  root?: { source: string; confirmed: boolean; origin: TrustOrigin; warning?: string };
  witnesses: { without: boolean; confirmed: string[]; faulty: { witness: string; reason: string }[]; unavailable: { witness: string; reason: string }[] };
  /** The verified header everything is proven against. */
  header?: { height: bigint; hash: string; time: string; ms: number; ageMs: number; appVersion: bigint };
  /** The verified plan; null when its absence is proven; undefined when unknown. */
  plan?: PlanFact | null;
  /** The chain halted at the plan's height (the latest verified header is at it), since the header's time. */
  halted?: { height: bigint; upgrade: string; sinceMs: number };
  proposals: { id: bigint; plan: PlanFact; votingEnd?: string; title: string }[];
  /** The tally of the plan; "none" when the chain keeps no readiness store; undefined when there is no tally (yet) or no plan. */
  readiness?: ReadinessFact | "none";
  /** An upgrade the watch followed, found applied (its Done record proven) with its height. */
  applied?: { name: string; height: bigint };
  protocolVersion?: bigint;
  eta?: EtaBand;
  /** How much history the ETA saw: samples and span. */
  history: { samples: number; spanMs: number; covered: boolean };
  visor?: VisorFact;
}
