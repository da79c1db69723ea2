/**
 * The cancellation-window warnings (docs/spec/interfaces.md §10), and the readiness window's
 * (docs/spec/readiness.md §9). They go to stderr and never stop the submission.
 *   T = average block time over the last n = min(19, H - 1) blocks of one `blockchain` page
 *   R = ceil((2·(V + D) + S) / T) blocks; warn when U - H < R.
 *   Readiness: the plan is scheduled after the vote, ceil(V / T) blocks from now, with no validator ready;
 *   warn when U - H - ceil(V / T) < N (a chain that keeps no readiness tally is not warned about).
 */
import type { Params } from "cosmjs-types/cosmos/gov/v1/gov";
import type { Duration } from "cosmjs-types/google/protobuf/duration";
import { formatGoDuration } from "../../../go/duration.js";
import { queryGovParams } from "../query/gov.js";
import { queryCurrentPlan } from "../../../client/upgrade.js";
import { queryReadiness } from "../../../client/readiness.js";
import { type CometRpc, isObject } from "../../../client/rpc.js";
import { parseRfc3339Nanos } from "../../../go/time.js";
import { messageOf } from "../../../base/errors.js";
import { coversAll } from "../../../core/coin.js";
import type { Coin } from "../../../core/types.js";

export const warn = (text: string): void => {
  process.stderr.write(`warning: ${text}\n`);
};

/** Average block time in ns over the last min(19, H-1) blocks. */
export async function averageBlockTime(rpc: CometRpc, H: bigint): Promise<bigint> {
  if (H < 2n) throw new Error(`the chain is at height ${H}; at least 2 blocks are needed to measure the block time`);
  const n = H - 1n < 19n ? H - 1n : 19n;
  const res = await rpc.call("blockchain", { minHeight: (H - n).toString(), maxHeight: H.toString() });
  const times = new Map<string, bigint>();
  if (Array.isArray(res.block_metas)) {
    for (const m of res.block_metas) {
      if (!isObject(m) || !isObject(m.header) || typeof m.header.time !== "string") continue;
      const t = parseRfc3339Nanos(m.header.time);
      if (t !== undefined) times.set(String(m.header.height), t);
    }
  }
  const last = times.get(H.toString());
  const first = times.get((H - n).toString());
  if (last === undefined || first === undefined) throw new Error(`the node returned no block times for heights ${H - n} and ${H}`);
  const T = (last - first) / n;
  if (T <= 0n) throw new Error("the average block time is not positive");
  return T;
}

const durationNs = (d: Duration | undefined): bigint | undefined => (d === undefined ? undefined : d.seconds * 1_000_000_000n + BigInt(d.nanos));
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

interface Window {
  T: bigint;
  V: bigint;
  D: bigint;
  params: Params;
}

async function measure(rpc: CometRpc, H: bigint): Promise<Window> {
  const T = await averageBlockTime(rpc, H);
  let params: Params;
  try {
    params = await queryGovParams(rpc);
  } catch (e) {
    throw new Error(`gov params unavailable: ${messageOf(e)}`, { cause: e });
  }
  const V = durationNs(params.votingPeriod);
  const D = durationNs(params.maxDepositPeriod);
  if (V === undefined || D === undefined) throw new Error("gov params unavailable: voting_period or max_deposit_period missing");
  return { T, V, D, params };
}

/** software-upgrade: can a cancel proposal still pass before height U? */
export async function checkUpgradeWindow(rpc: CometRpc, H: bigint, U: bigint, safetyDelta: bigint): Promise<void> {
  let w: Window;
  try {
    w = await measure(rpc, H);
  } catch (e) {
    warn(`cannot check the cancellation window: ${messageOf(e)}`);
    return;
  }
  const need = 2n * (w.V + w.D) + safetyDelta;
  const R = ceilDiv(need, w.T);
  const away = U - H;
  if (away < R) {
    warn(
      `upgrade at height ${U} is ${away} blocks (~${formatGoDuration(away * w.T)}) away, but cancelling it needs ` +
        `2*(voting_period+deposit_period)+safety_delta = ${formatGoDuration(need)} (~${R} blocks at ${formatGoDuration(w.T)} per block); ` +
        "a cancel proposal could not pass in time",
    );
  }
}

/** cancel-software-upgrade: is there a plan, and would this proposal's voting end before its height? */
export async function checkCancelWindow(rpc: CometRpc, H: bigint, deposit: Coin[]): Promise<void> {
  let plan;
  try {
    plan = await queryCurrentPlan(rpc);
  } catch (e) {
    warn(`cannot check the cancellation window: ${messageOf(e)}`);
    return;
  }
  if (!plan) {
    warn("no upgrade is currently scheduled; this proposal has an effect only if an upgrade proposal passes before its voting period ends");
    return;
  }
  let w: Window;
  try {
    w = await measure(rpc, H);
  } catch (e) {
    warn(`cannot check the cancellation window: ${messageOf(e)}`);
    return;
  }
  const short = !coversAll(deposit, w.params.minDeposit);
  const ends = H + ceilDiv(w.V + (short ? w.D : 0n), w.T);
  if (ends >= plan.height) warn(`the voting period of this proposal ends after upgrade height ${plan.height}; the upgrade would happen first`);
}

/**
 * software-upgrade on a chain that tallies readiness: how many blocks the validators get between the end of
 * the vote and the height to stage and rehearse the binary (their readiness starts at 0 %).
 */
export async function checkReadinessWindow(rpc: CometRpc, H: bigint, U: bigint, warnBlocks: bigint): Promise<void> {
  try {
    if ((await queryReadiness(rpc)).params.voteExtensionsEnableHeight === 0n) return;
  } catch {
    return; // a node without the readiness extension
  }
  let w: Window;
  try {
    w = await measure(rpc, H);
  } catch (e) {
    warn(`cannot check the readiness window: ${messageOf(e)}`);
    return;
  }
  const left = U - H - ceilDiv(w.V, w.T);
  if (left < warnBlocks) {
    warn(
      `upgrade at height ${U} leaves the validators ~${left > 0n ? left : 0n} blocks (~${formatGoDuration((left > 0n ? left : 0n) * w.T)}) after the vote ` +
        `to stage and rehearse the new binary, fewer than ${warnBlocks}: its readiness starts at 0% (xupgrade query upgrade readiness)`,
    );
  }
}
