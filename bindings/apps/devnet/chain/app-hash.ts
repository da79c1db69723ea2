/**
 * The app hash: what every validator must agree on after each block. It chains from the genesis:
 * `sha256(previous app hash ‖ the block's writes to app stores ‖ the StoreUpgrades applied for it)`, the
 * writes in store-name then key order, each length-prefixed. Host stores (names starting with `_`: block
 * records, the tx index, the node's own bookkeeping) never enter it, nor does anything of the node
 * (node id, wall clock, listen addresses): only what the blocks did.
 */
import type { Branch } from "../shared/branch.js";
import type { StoreUpgrades } from "../../../core/types.js";
import { be64, concat, sha256, utf8 } from "../shared/util.js";

/** Host bookkeeping: `_node` holds the app hash after the last committed block, under this key. */
export const NODE_STORE = "_node";
export const APP_HASH_KEY = utf8("app_hash");

/** StoreUpgrades the store loader applied at `height` (they are not branch writes, so they are hashed apart). */
export interface LoaderUpgrades {
  height: bigint;
  name: string;
  storeUpgrades: StoreUpgrades;
}

export function computeAppHash(block: Branch, prev: Uint8Array, height: bigint, loader: LoaderUpgrades | undefined): Uint8Array {
  const parts: Uint8Array[] = [prev];
  const lp = (b: Uint8Array) => concat(be64(BigInt(b.length)), b);
  const changed = [...block.changed()].filter(([n]) => !n.startsWith("_")).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, cache] of changed) {
    parts.push(lp(utf8(name)));
    for (const [k, v] of cache.pending()) parts.push(lp(k), v === undefined ? Uint8Array.of(0) : concat(Uint8Array.of(1), lp(v)));
  }
  if (loader && loader.height === height) parts.push(utf8(JSON.stringify(loader.storeUpgrades)));
  return sha256(...parts);
}
