/**
 * Cache-wrapped views of the mounted stores (Cosmos' CacheMultiStore): a block runs on one branch of the
 * durable stores, each tx and each proposal execution on a branch of that, and a branch is written to its
 * parent only when what ran on it succeeded.
 */
import { CacheStore } from "../../../store/cache.js";
import type { KVStore } from "../../../core/kv.js";
import { StoreQueryError } from "../../../store/errors.js";

/** Named stores a module reads and writes. */
export interface StoreView {
  store(name: string): KVStore;
  has(name: string): boolean;
}

export class Branch implements StoreView {
  private readonly caches = new Map<string, CacheStore>();

  constructor(private readonly parent: StoreView) {}

  has(name: string): boolean {
    return this.parent.has(name);
  }

  store(name: string): CacheStore {
    let c = this.caches.get(name);
    if (!c) {
      c = new CacheStore(this.parent.store(name));
      this.caches.set(name, c);
    }
    return c;
  }

  /** A branch of this branch. */
  branch(): Branch {
    return new Branch(this);
  }

  /** Flushes every store's buffered writes to the parent. */
  write(): void {
    for (const c of this.caches.values()) c.write();
  }

  discard(): void {
    for (const c of this.caches.values()) c.discard();
  }

  /** Stores with buffered changes, by name. */
  changed(): Map<string, CacheStore> {
    const out = new Map<string, CacheStore>();
    for (const [name, c] of this.caches) if (c.pendingCount > 0) out.set(name, c);
    return out;
  }
}

/** The mounted durable stores as a StoreView (unknown names are refused: the store loader decides what is mounted). */
export class MountedStores implements StoreView {
  constructor(private readonly stores: Map<string, KVStore>) {}
  has(name: string): boolean {
    return this.stores.has(name);
  }
  store(name: string): KVStore {
    const s = this.stores.get(name);
    if (!s) throw new StoreQueryError(`store ${name} is not mounted`);
    return s;
  }
  names(): string[] {
    return [...this.stores.keys()];
  }
}

/** A KVStore forwarding to a target that the host switches (the upgrade keeper's store during a block). */
export class SwitchableStore implements KVStore {
  constructor(public target: KVStore) {}
  get(key: Uint8Array): Uint8Array | undefined {
    return this.target.get(key);
  }
  has(key: Uint8Array): boolean {
    return this.target.has(key);
  }
  set(key: Uint8Array, value: Uint8Array): void {
    this.target.set(key, value);
  }
  delete(key: Uint8Array): void {
    this.target.delete(key);
  }
  iterate(start: Uint8Array, end: Uint8Array | undefined, reverse?: boolean): IterableIterator<[Uint8Array, Uint8Array]> {
    return this.target.iterate(start, end, reverse);
  }

  /** Runs `fn` with the target switched to `store`, restoring the previous target afterwards. */
  async with<T>(store: KVStore, fn: () => T | Promise<T>): Promise<T> {
    const prev = this.target;
    this.target = store;
    try {
      return await fn();
    } finally {
      this.target = prev;
    }
  }

  withSync<T>(store: KVStore, fn: () => T): T {
    const prev = this.target;
    this.target = store;
    try {
      return fn();
    } finally {
      this.target = prev;
    }
  }
}
