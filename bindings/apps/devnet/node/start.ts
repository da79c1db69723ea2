/**
 * `startDevnet`: opens a node home and runs it with one of two engines over the same state machine:
 *
 * - `local` (the default): a single process is the whole chain, blocks on a timer (engine/local);
 * - `cometbft`: the process is the ABCI++ application of a CometBFT child, one validator of a real
 *   network (engine/cometbft; homes from `initTestnet`).
 *
 * It halts as docs/spec/keeper.md §6.1 says (a CometBFT node first stays up for its peers, §6.2) and resolves
 * `done` with the exit code: 20 upgrade needed, 21 binary too early, 22 downgrade, 23 handler failed, 24 info
 * write failed, 25 corrupt store (also when `stop()` ends a CometBFT node's halt); 0 after `stop()`; 1 for
 * anything else. Start-up failures reject (`exitCodeFor(err)` gives their code: a binary
 * started too early is refused with 21 before any block).
 */
import type { Backend } from "../../../core/contract.js";
import { formatGoDuration } from "../../../go/duration.js";
import { parseDurationOption } from "../../../go/option.js";
import { loadApp, type AppDefinition } from "../chain/app.js";
import { findCometbft, type CometbftBinary } from "./engine/cometbft/binary.js";
import { startCometEngine } from "./engine/cometbft/run.js";
import { startLocalEngine } from "./engine/local/run.js";
import { exitCodeFor, DevnetError } from "../shared/errors.js";
import { readDevnetConfig, readGenesis, type DevnetConfig } from "../shared/genesis.js";
import type { DevnetEngine, DevnetHandle } from "./handle.js";
import { fullLogger } from "../shared/logger.js";
import { openNode } from "../chain/open.js";
import { serveSnapshots, type SnapshotServer } from "../rehearse/channel.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";
import { checkDuration } from "./init.js";
import { DEFAULT_KEEP_RECENT } from "../../../store/rootmulti/store.js";
import { RehearsalPins } from "../rehearse/pin.js";
import { standbyGate } from "./standby.js";
import { loadCore } from "../../../core/index.js";

export type { DevnetEngine, DevnetHandle };

export interface StartDevnetOptions {
  home: string;
  /** Path to an app module (file or directory with index.mjs), or a definition object. Default: no app modules, no handlers. */
  app?: string | AppDefinition;
  /** `local` or `cometbft`; default: the home's (devnet.json `engine`), else local. */
  engine?: DevnetEngine;
  /** The CometBFT binary (cometbft engine); default XUPGRADE_COMETBFT, `cometbft` on PATH, or the `npm run peers` cache. */
  cometbft?: string;
  /** The RPC listen address: the devnet's own (local, default from devnet.json, port 0 picks a free one) or CometBFT's (overrides config.toml). */
  rpc?: string;
  /** REST listen address, default from devnet.json (local: 127.0.0.1:1317). */
  rest?: string;
  /** gRPC listen address, default from devnet.json (local: 127.0.0.1:9090). */
  grpc?: string;
  /** `--unsafe-skip-upgrades`: heights whose upgrade is skipped (cleared, not marked done). */
  skipUpgradeHeights?: Iterable<bigint | number>;
  /** Structured logs; default JSON lines on stdout. */
  logger?: Logger;
  /** Overrides devnet.json's block time (Go duration, e.g. "100ms"); local engine only (CometBFT's is timeout_commit). */
  blockTime?: string;
  /** Keeper core, default "wasm". */
  backend?: Backend;
  /** Upgrade query namespace, default "cosmos". */
  namespace?: string;
  /** Minimum interval of the "waiting for upgrade" progress line, default 1000 ms. */
  progressIntervalMs?: number;
  /**
   * Which past heights stay queryable and provable (docs/spec/store.md §3), as simd's `--pruning`:
   * `default` (the last 10,000), `nothing` (all), `everything` (the last 2), `custom` (`pruningKeepRecent`).
   * Default: devnet.json's `pruning`, else `default`.
   */
  pruning?: Pruning;
  /** With `custom`: the heights kept besides the latest (at least 1). Default: devnet.json's `pruning_keep_recent`. */
  pruningKeepRecent?: number;
  /**
   * CometBFT engine: after a halt in FinalizeBlock, the longest the node stays up for its peers (Go duration,
   * default 1m; docs/spec/keeper.md §6.2). It stops earlier when stopped or when every peer holds the decision.
   */
  haltGrace?: string;
  /**
   * Awaited once the node's code, app and configuration are loaded and before its data is opened (a sidecar's
   * prestart, docs/spec/sidecar.md §5.5); rejecting ends the start. Default: the gate of XUPGRADE_STANDBY_FD
   * when it is set (standby.ts), else none; `null`: none.
   */
  standby?: (() => Promise<void>) | null;
}

export type Pruning = "default" | "nothing" | "everything" | "custom";

/** The store's keepRecent for a pruning strategy (simd's names; the devnet's default keeps fewer heights than simd's 362,880). */
function keepRecentOf(pruning: string, keepRecent: number | undefined): number {
  switch (pruning) {
    case "default":
      return DEFAULT_KEEP_RECENT;
    case "nothing":
      return Infinity;
    case "everything":
      return 2;
    case "custom":
      if (keepRecent === undefined || !Number.isSafeInteger(keepRecent) || keepRecent < 1) {
        throw new DevnetError("option", `pruning "custom" needs pruning-keep-recent, an integer of at least 1; got ${keepRecent}`);
      }
      return keepRecent;
    default:
      throw new DevnetError("option", `unknown pruning strategy ${JSON.stringify(pruning)}: use default, nothing, everything or custom`);
  }
}

/** Starts a node from `<home>` (written by initDevnet or initTestnet). Start-up failures reject; use exitCodeFor(err) for their exit code. */
export async function startDevnet(options: StartDevnetOptions): Promise<DevnetHandle> {
  if (!options || typeof options.home !== "string" || options.home === "") throw new TypeError("home must be a non-empty path");
  const { home } = options;
  const logger = fullLogger(options.logger);
  const backend = options.backend ?? "wasm";
  const [genesis, config] = await Promise.all([readGenesis(home), readDevnetConfig(home)]);
  const engine = engineOf(options.engine, config, home);
  let blockTimeNs = 0n;
  let cometbft: CometbftBinary | undefined;
  if (engine === "local") {
    blockTimeNs = checkDuration(options.blockTime ?? config.block_time, "block time");
  } else {
    if (options.blockTime !== undefined)
      throw new DevnetError("option", `the block time of a CometBFT node is its timeout_commit: set it in ${home}/config/config.toml`);
    cometbft = findCometbft(options.cometbft);
  }
  if (options.haltGrace !== undefined && engine === "local")
    throw new DevnetError("option", "the halt grace is for CometBFT nodes: a single-process devnet exits at the halt");
  const haltGraceMs = options.haltGrace === undefined ? undefined : Number(haltGraceNs(options.haltGrace) / 1_000_000n);
  const app = await loadApp(options.app);
  const skip = [...(options.skipUpgradeHeights ?? [])].map((h) => BigInt(h));
  // A sidecar's prestart (standby.ts): everything above is loaded; the home's data is opened only on `go`.
  const standby = options.standby === undefined ? standbyGate() : options.standby;
  if (standby) {
    await loadCore(backend);
    await standby();
  }

  const keepRecent = keepRecentOf(options.pruning ?? config.pruning ?? "default", options.pruningKeepRecent ?? config.pruning_keep_recent);
  const node = await openNode({ home, chainId: genesis.chain_id, app, backend, skipUpgradeHeights: skip, logger, keepRecent });
  const { state } = node;
  logger.info("starting devnet", {
    module: "node",
    engine,
    chain_id: genesis.chain_id,
    app: app.name,
    app_version: state.appVersion,
    height: state.height,
    ...(engine === "local" ? { block_time: formatGoDuration(blockTimeNs) } : { cometbft: cometbft!.version }),
    upgrade_handlers: [...app.upgrades.keys()],
    skip_upgrade_heights: skip,
  });
  const common = {
    home,
    config,
    state,
    ms: node.ms,
    queryKeeper: node.queryKeeper,
    keeperAt: node.keeperAt,
    logger,
    rest: options.rest,
    grpc: options.grpc,
    namespace: options.namespace,
    progressIntervalMs: options.progressIntervalMs,
  };
  let snapshots: SnapshotServer | undefined;
  // docs/spec/rehearse.md §2.3: on a chain that keeps a readiness tally, the state every validator rehearses the scheduled plan on.
  const pins = new RehearsalPins({ db: node.db, logger });
  const pin = () => pins.update(node.queryKeeper.getUpgradePlan(), state.height, state.readinessParams().voteExtensionsEnableHeight > 0n);
  const unsubscribe = state.onCommit(pin);
  try {
    if (state.height > 0n) pin();
    // docs/spec/rehearse.md §2: consistent snapshots of the committed state for `devnet rehearse`, from this process.
    snapshots = await serveSnapshots({ home, db: node.db, logger, pinned: (name, height) => pins.get(name, height) });
    const handle =
      engine === "local"
        ? await startLocalEngine({ ...common, genesis, blockTimeNs, rpc: options.rpc })
        : await startCometEngine({ ...common, cometbft: cometbft!, rpc: options.rpc, haltGraceMs });
    return withSnapshots(handle, snapshots, pins, unsubscribe);
  } catch (e) {
    unsubscribe();
    await snapshots?.close();
    await pins.close();
    await node.ms.close();
    throw e;
  }
}

/** `haltGrace`: a duration of kind margin (0 stops at once after a halt). */
function haltGraceNs(text: string): bigint {
  try {
    return parseDurationOption(text, "margin");
  } catch (e) {
    throw new DevnetError("option", `invalid halt grace "${text}": ${messageOf(e)}`, { cause: e });
  }
}

/** The handle, with the snapshot channel (and the snapshot held for rehearsals) closed before `done` resolves. */
function withSnapshots(handle: DevnetHandle, snapshots: SnapshotServer, pins: RehearsalPins, unsubscribe: () => void): DevnetHandle {
  const done = handle.done.then(async (code) => {
    unsubscribe();
    await snapshots.close().catch(() => undefined);
    await pins.close();
    return code;
  });
  return {
    ...handle,
    done,
    stop: () =>
      handle
        .stop()
        .then(() => done)
        .then(() => undefined),
  };
}

/** The engine to run a home with: the one asked for must be the one the home was made for. */
function engineOf(asked: DevnetEngine | undefined, config: DevnetConfig, home: string): DevnetEngine {
  const made = config.engine ?? "local";
  if (asked !== undefined && asked !== "local" && asked !== "cometbft")
    throw new DevnetError("option", `unknown engine ${JSON.stringify(asked)}: use local or cometbft`);
  if (made !== "local" && made !== "cometbft") throw new DevnetError("home", `${home}/config/devnet.json names an unknown engine ${JSON.stringify(made)}`);
  if (asked !== undefined && asked !== made) {
    throw new DevnetError(
      "home",
      made === "cometbft"
        ? `${home} is a CometBFT node home (devnet init --engine cometbft): start it with --engine cometbft`
        : `${home} is a single-process devnet home: initialise a CometBFT testnet with \`xupgrade devnet init --engine cometbft\` and start one of its node homes`,
    );
  }
  return made;
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
    fullLogger(options.logger).error("the devnet could not start", { module: "node", exit_code: code, err: messageOf(e) });
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
