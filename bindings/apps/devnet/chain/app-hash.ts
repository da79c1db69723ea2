/**
 * The app hash: what every validator must agree on after each block, and what a light client proves keys
 * against. It is the commit multistore's (docs/spec/store.md §2): the Cosmos SDK's commit-info root over
 * every app store's IAVL root. Host stores (names starting with `_`: block records, the tx index, the
 * node's own bookkeeping) are committed with each block but kept out of it, as is anything about the node
 * (node id, wall clock, listen addresses): only what the blocks did.
 */
import { nodeSha256 } from "../../../store/level-node.js";
import { CommitMultiStore, type CommitMultiStoreOptions } from "../../../store/rootmulti/store.js";
import type { LevelDb } from "../../../store/level.js";

/** Host bookkeeping: `_node` holds the last block's time. */
export const NODE_STORE = "_node";

/** Host stores are the node's, not the chain's: committed, versioned, never in the app hash. */
export const isHostStore = (name: string): boolean => name.startsWith("_");

/** Opens a node's application database as the devnet's commit multistore. */
export function openCommitStore(db: LevelDb, keepRecent?: number): Promise<CommitMultiStore> {
  const options: CommitMultiStoreOptions = { sha256: nodeSha256, isHostStore, keepRecent };
  return CommitMultiStore.open(db, options);
}
