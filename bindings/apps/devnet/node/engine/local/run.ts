/**
 * The single-process engine (the default): one process is every validator. A timer produces blocks; the
 * devnet serves its own CometBFT-compatible RPC (node/rpc/) next to REST and gRPC. It halts as
 * docs/spec/keeper.md §6.1 says: on a PreBlock error it stops producing blocks, closes the servers and the
 * store (nothing of the failed block is committed) and resolves `done` with the exit code.
 */
import type { UpgradeKeeper } from "../../../../../module/keeper.js";
import type { QueryServers } from "../../../../../services/serve.js";
import type { CommitMultiStore } from "../../../../../store/rootmulti/store.js";
import type { ValidatorInfo } from "../../../chain/blocks.js";
import { gatewayBlockOf } from "../../../chain/blocks.js";
import { exitCodeFor, DevnetError } from "../../../shared/errors.js";
import { readPrivValidatorKeys, type DevnetConfig, type DevnetGenesis } from "../../../shared/genesis.js";
import { closeStore, makeHandle, reportProgress, type DevnetHandle } from "../../handle.js";
import { consensusKeyFromSeed } from "../../../chain/keys.js";
import { startNodeQueries } from "../../queries.js";
import { startRpcServer, type RpcServerHandle } from "../../rpc/server.js";
import { BlockHaltError, type ChainState } from "../../../chain/state.js";
import { fromHexStrict, hexUpper } from "../../../shared/util.js";
import { LocalChain } from "./chain.js";
import { messageOf } from "../../../../../base/errors.js";
import type { Logger } from "../../../../../base/logger.js";

export interface LocalEngineOptions {
  home: string;
  genesis: DevnetGenesis;
  config: DevnetConfig;
  state: ChainState;
  ms: CommitMultiStore;
  queryKeeper: UpgradeKeeper;
  keeperAt: (height: bigint) => UpgradeKeeper | undefined;
  logger: Required<Logger>;
  blockTimeNs: bigint;
  rpc?: string;
  rest?: string;
  grpc?: string;
  namespace?: string;
  progressIntervalMs?: number;
}

export async function startLocalEngine(o: LocalEngineOptions): Promise<DevnetHandle> {
  const { state, logger } = o;
  const chain = new LocalChain(state, {
    genesis: o.genesis,
    validators: await loadValidators(o.home, o.genesis),
    maxTxsPerBlock: o.config.max_txs_per_block ?? 100,
    logger,
  });
  let rpc: RpcServerHandle | undefined;
  let queries: QueryServers | undefined;
  try {
    // A fresh chain serves only after its first block: cosmjs needs a block hash and an app hash in `status`.
    if (state.height === 0n) await chain.produceBlock();
    queries = await startNodeQueries({
      state,
      ms: o.ms,
      queryKeeper: o.queryKeeper,
      keeperAt: o.keeperAt,
      blocks: { height: () => chain.height, block: (h) => chain.getBlock(h) && gatewayBlockOf(chain.getBlock(h)!) },
      rest: o.rest ?? o.config.rest_laddr ?? "127.0.0.1:1317",
      grpc: o.grpc ?? o.config.grpc_laddr ?? "127.0.0.1:9090",
      namespace: o.namespace,
      rpcUrl: () => rpc?.url ?? "",
      engine: "local",
    });
    rpc = await startRpcServer({
      address: o.rpc ?? o.config.rpc_laddr ?? "127.0.0.1:26657",
      chain,
      abci: queries.abci,
      nodeId: o.config.node_id,
      moniker: o.config.moniker,
      appName: state.app.name,
      appVersionText: state.app.definition.version ?? "",
      logger,
    });
    logger.info("serving", { module: "node", rpc: rpc.url, rest: queries.rest!.url, grpc: queries.grpc!.address, ui: `${queries.rest!.url}/ui` });
  } catch (e) {
    await rpc?.close(0);
    await queries?.close(0);
    if (e instanceof BlockHaltError) logger.error("halting the node", { module: "node", height: e.height, exit_code: e.exitCode, err: e.message });
    throw e;
  }
  return run(chain, o, rpc, queries);
}

async function loadValidators(home: string, genesis: DevnetGenesis): Promise<ValidatorInfo[]> {
  const keys = await readPrivValidatorKeys(home);
  const vals = genesis.app_state.staking.validators.map((v) => {
    const k = keys.find((x) => x.address.toUpperCase() === v.consensus_address.toUpperCase());
    if (!k) throw new DevnetError("home", `validator ${v.name} has no consensus key in priv_validator_keys.json`);
    const key = consensusKeyFromSeed(fromHexStrict(k.seed));
    if (hexUpper(key.address) !== v.consensus_address.toUpperCase()) throw new DevnetError("home", `consensus key of ${v.name} does not match its address`);
    return { name: v.name, account: v.account, key, power: BigInt(v.power), tokens: BigInt(v.tokens), addressHex: hexUpper(key.address) };
  });
  if (vals.length === 0) throw new DevnetError("genesis", "the genesis has no validators");
  return vals;
}

function run(chain: LocalChain, o: LocalEngineOptions, rpc: RpcServerHandle, queries: QueryServers): DevnetHandle {
  const { state, logger } = o;
  const blockMs = Number(o.blockTimeNs / 1_000_000n);
  let stopping = false;
  let wake: (() => void) | undefined;
  reportProgress(state, o.queryKeeper, logger, o.progressIntervalMs ?? 1000, blockMs);

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));

  const loop = (async (): Promise<unknown> => {
    while (!stopping) {
      const started = Date.now();
      try {
        await chain.produceBlock();
      } catch (e) {
        return e;
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
        height: err instanceof BlockHaltError ? err.height : state.height + 1n,
        exit_code: code,
        err: messageOf(err),
      });
    }
    stopping = true;
    await Promise.allSettled([rpc.close(1000), queries.close(1000)]);
    resolveDone(await closeStore(o.ms, state, logger, code));
  });

  return makeHandle({
    state,
    engine: "local",
    rpcUrl: rpc.url,
    restUrl: queries.rest!.url,
    grpcAddress: queries.grpc!.address,
    home: o.home,
    done,
    stop() {
      stopping = true;
      wake?.();
      return done.then(() => undefined);
    },
  });
}
