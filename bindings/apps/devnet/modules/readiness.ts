/**
 * Upgrade readiness in the devnet's state (docs/spec/readiness.md §4–§6): the tally of the scheduled plan,
 * kept in the `readiness` store (an app store, so it is part of the app hash), updated in PreBlock right
 * after the upgrade keeper from the votes of the previous height that the block carries.
 *
 * Only chains whose genesis enables CometBFT's vote extensions keep a tally (the store's params hold the
 * enable height from InitChain); the single-process engine and older testnets never write the store.
 * Optionally (genesis `readiness.activation_threshold`, off by default), a plan whose ready power is below
 * the threshold when its height comes is not activated: it is cleared, an event and a log line say why, and
 * the chain goes on with the binary it runs.
 */
import type { Plan } from "../../../core/types.js";
import {
  READINESS_STORE,
  allTallies,
  attestedOf,
  readParams,
  readTally,
  recordVotes,
  saveTally,
  tallyReadiness,
  writeParams,
  type QueryReadinessRequest,
  type QueryReadinessResponse,
  type ReadinessParams,
  type ReadinessTally,
  type ReadinessVote,
  type TallyValidator,
} from "../../../module/readiness/index.js";
import type { StoreView } from "../shared/branch.js";
import { DevnetError } from "../shared/errors.js";
import type { ChainEvent } from "../shared/events.js";
import { DEC_ONE, formatDec, parseDec } from "./coins.js";
import { validators } from "./staking.js";

export { READINESS_STORE };

/** The store's params; defaults (everything off) on a chain that has no readiness store. */
export function readinessParams(view: StoreView): ReadinessParams {
  return view.has(READINESS_STORE) ? readParams(view.store(READINESS_STORE)) : { voteExtensionsEnableHeight: 0n, activationThreshold: "" };
}

/** Checks an activation threshold: "" (off) or a decimal in [0, 1]. */
export function checkActivationThreshold(text: string): void {
  if (text === "") return;
  let v: bigint;
  try {
    v = parseDec(text);
  } catch {
    throw new DevnetError("option", `invalid readiness activation threshold ${JSON.stringify(text)}: expected a decimal between 0 and 1, e.g. 0.67`);
  }
  if (v > DEC_ONE) throw new DevnetError("option", `invalid readiness activation threshold ${text}: more than 1`);
}

/** InitChain: the params, written only when something is on (so other chains' state is unchanged). */
export function initReadiness(view: StoreView, p: ReadinessParams): void {
  checkActivationThreshold(p.activationThreshold);
  if (p.voteExtensionsEnableHeight === 0n && p.activationThreshold === "") return;
  if (!view.has(READINESS_STORE)) throw new DevnetError("genesis", "the genesis turns readiness on, but this chain has no readiness store");
  writeParams(view.store(READINESS_STORE), p);
}

/**
 * Whether block `height` must carry the votes of height - 1: CometBFT hands them to PrepareProposal once
 * vote extensions were enabled at the previous height.
 */
export const votesRequired = (p: ReadinessParams, height: bigint): boolean => p.voteExtensionsEnableHeight > 0n && height - 1n >= p.voteExtensionsEnableHeight;

function bonded(view: StoreView): TallyValidator[] {
  return validators(view).map((v) => ({ address: Uint8Array.from(Buffer.from(v.consensus_address, "hex")), name: v.name, power: BigInt(v.power) }));
}

/**
 * PreBlock, after the upgrade keeper: the block's votes (undefined when it carries none) applied to the
 * scheduled plan's attestations, and the tally stored when it changed. Returns the tally, or undefined when
 * this chain keeps none or no plan is scheduled.
 */
export function recordReadiness(
  view: StoreView,
  plan: Plan | undefined,
  votes: readonly ReadinessVote[] | undefined,
  height: bigint,
): ReadinessTally | undefined {
  const params = readinessParams(view);
  if (!plan || params.voteExtensionsEnableHeight === 0n) return undefined;
  const store = view.store(READINESS_STORE);
  const before = attestedOf(readTally(store, plan.name, plan.height));
  const attested = votes === undefined ? before : recordVotes(before, votes, plan, height);
  const tally = tallyReadiness({ plan, validators: bonded(view), attested, updatedHeight: height });
  return saveTally(store, tally, height);
}

export interface GateDecision {
  activate: boolean;
  /** Why the plan is not activated (with `activate: false`). */
  reason?: string;
  events: ChainEvent[];
}

/**
 * The activation gate at the plan's height (off unless the genesis sets a threshold): the stored tally —
 * the votes up to the previous block — must show at least the threshold's share of the power ready.
 */
export function readinessGate(view: StoreView, plan: Plan | undefined, height: bigint): GateDecision {
  const open: GateDecision = { activate: true, events: [] };
  if (!plan || plan.height !== height) return open;
  const { activationThreshold, voteExtensionsEnableHeight } = readinessParams(view);
  // Without vote extensions there is no tally, so there is nothing to gate on.
  if (voteExtensionsEnableHeight === 0n || activationThreshold === "" || parseDec(activationThreshold) === 0n) return open;
  const tally = readTally(view.store(READINESS_STORE), plan.name, plan.height);
  const ready = tally?.readyPower ?? 0n;
  const total = tally?.totalPower ?? bonded(view).reduce((s, v) => s + v.power, 0n);
  const threshold = parseDec(activationThreshold);
  if (total > 0n && ready * DEC_ONE >= threshold * total) return open;
  const share = total > 0n ? formatDec((ready * DEC_ONE) / total) : formatDec(0n);
  const reason = `readiness ${share} of the power (${ready} of ${total}) is below the activation threshold ${activationThreshold}`;
  return {
    activate: false,
    reason,
    events: [
      {
        type: "upgrade_not_activated",
        attributes: [
          ["name", plan.name],
          ["height", plan.height.toString()],
          ["ready_power", ready.toString()],
          ["total_power", total.toString()],
          ["threshold", activationThreshold],
        ],
      },
    ],
  };
}

/**
 * The readiness query on committed state: the scheduled plan's tally (computed from the stored attestations
 * when the plan was scheduled in the last block and has none stored yet), or the named plan's.
 */
export function queryReadiness(view: StoreView, plan: Plan | undefined, req: QueryReadinessRequest): QueryReadinessResponse {
  const params = readinessParams(view);
  if (!view.has(READINESS_STORE)) return { params };
  const store = view.store(READINESS_STORE);
  if (req.name === "") {
    if (!plan) return { params };
    const tally =
      readTally(store, plan.name, plan.height) ??
      (params.voteExtensionsEnableHeight > 0n ? tallyReadiness({ plan, validators: bonded(view), attested: new Map(), updatedHeight: 0n }) : undefined);
    return tally ? { tally, params } : { params };
  }
  if (req.height > 0n) {
    const tally = readTally(store, req.name, req.height);
    return tally ? { tally, params } : { params };
  }
  let latest: ReadinessTally | undefined;
  for (const t of allTallies(store)) if (t.planName === req.name) latest = t;
  return latest ? { tally: latest, params } : { params };
}
