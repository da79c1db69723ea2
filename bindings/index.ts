/** What Node and the browser share. The platform entry points (node.ts, browser.ts) add createKeeper and stores. */
export type { CompletedUpgrade, ModuleVersion, Plan, PlanInput, StoreUpgrades, VersionMap } from "./core/types.js";
export { UpgradeError, errors, haltExitCode, type UpgradeErrorKind } from "./core/errors.js";
export { loadCore, type Backend, type Core, type CoreSession, type PreBlockDecision } from "./core/index.js";
export {
  GOV_AUTHORITY,
  UpgradeKeeper,
  type KeeperOptions,
  type Logger,
  type PreBlockOptions,
  type UpgradeContext,
  type UpgradeHandler,
  type UpgradeInfoFile,
  type VersionSetter,
} from "./module/keeper.js";
export { createMsgServer, type MsgServer } from "./module/msg-server.js";
export {
  MSG_CANCEL_UPGRADE_TYPE_URL,
  MSG_SOFTWARE_UPGRADE_TYPE_URL,
  decodeMsgCancelUpgrade,
  decodeMsgSoftwareUpgrade,
  encodeMsgCancelUpgrade,
  encodeMsgSoftwareUpgrade,
  type MsgCancelUpgrade,
  type MsgSoftwareUpgrade,
} from "./module/msgs.js";
export { planToText } from "./module/plan-text.js";
export { type KVStore, compareBytes, prefixEnd } from "./core/kv.js";
export { MemoryStore } from "./store/memory.js";
export { CacheStore } from "./store/cache.js";
export { DurableMultiStore, DurableStore, type DurableOptions } from "./store/level.js";
export { defaultStoreLoader, upgradeStoreLoader, type LoadResult, type StoreLoader } from "./module/store-loader.js";
