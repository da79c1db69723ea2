/**
 * The x/upgrade queries over a node's CometBFT RPC (`abci_query` on `/cosmos.upgrade.v1beta1.Query/<M>`,
 * docs/spec/interfaces.md §4), answered with the cosmjs-types messages. `height` 0 asks for the latest state.
 */
import {
  QueryAppliedPlanRequest,
  QueryAppliedPlanResponse,
  QueryAuthorityRequest,
  QueryAuthorityResponse,
  QueryCurrentPlanRequest,
  QueryCurrentPlanResponse,
  QueryModuleVersionsRequest,
  QueryModuleVersionsResponse,
} from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import type { Plan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import { abciQuery, decodeWith } from "./abci.js";
import { int, obj, type CometRpc } from "./rpc.js";

export const UPGRADE_QUERY = "/cosmos.upgrade.v1beta1.Query/";

/** The scheduled plan, or undefined when none is. */
export async function queryCurrentPlan(rpc: CometRpc, height = 0n): Promise<Plan | undefined> {
  const path = UPGRADE_QUERY + "CurrentPlan";
  const { value } = await abciQuery(rpc, path, QueryCurrentPlanRequest.encode({}).finish(), height);
  return decodeWith(rpc, path, (b) => QueryCurrentPlanResponse.decode(b), value).plan;
}

/** The height at which `name` was applied; 0n when it was not. */
export async function queryAppliedPlan(rpc: CometRpc, name: string, height = 0n): Promise<bigint> {
  const path = UPGRADE_QUERY + "AppliedPlan";
  const { value } = await abciQuery(rpc, path, QueryAppliedPlanRequest.encode({ name }).finish(), height);
  return decodeWith(rpc, path, (b) => QueryAppliedPlanResponse.decode(b), value).height;
}

/** Every module's consensus version in store order, or only `moduleName`'s (the node errs when it has none). */
export async function queryModuleVersions(rpc: CometRpc, moduleName = "", height = 0n): Promise<{ name: string; version: bigint }[]> {
  const path = UPGRADE_QUERY + "ModuleVersions";
  const { value } = await abciQuery(rpc, path, QueryModuleVersionsRequest.encode({ moduleName }).finish(), height);
  return decodeWith(rpc, path, (b) => QueryModuleVersionsResponse.decode(b), value).moduleVersions;
}

/** The account allowed to schedule and cancel upgrades (the gov module account by default). */
export async function queryAuthority(rpc: CometRpc, height = 0n): Promise<string> {
  const path = UPGRADE_QUERY + "Authority";
  const { value } = await abciQuery(rpc, path, QueryAuthorityRequest.encode({}).finish(), height);
  return decodeWith(rpc, path, (b) => QueryAuthorityResponse.decode(b), value).address;
}

/** The latest block height the node's CometBFT stores (`status`). */
export async function latestBlockHeight(rpc: CometRpc): Promise<bigint> {
  const res = await rpc.call("status");
  return int(rpc, "status", obj(rpc, "status", res, "sync_info"), "latest_block_height");
}

/**
 * Whether a node has halted for its scheduled plan (docs/spec/keeper.md §6.2): its CometBFT already stores a
 * block at or past the plan's height while the app's committed state still has the plan scheduled — the app
 * stopped at the upgrade height and waits for a binary with the plan's handler. (A node applying the upgrade
 * looks the same only while it executes that block, when it answers no query: ask twice to be sure.)
 */
export function haltedForPlan(plan: { height: bigint }, latestHeight: bigint): boolean {
  return plan.height > 0n && latestHeight >= plan.height;
}
