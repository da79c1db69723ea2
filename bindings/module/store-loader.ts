/**
 * Store loaders (docs/spec/keeper.md §8.1): how the host's multistore is loaded at start-up, and how a new
 * binary adds, renames and deletes stores exactly once, at its upgrade height.
 */
import { errors } from "../core/errors.js";
import type { KVStore } from "../core/kv.js";
import { toHeight } from "../store/level.js";
import type { MultiStore } from "../store/types.js";
import type { StoreUpgrades } from "../core/types.js";

export interface LoadResult {
  /** True when the store upgrades were applied. They are pending writes until `ms.commit(upgradeHeight)`. */
  upgraded: boolean;
  /** Each mounted store, by name. */
  stores: Map<string, KVStore>;
}

/** Loads `ms` for the host, mounting the named stores; throws an UpgradeError (kind store-loader) on failure. */
export type StoreLoader = (ms: MultiStore, mounted: readonly string[]) => LoadResult;

/** Plain load of the latest version. */
export const defaultStoreLoader: StoreLoader = (ms, mounted) => load(ms, mounted, undefined);

/**
 * A loader that applies `storeUpgrades` when `upgradeHeight` is the next block (lastCommittedHeight + 1)
 * and there is something to apply; otherwise a plain load. A crash before the upgrade block commits
 * leaves the height unchanged, so the next start applies the upgrades again (they were never written).
 * Invalid upgrades are refused here, when the loader is made.
 */
export function upgradeStoreLoader(upgradeHeight: bigint | number, storeUpgrades: StoreUpgrades): StoreLoader {
  const height = toHeight(upgradeHeight);
  validate(storeUpgrades);
  const { added = [], renamed = [], deleted = [] } = storeUpgrades;
  const hasChanges = added.length > 0 || renamed.length > 0 || deleted.length > 0;
  return (ms, mounted) => load(ms, mounted, hasChanges && height === ms.lastCommittedHeight + 1n ? storeUpgrades : undefined);
}

function validate(upgrades: StoreUpgrades | null | undefined): asserts upgrades is StoreUpgrades {
  if (upgrades == null) throw errors.storeLoader("store upgrades cannot be nil");
  const added = new Set<string>();
  for (const k of upgrades.added ?? []) {
    if (added.has(k)) throw errors.storeLoader(`store upgrade has duplicate key ${k} in added`);
    added.add(k);
  }
  const deleted = new Set<string>();
  for (const k of upgrades.deleted ?? []) {
    if (deleted.has(k)) throw errors.storeLoader(`store upgrade has duplicate key ${k} in deleted`);
    deleted.add(k);
  }
  for (const k of deleted) {
    if (added.has(k)) throw errors.storeLoader(`store upgrade has key ${k} in both added and deleted`);
  }
}

function load(ms: MultiStore, mounted: readonly string[], upgrades: StoreUpgrades | undefined): LoadResult {
  const { added = [], renamed = [], deleted = [] } = upgrades ?? {};
  // Stores that may start at this height without a committed version.
  const fresh = new Set([...added, ...renamed.map((r) => r.newKey)]);
  const last = ms.lastCommittedHeight;
  // Check everything before changing anything, so a failed load leaves the multistore untouched.
  // On a fresh chain (height 0) every store is new, so any store may be mounted.
  if (last > 0n) {
    for (const name of mounted) {
      if (!ms.hasCommittedStore(name) && !fresh.has(name)) {
        throw errors.storeLoader(
          `version of store ${name} mismatch root store's version; expected ${last} got 0; new stores should be added using StoreUpgrades`,
        );
      }
    }
  }
  // Renames before deletes, so a rename is never emptied by a delete of its source.
  for (const { oldKey, newKey } of renamed) ms.renameStore(oldKey, newKey);
  for (const name of deleted) ms.deleteStore(name);
  const stores = new Map<string, KVStore>();
  for (const name of mounted) stores.set(name, ms.store(name));
  return { upgraded: upgrades !== undefined, stores };
}
