/** What the store loader needs of a host's multistore (DurableMultiStore, CommitMultiStore). */
import type { KVStore } from "../core/kv.js";

export interface MultiStore {
  /** Height of the last commit; 0n for a fresh database. */
  readonly lastCommittedHeight: bigint;
  /** The named store, mounting it (the next commit registers it). */
  store(name: string): KVStore;
  /** Whether the store exists as of the last commit. */
  hasCommittedStore(name: string): boolean;
  /** Removes a store and all its data (pending until commit). */
  deleteStore(name: string): void;
  /** Moves a store's data under a new name; the old store is deleted (pending until commit). */
  renameStore(oldName: string, newName: string): void;
}
