/**
 * What `startDevnet` hands back, whichever engine runs the node: its addresses, its height, waiting for a
 * height, stopping, and the exit code it stopped with. Also the "waiting for upgrade" progress line both
 * engines log after each commit while a plan is scheduled.
 */
import type { UpgradeKeeper } from "../../../module/keeper.js";
import { formatGoDuration } from "../../../go/duration.js";
import type { CommitMultiStore } from "../../../store/rootmulti/store.js";
import type { ChainState } from "../chain/state.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";

export type DevnetEngine = "local" | "cometbft";

export interface DevnetHandle {
  /** `http://host:port` of the CometBFT RPC: the devnet's own (local engine) or CometBFT's. */
  readonly rpcUrl: string;
  /** `http://host:port` of the REST gateway. */
  readonly restUrl: string;
  /** `host:port` of the gRPC server. */
  readonly grpcAddress: string;
  readonly chainId: string;
  readonly home: string;
  readonly appName: string;
  readonly engine: DevnetEngine;
  /** The last committed block height. */
  height(): bigint;
  /** Resolves once `height` is committed; rejects after `timeoutMs` (default 30 s) or if the node stops first. */
  waitForHeight(height: bigint | number, timeoutMs?: number): Promise<bigint>;
  /** Stops after the block in progress; `done` then resolves with 0 (with the halt's code when it ends a CometBFT node's halt, docs/spec/keeper.md §6.2). */
  stop(): Promise<void>;
  /** The exit code the node stopped with (see start.ts). */
  readonly done: Promise<number>;
}

export interface HandleParts {
  state: ChainState;
  engine: DevnetEngine;
  rpcUrl: string;
  restUrl: string;
  grpcAddress: string;
  home: string;
  done: Promise<number>;
  stop(): Promise<void>;
}

export function makeHandle(p: HandleParts): DevnetHandle {
  const { state, done } = p;
  return {
    rpcUrl: p.rpcUrl,
    restUrl: p.restUrl,
    grpcAddress: p.grpcAddress,
    chainId: state.chainId,
    home: p.home,
    appName: state.app.name,
    engine: p.engine,
    height: () => state.height,
    waitForHeight(height, timeoutMs = 30_000) {
      const target = BigInt(height);
      if (state.height >= target) return Promise.resolve(state.height);
      return new Promise<bigint>((resolve, reject) => {
        let settled = false;
        const finish = (fn: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          off();
          fn();
        };
        const off = state.onCommit((h) => {
          if (h >= target) finish(() => resolve(h));
        });
        const timer = setTimeout(
          () => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for height ${target} (at ${state.height})`))),
          timeoutMs,
        );
        void done.then((code) => finish(() => reject(new Error(`the node stopped (exit code ${code}) at height ${state.height}`))));
      });
    },
    stop: p.stop,
    done,
  };
}

/**
 * Logs `waiting for upgrade "<name>": height h, target t, n blocks left, ETA d` after commits while a plan
 * is scheduled, at most every `intervalMs` (and at once when the plan changes). The ETA uses the wall
 * clock's measure of recent blocks: it is a log line, never state.
 */
export function reportProgress(
  state: ChainState,
  queryKeeper: UpgradeKeeper,
  logger: Required<Logger>,
  intervalMs: number,
  nominalBlockMs: number,
): () => void {
  let lastProgress = 0;
  let lastTarget = "";
  const commitTimes: number[] = [];
  return state.onCommit(() => {
    try {
      commitTimes.push(Date.now());
      if (commitTimes.length > 20) commitTimes.shift();
      const plan = queryKeeper.getUpgradePlan();
      if (!plan || plan.height <= state.height) return;
      const key = `${plan.name}@${plan.height}`;
      const now = Date.now();
      if (key === lastTarget && now - lastProgress < intervalMs) return;
      lastTarget = key;
      lastProgress = now;
      const avgMs = commitTimes.length >= 2 ? (commitTimes[commitTimes.length - 1] - commitTimes[0]) / (commitTimes.length - 1) : nominalBlockMs;
      const left = plan.height - state.height;
      const etaNs = BigInt(Math.round(Number(left) * avgMs)) * 1_000_000n;
      logger.info(`waiting for upgrade "${plan.name}": height ${state.height}, target ${plan.height}, ${left} blocks left, ETA ${formatGoDuration(etaNs)}`, {
        module: "x/upgrade",
        progress: true,
        name: plan.name,
        height: state.height,
        target: plan.height,
        blocks_left: left,
        eta: formatGoDuration(etaNs),
        eta_ms: Math.round(Number(left) * avgMs),
      });
    } catch {
      /* progress is best effort */
    }
  });
}

/**
 * The last step of either engine, once its servers are closed: closes the store (a failure turns exit code 0
 * into 1), logs `stopped`, and returns the exit code.
 */
export async function closeStore(ms: CommitMultiStore, state: ChainState, logger: Required<Logger>, code: number): Promise<number> {
  try {
    await ms.close();
  } catch (e) {
    logger.error("closing the store failed", { module: "store", err: messageOf(e) });
    if (code === 0) code = 1;
  }
  logger.info("stopped", { module: "node", height: state.height, exit_code: code });
  return code;
}
