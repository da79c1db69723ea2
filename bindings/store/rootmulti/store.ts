/**
 * The commit multistore (cosmossdk.io/store `rootmulti`): named stores, each an IAVL tree, committed
 * together at a block height in ONE atomic batch of the level database; the app hash is the SDK's commit
 * info root over (store name → tree root) (commit-info.ts). Past heights stay readable, and provable,
 * for `keepRecent` versions, then are pruned in the commit that passes them (docs/spec/store.md).
 *
 * What stays in memory: each store's working tree changes until commit, a bounded cache of decoded nodes,
 * and the list of retained versions. Everything else is read from the database when needed, synchronously
 * (classic-level's `getSync`), so the keeper's synchronous store interface is served without loading the
 * state at open: a store costs what its reads touch, not what it holds. A commit writes the nodes its
 * changes made, O(changed keys · log n), plus the version's record, and deletes what pruning frees.
 *
 * Host stores (`isHostStore`) are committed and versioned the same way but kept out of the app hash:
 * a node's bookkeeping (block records, a tx index) must not make validators disagree.
 */
import type { AbstractChainedBatch, AbstractChainedBatchWriteOptions } from "abstract-level";
import { CommitmentProof } from "cosmjs-types/cosmos/ics23/v1/proofs";
import type { ProofOp } from "../../core/ics23.js";
import { sha256 as tsSha256 } from "../../core/js/sha256.js";
import { type KVStore } from "../../core/kv.js";
import { NodeCache, NodeDb, type NodeReadStats } from "../iavl/node-db.js";
import { encodedSize, innerChildren, writeNode, type Node, type Sha256 } from "../iavl/node.js";
import { commitmentProof, encodeCommitmentProof } from "../iavl/proof.js";
import { MutableTree, TreeReader, type NodeKey, type SavedVersion } from "../iavl/tree.js";
import type { LevelDb } from "../level.js";
import type { MultiStore } from "../types.js";
import { commitInfoHash, storeProof, type StoreInfo } from "./commit-info.js";
import {
  FORMAT,
  FORMAT_KEY,
  HEIGHT_KEY,
  OLD_LAYOUT_TAGS,
  RECORD_RANGE,
  decodeHeight,
  decodeOrphans,
  decodeRecord,
  encodeHeight,
  encodeOrphans,
  encodeRecord,
  nodeKeySize,
  nodePrefix,
  orphansKey,
  recordKey,
  writeNodeKey,
  versionOfRecordKey,
  type StoreRecord,
} from "./layout.js";
import { compareBytes } from "../../base/bytes.js";
import { CorruptStoreError, StoreFormatError, StoreQueryError, StoreStateError } from "../errors.js";

/** Versions kept when nothing else is said: a devnet's last hours at its usual block times. */
export const DEFAULT_KEEP_RECENT = 10_000;
/** Decoded nodes kept in memory across all stores (about 25 MB at typical key and value sizes). */
export const DEFAULT_NODE_CACHE = 40_000;
/**
 * Bytes of stored inner nodes kept in memory across all stores: every inner node of a store of a million
 * keys (about 130 bytes each with 26-byte keys). The buffer starts at 1 MiB and doubles as it fills.
 */
export const DEFAULT_NODE_CACHE_BYTES = 192 * 2 ** 20;
/** Nodes the warm-up after open asks the database for in one request, and requests it keeps in flight. */
const WARM_BATCH = 1000;
const WARM_IN_FLIGHT = 4;

export interface CommitMultiStoreOptions {
  /** fsync each commit (LevelDB `sync`). Default true. */
  sync?: boolean;
  /**
   * Versions kept besides the latest, for past-height reads and proofs (the SDK's `pruning-keep-recent`):
   * committing version V prunes the versions up to V − 1 − keepRecent. At least 1; Infinity keeps every
   * version (the SDK's `pruning = "nothing"`).
   */
  keepRecent?: number;
  /** Decoded nodes cached across all stores. */
  nodeCacheSize?: number;
  /** Bytes of stored inner nodes cached across all stores (0: none). */
  nodeCacheBytes?: number;
  /**
   * After open, read the inner nodes of every store's latest tree into the node cache's byte buffer in the
   * background, as far as it has room: commits and reads then find their paths in memory, as on a node that
   * has run for a while, instead of reading them from the database one by one. Default false: at a million
   * keys it fills the buffer (192 MiB) and, beside blocks committed back to back, took 20 s and 147 blocks,
   * its reads counted in theirs (bench/README.md, case 11).
   */
  warmNodeCache?: boolean;
  /** SHA-256 to hash with (default the TypeScript core's; the Node entry passes node:crypto's, faster). */
  sha256?: Sha256;
  /** Stores kept out of the app hash (a host's bookkeeping). */
  isHostStore?: (name: string) => boolean;
}

/** The database is not a commit multistore of this format. */
export { StoreFormatError };

export const PROOF_OP_IAVL = "ics23:iavl";
export const PROOF_OP_SIMPLE = "ics23:simple";

export type { ProofOp };

type Batch = AbstractChainedBatch<LevelDb, Uint8Array, Uint8Array>;
const VIEW = { keyEncoding: "view", valueEncoding: "view" } as const;
const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

interface Loaded {
  name: string;
  host: boolean;
  tree: MutableTree;
}

/** A committed version: its stores and the app hash over them. */
interface Version {
  height: number;
  stores: Map<string, StoreRecord>;
  infos: StoreInfo[];
  appHash: Uint8Array;
}

export class CommitMultiStore implements MultiStore {
  private readonly sha: Sha256;
  private readonly cache: NodeCache;
  private readonly keepRecent: number;
  private readonly sync: boolean;
  private readonly isHost: (name: string) => boolean;
  private readonly ndbs = new Map<string, NodeDb>();
  private readonly loaded = new Map<string, Loaded>();
  private readonly mounted = new Set<string>();
  /** Stores deleted since the last commit → whether they were mounted (rollback restores). */
  private readonly deleted = new Map<string, boolean>();
  /** Retained versions, ascending; the last is `latest.height`. */
  private retained: number[] = [];
  private latest: Version;
  private committing = false;
  private closed = false;
  private written = 0;
  private pruned = 0;
  /** Whether the database reads and writes Uint8Arrays without being told (no options needed). */
  private readonly viewByDefault: boolean;
  /** Options of the puts and deletes of a commit's nodes: none when the database's own encodings do. */
  private readonly batchOptions: typeof VIEW | undefined;

  private constructor(
    private readonly db: LevelDb,
    o: CommitMultiStoreOptions,
  ) {
    this.sha = o.sha256 ?? tsSha256;
    this.cache = new NodeCache(o.nodeCacheSize ?? DEFAULT_NODE_CACHE, o.nodeCacheBytes ?? DEFAULT_NODE_CACHE_BYTES);
    this.keepRecent = o.keepRecent ?? DEFAULT_KEEP_RECENT;
    if (this.keepRecent !== Infinity && (!Number.isSafeInteger(this.keepRecent) || this.keepRecent < 1)) {
      throw new TypeError(`keepRecent must be an integer of at least 1, or Infinity (keep every version), got ${o.keepRecent}`);
    }
    this.sync = o.sync ?? true;
    this.isHost = o.isHostStore ?? (() => false);
    this.viewByDefault = db.keyEncoding().format === "view" && db.valueEncoding().format === "view";
    this.batchOptions = this.viewByDefault ? undefined : VIEW;
    this.latest = { height: 0, stores: new Map(), infos: [], appHash: this.sha(EMPTY) };
  }

  /** Opens `db` (a level database with synchronous reads: classic-level) and loads the last version's roots. */
  static async open(db: LevelDb, options: CommitMultiStoreOptions = {}): Promise<CommitMultiStore> {
    const ms = new CommitMultiStore(db, options);
    await db.open();
    try {
      if (!(db.supports as { getSync?: boolean }).getSync) throw new TypeError("a commit multistore needs a database with synchronous reads (classic-level)");
      await ms.load();
    } catch (e) {
      await db.close();
      throw e;
    }
    if (options.warmNodeCache === true) ms.warmed = ms.warm();
    return ms;
  }

  private async load(): Promise<void> {
    const marker = this.db.getSync<Uint8Array, Uint8Array>(FORMAT_KEY, VIEW);
    if (marker === undefined) {
      const first = await this.db.keys({ ...VIEW, limit: 1 }).all();
      if (first.length > 0) {
        const k = first[0] as Uint8Array;
        throw new StoreFormatError(
          OLD_LAYOUT_TAGS.has(k[0]) || (k.length === 1 && k[0] === HEIGHT_KEY[0])
            ? "the database was written by an older xupgrade (a DurableMultiStore: no Merkle commitment, a different app hash); this version cannot use it"
            : "the database is not a commit multistore (it has data but no format marker)",
        );
      }
      return;
    }
    const format = new TextDecoder().decode(marker);
    if (format !== FORMAT) throw new StoreFormatError(`the database has format "${format}"; this version reads "${FORMAT}"`);
    const h = this.db.getSync<Uint8Array, Uint8Array>(HEIGHT_KEY, VIEW);
    if (h === undefined) return;
    const height = decodeHeight(h);
    for (const key of (await this.db.keys({ ...VIEW, ...RECORD_RANGE }).all()) as Uint8Array[]) this.retained.push(versionOfRecordKey(key));
    this.latest = this.readVersion(height) ?? fail(`the record of the last committed height ${height} is missing`);
    if (this.retained.at(-1) !== height)
      throw new CorruptStoreError(`corrupt multistore: last committed height ${height}, last record ${this.retained.at(-1)}`);
    for (const s of this.latest.stores.values()) {
      const ndb = this.ndb(s.name);
      const root = s.root && ndb.get(s.root.version, s.root.nonce, s.hash);
      this.loaded.set(s.name, { name: s.name, host: s.host, tree: new MutableTree(ndb, root, height) });
    }
  }

  // ---- the MultiStore a host and the store loader use ----

  /** Height of the last commit; 0n for a fresh database. */
  get lastCommittedHeight(): bigint {
    return BigInt(this.latest.height);
  }

  /** The app hash of the last commit (sha256 of nothing before the first, as the SDK). */
  get lastAppHash(): Uint8Array {
    return this.latest.appHash;
  }

  /** The named store's working state, mounting it (the next commit registers it). */
  store(name: string): KVStore {
    checkName(name);
    this.mounted.add(name);
    return new TreeStore(this, this.loadedStore(name));
  }

  mountedStores(): string[] {
    return sortNames(this.mounted);
  }

  /** Stores that exist as of the last commit, in byte order. */
  committedStores(): string[] {
    return sortNames(this.latest.stores.keys());
  }

  hasCommittedStore(name: string): boolean {
    return this.latest.stores.has(name);
  }

  /** Whether a key or a store was written or deleted since the last commit. */
  get hasPendingChanges(): boolean {
    return this.deleted.size > 0 || [...this.loaded.values()].some((s) => s.tree.changed);
  }

  /** Removes a store and all its data (pending until commit): it leaves the app hash at that commit. */
  deleteStore(name: string): void {
    this.notCommitting();
    checkName(name);
    this.loadedStore(name).tree.clear();
    if (!this.deleted.has(name)) this.deleted.set(name, this.mounted.has(name));
    this.mounted.delete(name);
  }

  /** Moves a store's data under a new name, which starts a new tree at the next commit; the old store is deleted. */
  renameStore(oldName: string, newName: string): void {
    this.notCommitting();
    checkName(oldName);
    if (oldName === checkName(newName)) throw new TypeError(`cannot rename store ${oldName} to itself`);
    const src = this.loadedStore(oldName).tree;
    this.store(newName);
    const dst = this.loadedStore(newName).tree;
    dst.clear();
    // In key order, as the SDK's store loader moves a store's data.
    for (const [k, v] of src.iterate(EMPTY, undefined)) dst.set(k, v);
    this.deleteStore(oldName);
  }

  /** The stores the next commit makes: registered or mounted, less those deleted and not mounted again. */
  private nextStores(): Loaded[] {
    const names = new Set([...this.latest.stores.keys(), ...this.mounted]);
    for (const [n] of this.deleted) if (!this.mounted.has(n)) names.delete(n);
    return [...names].map((n) => this.loadedStore(n));
  }

  /** The app hash the pending changes will commit to (SDK `WorkingHash`). */
  workingHash(): Uint8Array {
    return commitInfoHash(
      this.sha,
      this.nextStores()
        .filter((s) => !s.host)
        .map((s) => ({ name: s.name, hash: s.tree.workingHash() })),
    );
  }

  /**
   * Commits every store's changes, the store deletions and the new height in one atomic batch, pruning
   * the versions that fall out of `keepRecent`; returns the app hash. A failed write leaves the last
   * committed version in place and drops the pending changes.
   */
  async commit(height: bigint | number): Promise<Uint8Array> {
    if (this.closed) throw new StoreStateError("store is closed");
    this.notCommitting();
    const version = toVersion(height);
    if (version <= this.latest.height) throw new TypeError(`commit height ${version} must be greater than the last committed height ${this.latest.height}`);

    const stores = this.nextStores();
    // A chained batch is one LevelDB write batch like the array form, at a third of its cost per operation: each
    // put hands its bytes over directly, where the array form copies and reads back an object per operation.
    const batch = this.db.batch();
    const saved: [Loaded, SavedVersion, Uint8Array[]][] = [];
    const records: StoreRecord[] = [];
    const gone = [...this.deleted.keys()].filter((n) => !this.mounted.has(n) && this.loaded.has(n));
    const retainedBefore = [...this.retained];
    let written = 0;
    let prunedNodes = 0;
    this.committing = true;
    try {
      const orphans = new Map<string, NodeKey[]>();
      for (const s of stores) {
        const sv = s.tree.save(version);
        saved.push([s, sv, stageNodes(batch, s.name, sv.nodes, this.batchOptions)]);
        written += sv.nodes.length;
        if (sv.orphans.length > 0) orphans.set(s.name, sv.orphans);
        records.push({ name: s.name, host: s.host, root: sv.root && { version: sv.root.version, nonce: sv.root.nonce }, hash: sv.hash });
      }
      for (const n of gone) {
        const sv = this.loadedStore(n).tree.save(version);
        const keys = [...(orphans.get(n) ?? []), ...sv.orphans];
        if (keys.length > 0) orphans.set(n, keys);
        saved.push([this.loadedStore(n), sv, []]);
      }
      records.sort((a, b) => compareBytes(encoder.encode(a.name), encoder.encode(b.name)));
      batch.put(recordKey(version), encodeRecord(records), VIEW);
      if (orphans.size > 0) batch.put(orphansKey(version), encodeOrphans(orphans), VIEW);
      batch.put(HEIGHT_KEY, encodeHeight(version), VIEW);
      if (this.latest.height === 0) batch.put(FORMAT_KEY, encoder.encode(FORMAT), VIEW);

      // Pruning: the versions below the kept window go, but never the last committed one, which readers
      // are shown until this batch is durable (so the orphans of `version` itself are never freed here).
      const pruneTo = this.keepRecent === Infinity ? 0 : Math.min(version - 1 - this.keepRecent, this.latest.height - 1);
      while (this.retained.length > 0 && this.retained[0] <= pruneTo) {
        const p = this.retained.shift()!;
        batch.del(recordKey(p), VIEW);
        // The nodes version p was the last to use are the orphans of the version after it.
        const next = this.retained[0];
        for (const [name, keys] of await this.readOrphans(next)) {
          stageDeletes(batch, name, keys, this.batchOptions);
          prunedNodes += keys.length;
        }
        batch.del(orphansKey(next), VIEW);
      }
      await batch.write({ sync: this.sync } as AbstractChainedBatchWriteOptions);
    } catch (e) {
      await batch.close(); // idempotent: a failed write has closed it already
      this.retained = retainedBefore;
      // Every store's pending changes are dropped, saved or not yet.
      for (const [s, sv] of saved) s.tree.abortSave(sv);
      for (const s of stores) if (!saved.some(([t]) => t === s)) s.tree.rollback();
      this.restoreDeleted();
      throw e;
    } finally {
      this.committing = false;
    }

    for (const [s, sv, stored] of saved) {
      s.tree.commitSaved(sv);
      s.tree.ndb.saved(sv.nodes, stored);
      s.tree.ndb.replaced(sv.orphans);
    }
    this.written += written;
    this.pruned += prunedNodes;
    for (const n of gone) this.loaded.delete(n);
    this.deleted.clear();
    this.retained.push(version);
    this.latest = this.versionFrom(version, records);
    return this.latest.appHash;
  }

  /** Drops every uncommitted change, including store deletes and renames (deleted stores are remounted). */
  rollback(): void {
    this.notCommitting();
    for (const s of this.loaded.values()) s.tree.rollback();
    this.restoreDeleted();
  }

  private restoreDeleted(): void {
    for (const [name, wasMounted] of this.deleted) if (wasMounted) this.mounted.add(name);
    this.deleted.clear();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.warmed;
    await this.db.close();
  }

  /**
   * @internal The warm-up after open (`warmNodeCache`): settles once the inner nodes of every store's latest
   * tree are in the byte cache, the cache has no more room, or the store closed. It never rejects: it only
   * spares reads, and a node it could not read (pruned meanwhile, or damaged) is read again when needed.
   */
  warmed: Promise<void> = Promise.resolve();

  /**
   * Reads each store's latest tree level by level from its root, inner nodes only, `WARM_BATCH` keys per
   * request and `WARM_IN_FLIGHT` requests at a time: LevelDB's threads do the reads, this thread only files
   * the bytes in the cache, a request at a time between its other work.
   */
  private async warm(): Promise<void> {
    let stop = false;
    try {
      for (const record of this.latest.stores.values()) {
        if (record.root === undefined) continue;
        const ndb = this.ndb(record.name);
        const prefix = nodePrefix(record.name);
        const keySize = nodeKeySize(prefix);
        // Node keys as version, nonce pairs.
        let level = [record.root.version, record.root.nonce];
        while (level.length > 0 && !stop) {
          const next: number[] = [];
          let at = 0;
          const fetch = async (): Promise<void> => {
            while (at < level.length && !stop) {
              const pairs = level.slice(at, (at += 2 * WARM_BATCH));
              const keys: { version: number; nonce: number }[] = [];
              const buf = new Uint8Array((pairs.length / 2) * keySize);
              const dbKeys: Uint8Array[] = [];
              for (let j = 0; j < pairs.length; j += 2) {
                keys.push({ version: pairs[j], nonce: pairs[j + 1] });
                dbKeys.push(writeNodeKey(buf, (j / 2) * keySize, prefix, pairs[j], pairs[j + 1]));
              }
              const values = await this.db.getMany<Uint8Array, Uint8Array>(dbKeys, VIEW);
              if (this.closed) stop = true;
              if (stop) return;
              const inner = values.map((v) => (v !== undefined && innerChildren(v, next) ? v : undefined));
              if (!ndb.prefetched(keys, inner)) stop = true;
            }
          };
          await Promise.all(Array.from({ length: WARM_IN_FLIGHT }, fetch));
          level = next;
        }
      }
    } catch {
      // Nothing to do: the nodes not read ahead are read when needed.
    }
  }

  // ---- past versions: reads and proofs ----

  /** The first and last retained heights (0n, 0n before the first commit). */
  retainedHeights(): { earliest: bigint; latest: bigint } {
    return { earliest: BigInt(this.retained[0] ?? 0), latest: BigInt(this.latest.height) };
  }

  /**
   * Store `name` as of the last commit, read-only: every read follows the latest committed version (a
   * query answered at the latest height reads this, never a block's uncommitted writes).
   */
  committedStore(name: string): KVStore {
    checkName(name);
    let cached: { v: Version; tree: TreeReader } | undefined;
    const tree = (): TreeReader => {
      if (cached?.v !== this.latest) {
        const r = this.latest.stores.get(name);
        cached = { v: this.latest, tree: this.reader(name, r) };
      }
      return cached.tree;
    };
    return new ReadOnlyStore(tree, name, () => this.latest.height);
  }

  /** A read-only view of the committed version `height`, or undefined when it is not retained. */
  at(height: bigint | number): VersionView | undefined {
    if (this.closed) throw new StoreStateError("store is closed");
    const h = typeof height === "bigint" ? Number(height) : height;
    if (h === this.latest.height && h > 0) return new VersionView(this, this.latest);
    if (!Number.isSafeInteger(h) || h < (this.retained[0] ?? Infinity) || h > this.latest.height) return undefined;
    const v = this.readVersion(h);
    return v && new VersionView(this, v);
  }

  /** @internal the reader of a store's tree at a version (none: an empty tree). */
  reader(name: string, record: StoreRecord | undefined): TreeReader {
    const ndb = this.ndb(name);
    const root = record?.root;
    return new TreeReader(ndb, root && ndb.get(root.version, root.nonce, record.hash));
  }

  /** Nodes served by the caches and read from the database since open, and written and pruned by commits. */
  get nodeStats(): NodeReadStats & { written: number; pruned: number } {
    return { ...this.cache.stats, written: this.written, pruned: this.pruned };
  }

  /** @internal */
  get hashFn(): Sha256 {
    return this.sha;
  }

  // ---- internals ----

  /** @internal writes are refused while a commit is in flight. */
  assertWritable(): void {
    if (this.committing) throw new StoreStateError("store is committing: wait for commit() before writing");
    if (this.closed) throw new StoreStateError("store is closed");
  }

  private notCommitting(): void {
    if (this.committing) throw new StoreStateError("a commit is in flight: wait for commit() first");
  }

  private ndb(name: string): NodeDb {
    let ndb = this.ndbs.get(name);
    if (!ndb) {
      const prefix = nodePrefix(name);
      // The key is written into one buffer per store (getSync reads it before returning); a database whose
      // own encodings are Uint8Arrays (level-node's) takes abstract-level's fast path, without options.
      const key = new Uint8Array(nodeKeySize(prefix));
      const read = this.viewByDefault
        ? (v: number, n: number) => this.db.getSync(writeNodeKey(key, 0, prefix, v, n)) as Uint8Array | undefined
        : (v: number, n: number) => this.db.getSync<Uint8Array, Uint8Array>(writeNodeKey(key, 0, prefix, v, n), VIEW);
      this.ndbs.set(name, (ndb = new NodeDb(this.sha, read, this.cache, name)));
    }
    return ndb;
  }

  private loadedStore(name: string): Loaded {
    let s = this.loaded.get(name);
    if (!s) {
      // A store new at the next commit: its tree starts at that version (an added store's initial version).
      const tree = new MutableTree(this.ndb(name), undefined, 0, this.latest.height + 1);
      this.loaded.set(name, (s = { name, host: this.isHost(name), tree }));
    }
    return s;
  }

  private readVersion(height: number): Version | undefined {
    const raw = this.db.getSync<Uint8Array, Uint8Array>(recordKey(height), VIEW);
    return raw && this.versionFrom(height, decodeRecord(raw, height));
  }

  private versionFrom(height: number, records: StoreRecord[]): Version {
    const infos = records.filter((r) => !r.host).map((r) => ({ name: r.name, hash: r.hash }));
    return { height, stores: new Map(records.map((r) => [r.name, r])), infos, appHash: commitInfoHash(this.sha, infos) };
  }

  private async readOrphans(version: number): Promise<Map<string, NodeKey[]>> {
    const raw = await this.db.get<Uint8Array, Uint8Array>(orphansKey(version), VIEW);
    return raw ? decodeOrphans(raw, version) : new Map();
  }
}

/** A committed version, read-only: its stores, its app hash, and proofs of keys against it. */
export class VersionView {
  constructor(
    private readonly ms: CommitMultiStore,
    private readonly v: Version,
  ) {}

  get height(): bigint {
    return BigInt(this.v.height);
  }

  /** The app hash of this version (CometBFT puts it in the header of the next block). */
  get appHash(): Uint8Array {
    return this.v.appHash;
  }

  /** The stores in the app hash and their root hashes, by name. */
  get commitInfo(): readonly StoreInfo[] {
    return this.v.infos;
  }

  has(name: string): boolean {
    return this.v.stores.has(name);
  }

  stores(): string[] {
    return sortNames(this.v.stores.keys());
  }

  /** The store as it was at this version; writes are refused. */
  store(name: string): KVStore {
    const tree = this.tree(name);
    return new ReadOnlyStore(
      () => tree,
      name,
      () => this.v.height,
    );
  }

  /** The store's tree at this version (reads by index, its nodes). */
  tree(name: string): TreeReader {
    const r = this.v.stores.get(name);
    if (!r) throw new StoreQueryError(`store ${name} does not exist at height ${this.v.height}`);
    return this.ms.reader(name, r);
  }

  /**
   * The value of `key` in store `name` and its proof as the SDK answers `/store/<name>/key` with prove:
   * an `ics23:iavl` existence or non-existence proof against the store's root, then the `ics23:simple`
   * proof of the store's root against the app hash.
   */
  prove(name: string, key: Uint8Array): { value: Uint8Array | undefined; ops: ProofOp[] } {
    const tree = this.tree(name);
    if (this.v.stores.get(name)!.host) throw new StoreQueryError(`store ${name} is not part of the app hash: it has no proof`);
    const value = tree.get(key);
    const iavl = commitmentProof(tree, key);
    const simple = storeProof(this.ms.hashFn, this.v.infos, name);
    return {
      value,
      ops: [
        { type: PROOF_OP_IAVL, key: key.slice(), data: encodeCommitmentProof(iavl) },
        { type: PROOF_OP_SIMPLE, key: encoder.encode(name), data: CommitmentProof.encode(simple).finish() },
      ],
    };
  }
}

/** A mounted store: the working tree, written through (a commit persists it). */
class TreeStore implements KVStore {
  constructor(
    private readonly ms: CommitMultiStore,
    private readonly s: Loaded,
  ) {}
  get(key: Uint8Array): Uint8Array | undefined {
    return this.s.tree.working.get(key);
  }
  has(key: Uint8Array): boolean {
    return this.s.tree.working.has(key);
  }
  set(key: Uint8Array, value: Uint8Array): void {
    this.ms.assertWritable();
    if (!(value instanceof Uint8Array)) throw new TypeError("value must be a Uint8Array");
    this.s.tree.set(key.slice(), value);
  }
  delete(key: Uint8Array): void {
    this.ms.assertWritable();
    this.s.tree.remove(key);
  }
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse?: boolean): IterableIterator<[Uint8Array, Uint8Array]> {
    return this.s.tree.iterate(start, end, reverse);
  }
}

class ReadOnlyStore implements KVStore {
  constructor(
    private readonly tree: () => TreeReader,
    private readonly name: string,
    private readonly height: () => number,
  ) {}
  get(key: Uint8Array): Uint8Array | undefined {
    return this.tree().get(key);
  }
  has(key: Uint8Array): boolean {
    return this.tree().has(key);
  }
  set(): void {
    throw new TypeError(`store ${this.name} at height ${this.height()} is read-only`);
  }
  delete(): void {
    throw new TypeError(`store ${this.name} at height ${this.height()} is read-only`);
  }
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse?: boolean): IterableIterator<[Uint8Array, Uint8Array]> {
    return this.tree().iterate(start, end, reverse);
  }
}

/**
 * Puts the stored forms of `nodes` of store `name` in `batch` (keys and values in one buffer each); returns the
 * values. `options` only for a database whose own encodings are not Uint8Arrays: abstract-level's chained
 * put or del costs several times more with options (measured: 43 against 8.5 µs a put, encoding included, 18
 * against 1.9 µs a del, in case 11 at 10^5 keys).
 */
function stageNodes(batch: Batch, name: string, nodes: readonly Node[], options: typeof VIEW | undefined): Uint8Array[] {
  const prefix = nodePrefix(name);
  const keySize = nodeKeySize(prefix);
  let total = 0;
  for (const n of nodes) total += encodedSize(n);
  const values = new Uint8Array(total);
  const keys = new Uint8Array(nodes.length * keySize);
  const stored: Uint8Array[] = new Array(nodes.length);
  let pos = 0;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const end = writeNode(values, pos, n);
    stored[i] = values.subarray(pos, end);
    const key = writeNodeKey(keys, i * keySize, prefix, n.version, n.nonce);
    if (options === undefined) batch.put(key, stored[i]);
    else batch.put(key, stored[i], options);
    pos = end;
  }
  return stored;
}

function stageDeletes(batch: Batch, name: string, nodes: readonly NodeKey[], options: typeof VIEW | undefined): void {
  const prefix = nodePrefix(name);
  const keySize = nodeKeySize(prefix);
  const keys = new Uint8Array(nodes.length * keySize);
  for (let i = 0; i < nodes.length; i++) {
    const key = writeNodeKey(keys, i * keySize, prefix, nodes[i].version, nodes[i].nonce);
    if (options === undefined) batch.del(key);
    else batch.del(key, options);
  }
}

function fail(message: string): never {
  throw new CorruptStoreError(`corrupt multistore: ${message}`);
}

function checkName(name: string): string {
  if (typeof name !== "string" || name === "") throw new TypeError("store name must be a non-empty string");
  nodePrefix(name);
  return name;
}

function toVersion(h: bigint | number): number {
  const v = typeof h === "bigint" ? Number(h) : h;
  if (!Number.isSafeInteger(v) || v < 1 || BigInt(v) !== BigInt(h)) throw new TypeError(`height must be an integer in [1, 2^53-1], got ${h}`);
  return v;
}

function sortNames(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => compareBytes(encoder.encode(a), encoder.encode(b)));
}
