/**
 * The Node entry point: the module library plus upgrade-info.json on disk and the classic-level durable store.
 *
 * @module xupgrade
 */
import { createKeeperWith, type KeeperOptions, type UpgradeInfoFile, type UpgradeKeeper } from "./module/keeper.js";
import { readUpgradeInfo, writeUpgradeInfo } from "./module/upgrade-info/file.js";

export * from "./index.js";
export { openNodeMultiStore, openNodeStore } from "./store/level-node.js";
export { readUpgradeInfo, upgradeInfoPath, writeUpgradeInfo } from "./module/upgrade-info/file.js";

const infoFile: UpgradeInfoFile = { write: writeUpgradeInfo, read: readUpgradeInfo };

/** Creates a keeper on the "wasm" core (default) or the "js" core, writing upgrade-info.json under homePath. */
export function createKeeper(options: KeeperOptions = {}): Promise<UpgradeKeeper> {
  return createKeeperWith(options, infoFile);
}
