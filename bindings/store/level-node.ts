/** Node entry for the durable stores: LevelDB through classic-level. */
import crypto from "node:crypto";
import { ClassicLevel } from "classic-level";
import { DurableMultiStore, DurableStore, type DurableOptions } from "./level.js";
import { CommitMultiStore, type CommitMultiStoreOptions } from "./rootmulti/store.js";

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

// One-shot `crypto.hash` (Node ≥ 20.12) spares a Hash object per call.
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: "buffer") => Buffer }).hash;

/** SHA-256 from node:crypto: about twice as fast as a JavaScript one on the short inputs trees hash. */
export function nodeSha256(data: Uint8Array): Uint8Array {
  const d = oneShot ? oneShot("sha256", data, "buffer") : crypto.createHash("sha256").update(data).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.length); // a plain Uint8Array, not a Buffer (whose slice is a view)
}

/** A commit multistore (IAVL trees, an SDK-form app hash, proofs, past versions) in the LevelDB directory `path`. */
export function openNodeCommitMultiStore(path: string, options?: CommitMultiStoreOptions): Promise<CommitMultiStore> {
  return CommitMultiStore.open(openDb(path), { sha256: nodeSha256, ...options });
}
