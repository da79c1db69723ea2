/**
 * What the visor asks the node over CometBFT RPC (`DAEMON_RPC_ADDRESS`, docs/spec/sidecar.md §9): its latest height
 * (the gate of manual plans only — keeper-written plans are trusted, D6 #10) and the scheduled plan
 * (`show-upgrade-info`, `prepare-upgrade`). The CLI's JSON-RPC client, its node:http transport (fetch would
 * load undici and compile its WebAssembly parser, ~8 MB, into a process that stays up for months) and its
 * CurrentPlan query (with the message types, loaded when asked) are reused.
 */
import { httpTransport } from "../../../client/http.js";
import { CometRpc, isObject } from "../../../client/rpc.js";

/** The node's latest block height; undefined when it cannot be asked (down, slow, garbage): "not yet". */
export async function nodeHeight(rpcAddress: string, timeoutMs = 2000): Promise<bigint | undefined> {
  try {
    const result = await new CometRpc(rpcAddress, timeoutMs, httpTransport).call("status");
    const sync = result.sync_info;
    if (!isObject(sync)) return undefined;
    const h = sync.latest_block_height;
    return typeof h === "string" && /^[0-9]{1,19}$/.test(h) ? BigInt(h) : undefined;
  } catch {
    return undefined;
  }
}

export interface ChainPlan {
  name: string;
  height: bigint;
  info: string;
}

/** The chain's scheduled plan (undefined: none); throws when the node cannot be asked. */
export async function chainPlan(rpcAddress: string, timeoutMs = 5000): Promise<ChainPlan | undefined> {
  const { queryCurrentPlan } = await import("../../../client/upgrade.js");
  const plan = await queryCurrentPlan(new CometRpc(rpcAddress, timeoutMs, httpTransport));
  if (!plan) return undefined;
  return { name: plan.name, height: plan.height, info: plan.info };
}
