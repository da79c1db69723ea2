/**
 * The CometBFT engine: one node of a real network, as operators know a Cosmos node. The process is the
 * ABCI++ application (state machine, REST and gRPC); CometBFT, its child, does consensus, p2p and the
 * RPC. Start-up: the ABCI server on `<home>/abci.sock`, the query servers, then `cometbft start` with
 * `--proxy_app` pointing at that socket; the node serves once CometBFT's RPC answers.
 *
 * Stopping (docs/spec/keeper.md §6.1):
 * - the upgrade keeper halts in FinalizeBlock (upgrade-info.json written first for 20): the ABCI server
 *   answers the exception, CometBFT stops itself (it is SIGTERMed after a grace period if it does not),
 *   and the node exits with the halt's code; nothing of the block is committed, so the next binary gets
 *   it again from CometBFT's handshake replay;
 * - `stop()` (SIGINT/SIGTERM): CometBFT is SIGTERMed first, then the servers and the store close: 0;
 * - CometBFT exits on its own, or the ABCI server fails: 1, with CometBFT's last lines in the log.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startAbciServer, type AbciServer, type AbciStopped } from "../../../../../abci/index.js";
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
import type { CometbftBinary } from "./binary.js";
import { readCometConfig, rpcUrlOf } from "./home.js";
import { spawnCometbft, type CometExit, type CometProcess } from "./process.js";
import { messageOf } from "../../../../../base/errors.js";
import { sleep } from "../../../../../base/sleep.js";
import type { Logger } from "../../../../../base/logger.js";

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
}

/** How long CometBFT gets to stop by itself after a halt, or after SIGTERM, before it is SIGKILLed. */
const COMET_GRACE_MS = 10_000;

/** The ABCI socket: `<home>/abci.sock`, or a loopback TCP port when that path is too long for a unix socket. */
export function abciListenAddress(home: string): string {
  const path = join(home, "abci.sock");
  return Buffer.byteLength(path) <= 100 ? `unix://${path}` : "tcp://127.0.0.1:0";
}

export async function startCometEngine(o: CometEngineOptions): Promise<DevnetHandle> {
  const { state, logger, home } = o;
  const comet = await readCometConfig(home);
  const rpcLaddr = o.rpc === undefined ? undefined : o.rpc.includes("://") ? o.rpc : `tcp://${o.rpc}`;
  const rpcUrl = rpcUrlOf(rpcLaddr ?? comet.rpcLaddr);
  if (!existsSync(join(home, "config", "priv_validator_key.json"))) {
    throw new Error(`${home} has no config/priv_validator_key.json: not a CometBFT node home (run \`xupgrade devnet init --engine cometbft\`)`);
  }

  let router: AbciQueryRouter | undefined;
  const app = new CometApp({ state, queries: () => router, logger });
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
    child = spawnCometbft({ bin: o.cometbft.path, home, proxyApp: server.address, rpcLaddr, logger });
    logger.info("started CometBFT", { module: "node", pid: child.pid, cometbft: o.cometbft.path, version: o.cometbft.version, proxy_app: server.address, rpc: rpcUrl });
    await serving(rpcUrl, child, server, app);
  } catch (e) {
    await cleanup();
    throw e;
  }
  logger.info("serving", { module: "node", rpc: rpcUrl, rest: queries.rest!.url, grpc: queries.grpc!.address, ui: `${queries.rest!.url}/ui`, cometbft_pid: child.pid });
  return supervise(o, rpcUrl, server, queries, child, app);
}

/**
 * Resolves once CometBFT's RPC answers; rejects when CometBFT exits or the ABCI server stops first. A halt
 * of the app (e.g. in the handshake's replay of the halting block) is thrown as it is: its exit code stands.
 */
async function serving(rpcUrl: string, child: CometProcess, server: AbciServer, app: CometApp): Promise<void> {
  let failure: Error | undefined;
  void child.exited.then((e) => (failure ??= cometExitError(e, child)));
  void server.stopped.then((s) => (failure ??= stoppedError(s)));
  for (;;) {
    if (app.halted) {
      await Promise.race([child.exited, sleep(COMET_GRACE_MS)]);
      throw app.halted;
    }
    if (failure) throw failure;
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

function supervise(o: CometEngineOptions, rpcUrl: string, server: AbciServer, queries: QueryServers, child: CometProcess, app: CometApp): DevnetHandle {
  const { state, logger } = o;
  reportProgress(state, o.queryKeeper, logger, o.progressIntervalMs ?? 1000, 1000);
  let requestStop!: () => void;
  const stopRequested = new Promise<"stop">((r) => (requestStop = () => r("stop")));

  const done = (async () => {
    const why = await Promise.race([server.stopped.then((s) => ({ abci: s })), child.exited.then((e) => ({ comet: e })), stopRequested]);
    // After a halt CometBFT stops by itself (it SIGTERMs itself when the app answers an exception).
    const exit = await (app.halted ? Promise.race([child.exited, sleep(COMET_GRACE_MS).then(() => child.stop(COMET_GRACE_MS))]) : child.stop(COMET_GRACE_MS));
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

/** Blocks for the REST route, from CometBFT's RPC (`block?height=`). */
function cometBlocks(rpcUrl: string, state: ChainState): BlockSource {
  return {
    height: () => state.height,
    async block(height) {
      try {
        const res = await fetch(`${rpcUrl}/block?height=${height}`, { signal: AbortSignal.timeout(5000) });
        const body = (await res.json()) as { result?: { block_id: GatewayBlock["block_id"]; block: { header: GatewayBlock["header"]; data: { txs: string[] | null }; last_commit: GatewayBlock["last_commit"] } } };
        const r = body.result;
        if (!r) return undefined;
        return { block_id: r.block_id, header: r.block.header, txs: r.block.data.txs ?? [], last_commit: r.block.last_commit };
      } catch {
        return undefined;
      }
    },
  };
}
