/** Node entry for the durable stores: LevelDB through classic-level. */
import { ClassicLevel } from "classic-level";
import { DurableMultiStore, DurableStore, type DurableOptions } from "./level.js";

function openDb(path: string): ClassicLevel<Uint8Array, Uint8Array> {
  return new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
}

/** A single durable store in the LevelDB directory `path` (created if missing). */
export function openNodeStore(path: string, options?: DurableOptions): Promise<DurableStore> {
  return DurableStore.open(openDb(path), options);
}

/** A durable multistore in the LevelDB directory `path` (created if missing). */
export function openNodeMultiStore(path: string, options?: DurableOptions): Promise<DurableMultiStore> {
  return DurableMultiStore.open(openDb(path), options);
}
