/** The Node entry point: the shared API plus upgrade-info.json on disk and the classic-level durable store. */
import { createKeeperWith, type KeeperOptions, type UpgradeInfoFile, type UpgradeKeeper } from "./module/keeper.js";
import { readUpgradeInfo, writeUpgradeInfo } from "./module/upgrade-info/index.js";

export * from "./index.js";
export * from "./services/index.js";
export * from "./apps/devnet/index.js";
export { openNodeMultiStore, openNodeStore } from "./store/level-node.js";
export {
  encodeUpgradeInfo,
  parseUpgradeInfo,
  readUpgradeInfo,
  upgradeInfoPath,
  writeUpgradeInfo,
  type ParsedUpgradeInfo,
} from "./module/upgrade-info/index.js";

const infoFile: UpgradeInfoFile = { write: writeUpgradeInfo, read: readUpgradeInfo };

/** Creates a keeper on the "wasm" core (default) or the "js" core, writing upgrade-info.json under homePath. */
export function createKeeper(options: KeeperOptions = {}): Promise<UpgradeKeeper> {
  return createKeeperWith(options, infoFile);
}
