/**
 * What a client sees of an upgrade halt (docs/spec/keeper.md §6.2, docs/spec/interfaces.md §7.3): a node
 * whose CometBFT stores a block at the plan's height while its app still has the plan scheduled has stopped
 * there, and waits for a binary with the plan's handler. A node applying the upgrade looks the same for the
 * moment it executes that block, so a halt is confirmed by asking again a second later.
 */
import { sleep } from "../base/sleep.js";
import type { CometRpc } from "./rpc.js";
import { haltedForPlan, latestBlockHeight, queryCurrentPlan } from "./upgrade.js";

/**
 * How an xupgrade node refuses a transaction while it is halted for an upgrade (CheckTx): `xupgrade` code 2, the
 * log `chain halted at height <h> for upgrade "<name>": …`. A Go node takes such transactions into a mempool it
 * loses when it restarts; the client recognises both (the other by `haltView`).
 */
export const HALTED_TX = { codespace: "xupgrade", code: 2 } as const;

export const haltedTxLog = (plan: { name: string; height: bigint }): string =>
  `chain halted at height ${plan.height} for upgrade ${JSON.stringify(plan.name)}: transactions are taken again once validators run a binary with the ${JSON.stringify(plan.name)} upgrade handler`;

export const isHaltedTx = (r: { code: number; codespace: string }): boolean => r.code === HALTED_TX.code && r.codespace === HALTED_TX.codespace;

export interface UpgradePlanRef {
  name: string;
  height: bigint;
}

export interface HaltView {
  /** The latest block the node's CometBFT stores. */
  height: bigint;
  /** The plan its app has scheduled, if any. */
  plan?: UpgradePlanRef;
  /** Halted at the plan's height (confirmed when asked with `confirm`). */
  halted: boolean;
}

/** The node's height and scheduled plan, and whether it is halted for that plan. Throws what the RPC throws. */
export async function haltView(rpc: CometRpc, o: { confirm?: boolean; recheckMs?: number } = {}): Promise<HaltView> {
  const [height, plan] = await Promise.all([latestBlockHeight(rpc), queryCurrentPlan(rpc)]);
  const ref = plan && { name: plan.name, height: plan.height };
  if (!ref || !haltedForPlan(ref, height)) return { height, plan: ref, halted: false };
  if (!o.confirm) return { height, plan: ref, halted: true };
  await sleep(o.recheckMs ?? 1000);
  const again = await haltView(rpc);
  return { ...again, halted: again.halted && again.plan?.name === ref.name && again.plan.height === ref.height };
}
