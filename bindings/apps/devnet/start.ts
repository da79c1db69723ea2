/**
 * `startDevnet`: opens a devnet home, applies the store loader (docs/spec/keeper.md §8.2), starts the block
 * timer and the RPC / REST / gRPC servers, and halts as docs/spec/keeper.md §6.1 says: on a PreBlock error it
 * stops producing blocks, closes the servers and the store (nothing of the failed block is committed) and
 * resolves `done` with the exit code (20 upgrade needed, 21 binary too early, 22 downgrade, 23 handler
 * failed, 24 info write failed, 25 corrupt store; 0 after `stop()`; 1 for anything else).
 */
import { readFile } from "node:fs/promises";
import { UpgradeError } from "../../core/errors.js";
import type { Backend } from "../../core/contract.js";
import { createKeeperWith, type KeeperOptions, type UpgradeKeeper } from "../../module/keeper.js";
import { readUpgradeInfo, writeUpgradeInfo } from "../../module/upgrade-info/file.js";
import { serveQueries, type QueryServers } from "../../services/serve.js";
import { defaultStoreLoader, upgradeStoreLoader, type LoadResult, type StoreLoader } from "../../module/store-loader.js";
import { openNodeMultiStore } from "../../store/level-node.js";
import type { DurableMultiStore } from "../../store/level.js";
import type { Plan, StoreUpgrades, VersionMap } from "../../core/types.js";
import { devnetAbciRoutes } from "./abci-routes.js";
import { loadApp, type AppDefinition, type AppUpgradeContext, type LoadedApp } from "./app.js";
import type { ValidatorInfo } from "./blocks.js";
import { MountedStores, SwitchableStore } from "./branch.js";
import { BlockHaltError, Chain } from "./chain.js";
import { formatGoDuration, parseGoDuration } from "../../go/duration.js";
import { exitCodeFor } from "./errors.js";
import {
  appDbPath,
  genesisPath,
  readDevnetConfig,
  readGenesis,
  readPrivValidatorKeys,
  type DevnetConfig,
  type DevnetGenesis,
} from "./genesis.js";
import { consensusKeyFromSeed } from "./keys.js";
import { fullLogger, type DevnetLogger } from "./logger.js";
import { devnetRestRoutes } from "./rest.js";
import { startRpcServer, type RpcServerHandle } from "./rpc/server.js";
import { devnetUiRoutes } from "./ui.js";
import { errorMessage, fromHexStrict, hexUpper, sha256 } from "./util.js";

export interface StartDevnetOptions {
  home: string;
  /** Path to an app module (file or directory with index.mjs), or a definition object. Default: no app modules, no handlers. */
  app?: string | AppDefinition;
  /** CometBFT RPC listen address, default from devnet.json (127.0.0.1:26657); port 0 picks a free port. */
  rpc?: string;
  /** REST listen address, default 127.0.0.1:1317. */
  rest?: string;
  /** gRPC listen address, default 127.0.0.1:9090. */
  grpc?: string;
  /** `--unsafe-skip-upgrades`: heights whose upgrade is skipped (cleared, not marked done). */
  skipUpgradeHeights?: Iterable<bigint | number>;
  /** Structured logs; default JSON lines on stdout. */
  logger?: DevnetLogger;
  /** Overrides devnet.json's block time (Go duration, e.g. "100ms"). */
  blockTime?: string;
  /** Keeper core, default "wasm". */
  backend?: Backend;
  /** Upgrade query namespace, default "cosmos". */
  namespace?: string;
  /** Minimum interval of the "waiting for upgrade" progress line, default 1000 ms. */
  progressIntervalMs?: number;
}

export interface DevnetHandle {
  /** `http://host:port` of the CometBFT-compatible RPC. */
  readonly rpcUrl: string;
  /** `http://host:port` of the REST gateway. */
  readonly restUrl: string;
  /** `host:port` of the gRPC server. */
  readonly grpcAddress: string;
  readonly chainId: string;
  readonly home: string;
  readonly appName: string;
  /** The last committed block height. */
  height(): bigint;
  /** Resolves once `height` is committed; rejects after `timeoutMs` (default 30 s) or if the node stops first. */
  waitForHeight(height: bigint | number, timeoutMs?: number): Promise<bigint>;
  /** Stops after the block in progress; `done` then resolves with 0. */
  stop(): Promise<void>;
  /** The exit code the node stopped with (see the module comment). */
  readonly done: Promise<number>;
}

const createKeeper = (options: KeeperOptions) => createKeeperWith(options, { read: readUpgradeInfo, write: writeUpgradeInfo });

/** Starts a devnet from `<home>` (written by initDevnet). Start-up failures reject; use exitCodeFor(err) for their exit code. */
export async function startDevnet(options: StartDevnetOptions): Promise<DevnetHandle> {
  if (!options || typeof options.home !== "string" || options.home === "") throw new TypeError("home must be a non-empty path");
  const { home } = options;
  const logger = fullLogger(options.logger);
  const backend = options.backend ?? "wasm";
  const [genesis, config, genesisBytes] = await Promise.all([readGenesis(home), readDevnetConfig(home), readFile(genesisPath(home))]);
  const validators = await loadValidators(home, genesis);
  const app = await loadApp(options.app);
  const blockTimeNs = parseGoDuration(options.blockTime ?? config.block_time);
  if (blockTimeNs < 1_000_000n) throw new Error(`block time must be at least 1ms, got ${formatGoDuration(blockTimeNs)}`);
  const skip = [...(options.skipUpgradeHeights ?? [])].map((h) => BigInt(h));

  // docs/spec/keeper.md §8.2: the plan the old binary wrote before halting decides whether this binary's store loader fires.
  const infoKeeper = await createKeeper({ homePath: home, backend, skipUpgradeHeights: skip });
  const info = await infoKeeper.readUpgradeInfoFromDisk();
  const ms = await openNodeMultiStore(appDbPath(home));
  let servers: { rpc?: RpcServerHandle; queries?: QueryServers } = {};
  try {
    let loader: StoreLoader = defaultStoreLoader;
    let loaderUpgrades: { height: bigint; name: string; storeUpgrades: StoreUpgrades } | undefined;
    const upgrade = info ? app.upgrades.get(info.name) : undefined;
    if (info && upgrade?.storeUpgrades && !infoKeeper.isSkipHeight(info.height)) {
      loader = upgradeStoreLoader(info.height, upgrade.storeUpgrades);
      loaderUpgrades = { height: info.height, name: info.name, storeUpgrades: upgrade.storeUpgrades };
    }
    let loaded: LoadResult;
    try {
      loaded = loader(ms, app.stores);
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
    let chain: Chain | undefined;
    const keeper = await createKeeper({
      store: upgradeStore,
      homePath: home,
      skipUpgradeHeights: skip,
      logger,
      backend,
      versionSetter: { setProtocolVersion: (v) => chain && (chain.appVersion = v) },
    });
    for (const u of app.upgrades.values()) {
      keeper.setUpgradeHandler(u.name, async (ctx, plan: Plan, fromVM: VersionMap) => {
        try {
          const handler = u.handler ?? ((c: AppUpgradeContext, _p: Plan, vm: VersionMap) => c.runMigrations(vm));
          return await handler(ctx as AppUpgradeContext, plan, fromVM);
        } catch (e) {
          const err = typeof e === "object" && e !== null ? e : new Error(String(e));
          handlerErrors.add(err);
          throw err;
        }
      });
    }
    const queryKeeper = await createKeeper({ store: mounted.store("upgrade"), homePath: home, backend });
    chain = new Chain({
      chainId: genesis.chain_id,
      genesis,
      genesisHash: sha256(genesisBytes),
      app,
      ms,
      stores: mounted,
      keeper,
      upgradeStore,
      validators,
      logger,
      maxTxsPerBlock: config.max_txs_per_block ?? 100,
      handlerErrors,
      loaderUpgrades,
    });
    logger.info("starting devnet", {
      module: "node",
      chain_id: genesis.chain_id,
      app: app.name,
      app_version: chain.appVersion,
      height: chain.height,
      block_time: formatGoDuration(blockTimeNs),
      upgrade_handlers: [...app.upgrades.keys()],
      skip_upgrade_heights: skip,
    });

    // A fresh chain serves only after its first block: cosmjs needs a block hash and an app hash in `status`.
    if (chain.height === 0n) await chain.produceBlock();
    servers = await startServers(options, config, chain, queryKeeper, mounted, app, logger);
    return run(chain, ms, servers, blockTimeNs, queryKeeper, options, logger, home, app);
  } catch (e) {
    await servers.rpc?.close(0);
    await servers.queries?.close(0);
    await ms.close();
    if (e instanceof BlockHaltError) {
      logger.error("halting the node", { module: "node", height: e.height, exit_code: e.exitCode, err: e.message });
      throw e;
    }
    throw e;
  }
}

async function loadValidators(home: string, genesis: DevnetGenesis): Promise<ValidatorInfo[]> {
  const keys = await readPrivValidatorKeys(home);
  const vals = genesis.app_state.staking.validators.map((v) => {
    const k = keys.find((x) => x.address.toUpperCase() === v.consensus_address.toUpperCase());
    if (!k) throw new Error(`validator ${v.name} has no consensus key in priv_validator_keys.json`);
    const key = consensusKeyFromSeed(fromHexStrict(k.seed));
    if (hexUpper(key.address) !== v.consensus_address.toUpperCase()) throw new Error(`consensus key of ${v.name} does not match its address`);
    return { name: v.name, account: v.account, key, power: BigInt(v.power), tokens: BigInt(v.tokens), addressHex: hexUpper(key.address) };
  });
  if (vals.length === 0) throw new Error("the genesis has no validators");
  return vals;
}

/**
 * A binary whose stores do not match the chain's cannot load them (the store-version mismatch). When the
 * reason is that it was started before its upgrade height, or is an old binary on an upgraded chain, say so
 * as the keeper would at the next block: BINARY UPDATED BEFORE TRIGGER! (exit code 21) or wrong app version
 * (22). Otherwise the loader's own error stands (exit code 1).
 */
async function diagnoseLoadFailure(
  e: unknown,
  ms: DurableMultiStore,
  app: LoadedApp,
  skip: bigint[],
  backend: Backend,
  logger: Required<DevnetLogger>,
): Promise<unknown> {
  if (!(e instanceof UpgradeError) || e.kind !== "store-loader" || !ms.hasCommittedStore("upgrade")) {
    logger.error("cannot load the stores", { module: "store", err: errorMessage(e) });
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
  logger.error(errorMessage(found), { module: found === e ? "store" : "x/upgrade" });
  return found;
}

async function startServers(
  options: StartDevnetOptions,
  config: DevnetConfig,
  chain: Chain,
  queryKeeper: UpgradeKeeper,
  mounted: MountedStores,
  app: LoadedApp,
  logger: Required<DevnetLogger>,
): Promise<{ rpc: RpcServerHandle; queries: QueryServers }> {
  let rpcUrl = "";
  const ui = devnetUiRoutes({ config: () => ({ chain_id: chain.chainId, rpc: rpcUrl }) });
  const queries = await serveQueries({
    keeper: queryKeeper,
    heightProvider: () => chain.height,
    namespace: options.namespace,
    grpc: { address: options.grpc ?? config.grpc_laddr ?? "127.0.0.1:9090", closeGraceMs: 1000 },
    rest: { address: options.rest ?? config.rest_laddr ?? "127.0.0.1:1317", closeGraceMs: 1000, routes: [...devnetRestRoutes(chain), ...ui] },
    abciRoutes: devnetAbciRoutes(mounted, chain.gov, chain),
  });
  try {
    const rpc = await startRpcServer({
      address: options.rpc ?? config.rpc_laddr ?? "127.0.0.1:26657",
      chain,
      abci: queries.abci,
      nodeId: config.node_id,
      moniker: config.moniker,
      appName: app.name,
      appVersionText: app.definition.version ?? "",
      logger,
    });
    rpcUrl = rpc.url;
    logger.info("serving", { module: "node", rpc: rpc.url, rest: queries.rest!.url, grpc: queries.grpc!.address, ui: `${queries.rest!.url}/ui` });
    return { rpc, queries };
  } catch (e) {
    await queries.close(0);
    throw e;
  }
}

function run(
  chain: Chain,
  ms: DurableMultiStore,
  servers: { rpc?: RpcServerHandle; queries?: QueryServers },
  blockTimeNs: bigint,
  queryKeeper: UpgradeKeeper,
  options: StartDevnetOptions,
  logger: Required<DevnetLogger>,
  home: string,
  app: LoadedApp,
): DevnetHandle {
  const blockMs = Number(blockTimeNs / 1_000_000n);
  const progressEvery = options.progressIntervalMs ?? 1000;
  let stopping = false;
  let wake: (() => void) | undefined;
  let lastProgress = 0;
  let lastTarget = "";
  const commitTimes: number[] = [];

  const progress = () => {
    commitTimes.push(Date.now());
    if (commitTimes.length > 20) commitTimes.shift();
    const plan = queryKeeper.getUpgradePlan();
    if (!plan || plan.height <= chain.height) return;
    const key = `${plan.name}@${plan.height}`;
    const now = Date.now();
    if (key === lastTarget && now - lastProgress < progressEvery) return;
    lastTarget = key;
    lastProgress = now;
    const avgMs = commitTimes.length >= 2 ? (commitTimes[commitTimes.length - 1] - commitTimes[0]) / (commitTimes.length - 1) : blockMs;
    const left = plan.height - chain.height;
    const etaNs = BigInt(Math.round(Number(left) * avgMs)) * 1_000_000n;
    logger.info(`waiting for upgrade "${plan.name}": height ${chain.height}, target ${plan.height}, ${left} blocks left, ETA ${formatGoDuration(etaNs)}`, {
      module: "x/upgrade",
      progress: true,
      name: plan.name,
      height: chain.height,
      target: plan.height,
      blocks_left: left,
      eta: formatGoDuration(etaNs),
      eta_ms: Math.round(Number(left) * avgMs),
    });
  };

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const waiters = new Set<{ height: bigint; resolve: (h: bigint) => void; reject: (e: Error) => void }>();
  chain.onCommit(() => {
    for (const w of [...waiters]) {
      if (chain.height >= w.height) {
        waiters.delete(w);
        w.resolve(chain.height);
      }
    }
  });

  const loop = (async (): Promise<unknown> => {
    while (!stopping) {
      const started = Date.now();
      try {
        await chain.produceBlock();
      } catch (e) {
        return e;
      }
      try {
        progress();
      } catch {
        /* progress is best effort */
      }
      const wait = blockMs - (Date.now() - started);
      if (wait > 0 && !stopping) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
      wake = undefined;
    }
    return undefined;
  })();

  void loop.then(async (err) => {
    let code = 0;
    if (err !== undefined) {
      code = err instanceof BlockHaltError ? err.exitCode : exitCodeFor(err);
      logger.error("halting the node", {
        module: "node",
        height: err instanceof BlockHaltError ? err.height : chain.height + 1n,
        exit_code: code,
        err: errorMessage(err),
      });
    }
    stopping = true;
    await Promise.allSettled([servers.rpc?.close(1000), servers.queries?.close(1000)]);
    try {
      await ms.close();
    } catch (e) {
      logger.error("closing the store failed", { module: "store", err: errorMessage(e) });
      if (code === 0) code = 1;
    }
    for (const w of waiters) w.reject(new Error(`the node stopped (exit code ${code}) at height ${chain.height}`));
    waiters.clear();
    logger.info("stopped", { module: "node", height: chain.height, exit_code: code });
    resolveDone(code);
  });

  return {
    rpcUrl: servers.rpc!.url,
    restUrl: servers.queries!.rest!.url,
    grpcAddress: servers.queries!.grpc!.address,
    chainId: chain.chainId,
    home,
    appName: app.name,
    height: () => chain.height,
    waitForHeight(height, timeoutMs = 30_000) {
      const target = BigInt(height);
      if (chain.height >= target) return Promise.resolve(chain.height);
      return new Promise<bigint>((resolve, reject) => {
        const w = {
          height: target,
          resolve: (h: bigint) => {
            clearTimeout(timer);
            resolve(h);
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for height ${target} (at ${chain.height})`));
        }, timeoutMs);
        waiters.add(w);
        void done.then((code) => {
          if (waiters.delete(w)) w.reject(new Error(`the node stopped (exit code ${code}) at height ${chain.height}`));
        });
      });
    },
    stop() {
      stopping = true;
      wake?.();
      return done.then(() => undefined);
    },
    done,
  };
}

/**
 * Runs a devnet until it halts or gets SIGINT/SIGTERM, and returns the process exit code (start-up
 * failures included, via exitCodeFor). For a CLI: `process.exitCode = await runDevnet(options)`.
 */
export async function runDevnet(options: StartDevnetOptions & { signals?: boolean }): Promise<number> {
  let handle: DevnetHandle;
  try {
    handle = await startDevnet(options);
  } catch (e) {
    const code = exitCodeFor(e);
    fullLogger(options.logger).error("the devnet could not start", { module: "node", exit_code: code, err: errorMessage(e) });
    return code;
  }
  if (options.signals === false) return handle.done;
  const onSignal = () => void handle.stop();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await handle.done;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
