/**
 * Opening a node's state, whichever engine will drive it: the application database with the store loader
 * (docs/spec/keeper.md §8.2), the upgrade keeper with the app's handlers, and the state machine over them.
 * A binary whose stores do not match the chain's is told why in the keeper's words (21 too early, 22
 * downgrade) before any block runs.
 */
import { UpgradeError } from "../../../core/errors.js";
import type { Backend } from "../../../core/contract.js";
import type { Plan, StoreUpgrades, VersionMap } from "../../../core/types.js";
import { MemoryStore } from "../../../store/memory.js";
import { createKeeperWith, UpgradeKeeper, type KeeperOptions } from "../../../module/keeper.js";
import { defaultStoreLoader, upgradeStoreLoader, type LoadResult, type StoreLoader } from "../../../module/store-loader.js";
import { readUpgradeInfo, writeUpgradeInfo } from "../../../module/upgrade-info/file.js";
import { ClassicLevel } from "classic-level";
import type { LevelDb } from "../../../store/level.js";
import { StoreFormatError, type CommitMultiStore } from "../../../store/rootmulti/store.js";
import type { AppUpgradeContext, LoadedApp } from "./app.js";
import { openCommitStore } from "./app-hash.js";
import { MountedStores, SwitchableStore } from "../shared/branch.js";
import { READINESS_STORE } from "../modules/readiness.js";
import { appDbPath } from "../shared/genesis.js";
import { ChainState } from "./state.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";
import { DevnetError } from "../shared/errors.js";

export const createKeeper = (options: KeeperOptions) => createKeeperWith(options, { read: readUpgradeInfo, write: writeUpgradeInfo });

export interface OpenNodeOptions {
  home: string;
  chainId: string;
  app: LoadedApp;
  backend: Backend;
  skipUpgradeHeights: bigint[];
  logger: Required<Logger>;
  /** Versions kept besides the latest (docs/spec/store.md §3); default the store's. */
  keepRecent?: number;
}

/** StoreUpgrades the store loader applied for the next block. */
interface LoaderUpgrades {
  height: bigint;
  name: string;
  storeUpgrades: StoreUpgrades;
}

export interface OpenedNode {
  ms: CommitMultiStore;
  /** The application database under `ms`: the snapshot channel reads its committed state (rehearse/channel.ts). */
  db: LevelDb;
  state: ChainState;
  mounted: MountedStores;
  /** A keeper over the upgrade store of the last commit, for the query services. */
  queryKeeper: UpgradeKeeper;
  /** A keeper over the upgrade store of a retained height; undefined when it is not retained. */
  keeperAt(height: bigint): UpgradeKeeper | undefined;
}

/** Opens `<home>/data/application.db` for `app`; start-up failures reject (the database is closed again). */
export async function openNode(o: OpenNodeOptions): Promise<OpenedNode> {
  const { home, app, backend, logger } = o;
  const skip = o.skipUpgradeHeights;
  // docs/spec/keeper.md §8.2: the plan the old binary wrote before halting decides whether this binary's store loader fires.
  const infoKeeper = await createKeeper({ homePath: home, backend, skipUpgradeHeights: skip });
  const info = await infoKeeper.readUpgradeInfoFromDisk();
  // The database handle is kept (not only the multistore over it) so that the node can serve snapshots of
  // its committed state: LevelDB's lock lets no other process open it while the node runs.
  const db = openAppDb(appDbPath(home));
  let ms: CommitMultiStore;
  try {
    ms = await openCommitStore(db, o.keepRecent);
  } catch (e) {
    if (!(e instanceof StoreFormatError)) throw e;
    throw new DevnetError(
      "home",
      `${appDbPath(home)}: ${e.message}. This node home was made by an xupgrade whose app hash was a hash chain; this one commits to IAVL trees ` +
        "(docs/spec/store.md) and would compute different app hashes. Start a new home (xupgrade devnet init), or run this one with the xupgrade that made it.",
      { cause: e },
    );
  }
  try {
    let loader: StoreLoader = defaultStoreLoader;
    let loaderUpgrades: LoaderUpgrades | undefined;
    const upgrade = info ? app.upgrades.get(info.name) : undefined;
    if (info && upgrade?.storeUpgrades && !infoKeeper.isSkipHeight(info.height)) {
      loader = upgradeStoreLoader(info.height, upgrade.storeUpgrades);
      loaderUpgrades = { height: info.height, name: info.name, storeUpgrades: upgrade.storeUpgrades };
    }
    let loaded: LoadResult;
    try {
      const adding = loaderUpgrades && loaderUpgrades.height === ms.lastCommittedHeight + 1n ? (loaderUpgrades.storeUpgrades.added ?? []) : [];
      loaded = loader(ms, mountable(ms, app.stores, adding));
    } catch (e) {
      throw await diagnoseLoadFailure(e, ms, app, skip, backend, logger);
    }
    if (loaded.upgraded && loaderUpgrades) {
      logger.info(`store loader applied the store upgrades of "${loaderUpgrades.name}" for height ${loaderUpgrades.height}`, {
        module: "store",
        upgrade: loaderUpgrades.name,
        height: loaderUpgrades.height,
        added: loaderUpgrades.storeUpgrades.added ?? [],
        renamed: loaderUpgrades.storeUpgrades.renamed ?? [],
        deleted: loaderUpgrades.storeUpgrades.deleted ?? [],
      });
    } else loaderUpgrades = undefined;

    const mounted = new MountedStores(loaded.stores);
    const upgradeStore = new SwitchableStore(mounted.store("upgrade"));
    const handlerErrors = new WeakSet<object>();
    // The keeper sets the app version on the state, made after it: a slot filled below.
    const made: { state?: ChainState } = {};
    const keeper = await createKeeper({
      store: upgradeStore,
      homePath: home,
      skipUpgradeHeights: skip,
      logger,
      backend,
      versionSetter: { setProtocolVersion: (v) => made.state && (made.state.appVersion = v) },
    });
    for (const u of app.upgrades.values()) {
      keeper.setUpgradeHandler(u.name, async (ctx, plan: Plan, fromVM: VersionMap) => {
        try {
          const handler = u.handler ?? ((c: AppUpgradeContext, _p: Plan, vm: VersionMap) => c.runMigrations(vm));
          return await handler(ctx as AppUpgradeContext, plan, fromVM);
        } catch (e) {
          // The handler's own value is rethrown as it is (an object is marked by identity); anything else is wrapped.
          if (typeof e !== "object" || e === null) {
            const wrapped = new Error(String(e));
            handlerErrors.add(wrapped);
            throw wrapped;
          }
          handlerErrors.add(e);
          throw e as Error;
        }
      });
    }
    const queryKeeper = await createKeeper({ store: ms.committedStore("upgrade"), homePath: home, backend });
    const state = (made.state = new ChainState({
      chainId: o.chainId,
      app,
      ms,
      stores: mounted,
      keeper,
      upgradeStore,
      logger,
      handlerErrors,
    }));
    return { ms, db, state, mounted, queryKeeper, keeperAt: keepersAt(ms, queryKeeper) };
  } catch (e) {
    await ms.close();
    throw e;
  }
}

/** Keepers over the upgrade store of past heights, made on demand (a keeper is cheap once the core is loaded), the last few kept. */
function keepersAt(ms: CommitMultiStore, latest: UpgradeKeeper): (height: bigint) => UpgradeKeeper | undefined {
  const made = new Map<bigint, UpgradeKeeper>();
  return (height) => {
    const view = ms.at(height);
    if (!view) return undefined;
    if (height === ms.lastCommittedHeight) return latest;
    let k = made.get(height);
    if (!k) {
      if (made.size >= 16) made.delete(made.keys().next().value!);
      // A store that did not exist yet at that height reads as empty.
      const store = view.has("upgrade") ? view.store("upgrade") : new MemoryStore();
      made.set(height, (k = new UpgradeKeeper(latest.core, { store, authority: latest.authority })));
    }
    return k;
  };
}

/**
 * The stores to mount: every store of the app, except the readiness store on a chain begun before it existed
 * (it keeps no tally there: docs/spec/readiness.md §5). A new chain mounts it from genesis; an existing one
 * gets it like any new store, through an upgrade's StoreUpgrades.
 */
function mountable(ms: CommitMultiStore, stores: readonly string[], adding: readonly string[]): string[] {
  const old = ms.lastCommittedHeight > 0n && !ms.hasCommittedStore(READINESS_STORE) && !adding.includes(READINESS_STORE);
  return old ? stores.filter((s) => s !== READINESS_STORE) : [...stores];
}

/** The application database (classic-level, keys and values as bytes), as `openNodeMultiStore` opens it. */
export function openAppDb(path: string): LevelDb {
  return new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
}

/**
 * A binary whose stores do not match the chain's cannot load them (the store-version mismatch). When the
 * reason is that it was started before its upgrade height, or is an old binary on an upgraded chain, say so
 * as the keeper would at the next block: BINARY UPDATED BEFORE TRIGGER! (exit code 21) or wrong app version
 * (22). Otherwise the loader's own error stands (exit code 1).
 */
async function diagnoseLoadFailure(
  e: unknown,
  ms: CommitMultiStore,
  app: LoadedApp,
  skip: bigint[],
  backend: Backend,
  logger: Required<Logger>,
): Promise<unknown> {
  if (!(e instanceof UpgradeError) || e.kind !== "store-loader" || !ms.hasCommittedStore("upgrade")) {
    logger.error("cannot load the stores", { module: "store", err: messageOf(e) });
    return e;
  }
  const { stores } = defaultStoreLoader(ms, ["upgrade"]);
  const probe = await createKeeper({ store: stores.get("upgrade")!, backend, skipUpgradeHeights: skip });
  for (const u of app.upgrades.keys()) probe.setUpgradeHandler(u, (_c, _p, vm) => vm);
  let found: unknown = e;
  try {
    await probe.preBlock(ms.lastCommittedHeight + 1n, { appVersion: probe.getProtocolVersion() });
  } catch (err) {
    if (err instanceof UpgradeError && (err.kind === "binary-too-early" || err.kind === "downgrade")) found = err;
  }
  ms.rollback();
  logger.error(messageOf(found), { module: found === e ? "store" : "x/upgrade" });
  return found;
}
