/** What Node and the browser share. The platform entry points (node.ts, browser.ts) add createKeeper and stores. */
export type { CompletedUpgrade, ModuleVersion, Plan, PlanInput, StoreUpgrades, VersionMap } from "./types.js";
export { UpgradeError, errors, haltExitCode, type UpgradeErrorKind } from "./errors.js";
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
} from "./keeper.js";
export { createMsgServer, type MsgServer } from "./msg-server.js";
export {
  MSG_CANCEL_UPGRADE_TYPE_URL,
  MSG_SOFTWARE_UPGRADE_TYPE_URL,
  decodeMsgCancelUpgrade,
  decodeMsgSoftwareUpgrade,
  encodeMsgCancelUpgrade,
  encodeMsgSoftwareUpgrade,
  type MsgCancelUpgrade,
  type MsgSoftwareUpgrade,
} from "./msgs.js";
export { planToText } from "./plan-text.js";
export { type KVStore, compareBytes, prefixEnd } from "./store/kv.js";
export { MemoryStore } from "./store/memory.js";
export { CacheStore } from "./store/cache.js";
export { DurableMultiStore, DurableStore, type DurableOptions } from "./store/level.js";
export { defaultStoreLoader, upgradeStoreLoader, type LoadResult, type StoreLoader } from "./store-loader.js";
