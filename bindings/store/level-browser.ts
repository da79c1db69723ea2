/** Browser entry for the durable stores: IndexedDB through browser-level. */
import { BrowserLevel } from "browser-level";
import { DurableMultiStore, DurableStore, type DurableOptions } from "./level.js";

function openDb(name: string): BrowserLevel<Uint8Array, Uint8Array> {
  return new BrowserLevel<Uint8Array, Uint8Array>(name, { keyEncoding: "view", valueEncoding: "view" });
}

/** A single durable store in the IndexedDB database `name` (created if missing). */
export function openBrowserStore(name: string, options?: DurableOptions): Promise<DurableStore> {
  return DurableStore.open(openDb(name), options);
}

/** A durable multistore in the IndexedDB database `name` (created if missing). */
export function openBrowserMultiStore(name: string, options?: DurableOptions): Promise<DurableMultiStore> {
  return DurableMultiStore.open(openDb(name), options);
}
