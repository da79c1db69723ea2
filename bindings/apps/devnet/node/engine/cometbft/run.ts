/**
 * The CometBFT engine: one node of a real network, as operators know a Cosmos node. The process is the
 * ABCI++ application (state machine, REST and gRPC); CometBFT, its child, does consensus, p2p and the
 * RPC. Start-up: the ABCI server on `<home>/abci.sock`, the query servers, then `cometbft start` with
 * `--proxy_app` pointing at that socket; the node serves once CometBFT's RPC answers.
 *
 * Stopping (docs/spec/keeper.md §6.1, §6.2):
 * - the upgrade keeper halts in FinalizeBlock (upgrade-info.json written first for 20): CometBFT's
 *   consensus stops at the block, as a Go chain's does, and the node stays up — CometBFT's p2p carries its
 *   votes and the block to the validators that still need them, its RPC and the app's REST and gRPC
 *   answer — until it is stopped (a sidecar or the operator: SIGINT/SIGTERM), every persistent peer is
 *   known to hold the decision (halt.ts), or the halt grace ends; then CometBFT is SIGTERMed and the node
 *   exits with the halt's code. Nothing of the block is committed, so the next binary gets it again from
 *   CometBFT's handshake replay;
 * - a halt anywhere else (InitChain, Commit, or FinalizeBlock replayed in the handshake): the ABCI server
 *   answers an exception, CometBFT stops itself (it is SIGTERMed after a grace period if it does not), and
 *   the node exits with the halt's code;
 * - `stop()` (SIGINT/SIGTERM): CometBFT is SIGTERMed first, then the servers and the store close: 0;
 * - CometBFT exits on its own, or the ABCI server fails: 1, with CometBFT's last lines in the log.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { AbciConsensusHalt, startAbciServer, type AbciHalt, type AbciServer, type AbciStopped } from "../../../../../abci/index.js";
import { formatGoDuration } from "../../../../../go/duration.js";
import type { UpgradeKeeper } from "../../../../../module/keeper.js";
import type { AbciQueryRouter } from "../../../../../services/abci.js";
import type { QueryServers } from "../../../../../services/serve.js";
import type { CommitMultiStore } from "../../../../../store/rootmulti/store.js";
import type { GatewayBlock } from "../../../chain/blocks.js";
import type { DevnetConfig } from "../../../shared/genesis.js";
import { closeStore, makeHandle, reportProgress, type DevnetHandle } from "../../handle.js";
import { withModule } from "../../../shared/logger.js";
import { startNodeQueries } from "../../queries.js";
import type { BlockSource } from "../../rest.js";
import type { ChainState } from "../../../chain/state.js";
import { CometApp } from "./app.js";
import { ReadinessFileReader, readinessFilePath } from "../../../../../module/readiness/file.js";
import type { CometbftBinary } from "./binary.js";
import { watchDecision } from "./halt.js";
import { mempoolKeeper, PendingTxs, reinjectAfterSwitch } from "./mempool-carry.js";
import { readCometConfig, rpcUrlOf } from "./home.js";
import { spawnCometbft, waitForEarlierCometbft, type CometExit, type CometProcess } from "./process.js";
import { messageOf } from "../../../../../base/errors.js";
import { sleep } from "../../../../../base/sleep.js";
import type { Logger } from "../../../../../base/logger.js";
import { DevnetError } from "../../../shared/errors.js";

export interface CometEngineOptions {
  home: string;
  config: DevnetConfig;
  state: ChainState;
  ms: CommitMultiStore;
  queryKeeper: UpgradeKeeper;
  keeperAt: (height: bigint) => UpgradeKeeper | undefined;
  logger: Required<Logger>;
  cometbft: CometbftBinary;
  /** Overrides CometBFT's RPC listen address (config.toml `[rpc] laddr`). */
  rpc?: string;
  rest?: string;
  grpc?: string;
  namespace?: string;
  progressIntervalMs?: number;
  /** How long the node stays up at most after a consensus halt (default DEFAULT_HALT_GRACE_MS). */
  haltGraceMs?: number;
}

/** How long CometBFT gets to stop by itself after a halt, or after SIGTERM, before it is SIGKILLed. */
const COMET_GRACE_MS = 10_000;

/** After a consensus halt, the longest the node waits for its peers to hold the decision (docs/spec/keeper.md §6.2). */
const DEFAULT_HALT_GRACE_MS = 60_000;

/** Once every peer holds the decision: a moment more, for what CometBFT has queued to them to leave. */
const LINGER_MS = 1000;

/** The ABCI socket: `<home>/abci.sock`, or a loopback TCP port when that path is too long for a unix socket. */
function abciListenAddress(home: string): string {
  const path = join(home, "abci.sock");
  return Buffer.byteLength(path) <= 100 ? `unix://${path}` : "tcp://127.0.0.1:0";
}

export async function startCometEngine(o: CometEngineOptions): Promise<DevnetHandle> {
  const { state, logger, home } = o;
  const comet = await readCometConfig(home);
  const rpcLaddr = o.rpc === undefined ? undefined : o.rpc.includes("://") ? o.rpc : `tcp://${o.rpc}`;
  const rpcUrl = rpcUrlOf(rpcLaddr ?? comet.rpcLaddr);
  if (!existsSync(join(home, "config", "priv_validator_key.json"))) {
    throw new DevnetError("home", `${home} has no config/priv_validator_key.json: not a CometBFT node home (run \`xupgrade devnet init --engine cometbft\`)`);
  }

  let router: AbciQueryRouter | undefined;
  const pending = new PendingTxs();
  const app = new CometApp({
    state,
    queries: () => router,
    logger,
    plan: () => o.queryKeeper.getUpgradePlan(),
    readiness: new ReadinessFileReader(readinessFilePath(home)),
    pending,
    carry: mempoolKeeper(home, state.chainId, logger),
  });
  let server: AbciServer | undefined;
  let queries: QueryServers | undefined;
  let child: CometProcess | undefined;
  const cleanup = async () => {
    await child?.stop(COMET_GRACE_MS);
    await server?.close();
    await queries?.close(1000);
  };
  try {
    server = await startAbciServer({ address: abciListenAddress(home), app, logger: withModule(logger, "abci") });
    queries = await startNodeQueries({
      state,
      ms: o.ms,
      queryKeeper: o.queryKeeper,
      keeperAt: o.keeperAt,
      blocks: cometBlocks(rpcUrl, state),
      rest: o.rest ?? o.config.rest_laddr ?? "127.0.0.1:0",
      grpc: o.grpc ?? o.config.grpc_laddr ?? "127.0.0.1:0",
      namespace: o.namespace,
      rpcUrl: () => rpcUrl,
      engine: "cometbft",
    });
    router = queries.abci;
    await waitForEarlierCometbft(home, logger);
    child = spawnCometbft({ bin: o.cometbft.path, home, proxyApp: server.address, rpcLaddr, logger });
    logger.info("started CometBFT", {
      module: "node",
      pid: child.pid,
      cometbft: o.cometbft.path,
      version: o.cometbft.version,
      proxy_app: server.address,
      rpc: rpcUrl,
    });
    await serving(rpcUrl, child, server, app);
  } catch (e) {
    await cleanup();
    throw e;
  }
  logger.info("serving", {
    module: "node",
    rpc: rpcUrl,
    rest: queries.rest!.url,
    grpc: queries.grpc!.address,
    ui: `${queries.rest!.url}/ui`,
    cometbft_pid: child.pid,
  });
  void reinjectAfterSwitch({ home, state, rpcUrl, logger });
  return supervise(o, { rpcUrl, peers: comet.persistentPeers }, server, queries, child, app);
}

/**
 * Resolves once CometBFT's RPC answers; rejects when CometBFT exits or the ABCI server stops first. A halt
 * of the app (e.g. in the handshake's replay of the halting block, which CometBFT does not survive) is
 * thrown as it is: its exit code stands. A consensus halt CometBFT survives is supervise()'s to handle.
 */
async function serving(rpcUrl: string, child: CometProcess, server: AbciServer, app: CometApp): Promise<void> {
  let failure: Error | undefined;
  void child.exited.then((e) => (failure ??= cometExitError(e, child)));
  void server.stopped.then((s) => (failure ??= stoppedError(s)));
  for (;;) {
    if (app.halted && !(app.halted instanceof AbciConsensusHalt)) {
      await Promise.race([child.exited, sleep(COMET_GRACE_MS)]);
      throw app.halted;
    }
    if (failure) throw app.halted ?? failure;
    try {
      const res = await fetch(`${rpcUrl}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      /* not yet */
    }
    await sleep(150);
  }
}

function stoppedError(s: AbciStopped): Error {
  return new Error(`the ABCI server stopped (${s.reason})${s.error ? `: ${s.error.message}` : ""}`);
}

function cometExitError(e: CometExit, child: CometProcess): Error {
  const how = e.signal ? `signal ${e.signal}` : `exit code ${e.code}`;
  return new Error(`CometBFT exited (${how}); its last lines:\n${child.tail(15).join("\n")}`);
}

type Why = "stop" | { abci: AbciStopped } | { comet: CometExit };

function supervise(
  o: CometEngineOptions,
  node: { rpcUrl: string; peers: string[] },
  server: AbciServer,
  queries: QueryServers,
  child: CometProcess,
  app: CometApp,
): DevnetHandle {
  const { state, logger } = o;
  const { rpcUrl } = node;
  reportProgress(state, o.queryKeeper, logger, o.progressIntervalMs ?? 1000, 1000);
  let requestStop!: () => void;
  const stopRequested = new Promise<"stop">((r) => (requestStop = () => r("stop")));

  const done = (async () => {
    const ended: Promise<Why> = Promise.race([server.stopped.then((s) => ({ abci: s })), child.exited.then((e) => ({ comet: e })), stopRequested]);
    const first = await Promise.race([ended, server.consensusHalt.then((halt) => ({ halt }))]);
    const why = typeof first === "object" && "halt" in first ? await stayUpAfterHalt(o, node, first.halt, ended) : first;
    // After an exception CometBFT stops by itself (it SIGTERMs itself on an ABCI client error).
    const selfStopping = typeof why === "object" && "abci" in why && why.abci.reason === "halt";
    const exit = await (selfStopping ? Promise.race([child.exited, sleep(COMET_GRACE_MS).then(() => child.stop(COMET_GRACE_MS))]) : child.stop(COMET_GRACE_MS));
    // Closing the server lets an app call in flight finish: a stop asked for while the keeper was halting
    // the block (a sidecar reacts to upgrade-info.json at once) still exits with the halt's code.
    await server.close();
    let code: number;
    if (app.halted) code = app.halted.exitCode ?? 1;
    else if (why === "stop") code = 0;
    else if ("comet" in why) {
      code = 1;
      logger.error("CometBFT exited unexpectedly", { module: "node", code: why.comet.code, signal: why.comet.signal, last_lines: child.tail(15) });
    } else {
      code = 1;
      logger.error("the ABCI server stopped", { module: "node", reason: why.abci.reason, err: why.abci.error ? messageOf(why.abci.error) : "" });
    }
    logger.info("CometBFT stopped", { module: "node", code: exit.code, signal: exit.signal });
    await queries.close(1000);
    return closeStore(o.ms, state, logger, code);
  })();

  return makeHandle({
    state,
    engine: "cometbft",
    rpcUrl,
    restUrl: queries.rest!.url,
    grpcAddress: queries.grpc!.address,
    home: o.home,
    done,
    stop() {
      requestStop();
      return done.then(() => undefined);
    },
  });
}

/**
 * The node after a consensus halt at H: up, with CometBFT's p2p and RPC, until it is stopped, every
 * persistent peer holds the decision (plus a moment for what is queued to them), or the halt grace ends.
 * A CometBFT that exits, or an ABCI server that stops, ends the wait too; the exit code stays the halt's.
 */
async function stayUpAfterHalt(o: CometEngineOptions, node: { rpcUrl: string; peers: string[] }, halt: AbciHalt, ended: Promise<Why>): Promise<Why> {
  const { logger } = o;
  const height = o.state.height + 1n;
  const graceMs = o.haltGraceMs ?? DEFAULT_HALT_GRACE_MS;
  logger.info(`halted at height ${height}: CometBFT's consensus stopped there, its p2p and RPC stay up so that every validator gets this node's votes`, {
    module: "node",
    height,
    exit_code: halt.exitCode,
    halt_grace: formatGoDuration(BigInt(graceMs) * 1_000_000n),
    peers: node.peers.length,
  });
  const stopWatching = new AbortController();
  const watch = watchDecision({ rpcUrl: node.rpcUrl, peers: node.peers, height, signal: stopWatching.signal });
  let graceTimer: NodeJS.Timeout | undefined;
  const grace = new Promise<"grace">((r) => (graceTimer = setTimeout(() => r("grace"), graceMs)));
  const peers = watch.done.then(() => sleep(LINGER_MS)).then(() => "peers" as const);
  const why = await Promise.race([ended, grace, peers]);
  clearTimeout(graceTimer);
  stopWatching.abort();
  if (why === "peers") logger.info("every peer holds the decision: stopping", { module: "node", height });
  else if (why === "grace") logger.warn("the halt grace ended: stopping", { module: "node", height, peers_without_decision: watch.missing() });
  else if (why === "stop") logger.info("stop requested while halted", { module: "node", height, peers_without_decision: watch.missing() });
  return why === "peers" || why === "grace" ? "stop" : why;
}

/** Blocks for the REST route, from CometBFT's RPC (`block?height=`). */
function cometBlocks(rpcUrl: string, state: ChainState): BlockSource {
  return {
    height: () => state.height,
    async block(height) {
      try {
        const res = await fetch(`${rpcUrl}/block?height=${height}`, { signal: AbortSignal.timeout(5000) });
        const body = (await res.json()) as {
          result?: {
            block_id: GatewayBlock["block_id"];
            block: { header: GatewayBlock["header"]; data: { txs: string[] | null }; last_commit: GatewayBlock["last_commit"] };
          };
        };
        const r = body.result;
        if (!r) return undefined;
        return { block_id: r.block_id, header: r.block.header, txs: r.block.data.txs ?? [], last_commit: r.block.last_commit };
      } catch {
        return undefined;
      }
    },
  };
}
