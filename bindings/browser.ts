/** The browser entry point: the shared API plus the IndexedDB durable store. There is no upgrade-info.json here. */
import { createKeeperWith, type KeeperOptions, type UpgradeKeeper } from "./module/keeper.js";

export * from "./index.js";
export { openBrowserMultiStore, openBrowserStore } from "./store/level-browser.js";

/** Creates a keeper on the "wasm" core (default) or the "js" core. */
export function createKeeper(options: KeeperOptions = {}): Promise<UpgradeKeeper> {
  return createKeeperWith(options);
}
