/**
 * The app process's query servers, as a Cosmos node serves them: gRPC and the REST gateway over the
 * committed state, with the devnet's extra REST routes (blocks from the engine, the light-client page at
 * /ui) and ABCI query routes (gov, auth, bank, Simulate), and the readiness query on all three surfaces
 * (readiness-routes.ts). The ABCI router answers `abci_query` (the local engine's RPC) or ABCI Query requests
 * (CometBFT's RPC forwards them), with the SDK's proofs for `/store/<name>/key` (docs/spec/interfaces.md §4.1).
 *
 * Every answer reads a committed height — the latest, or an older one still retained
 * (docs/spec/store.md §3) — never the writes of a block being executed or committed.
 */
import type { UpgradeKeeper } from "../../../module/keeper.js";
import type { StoresAtHeight } from "../../../services/height.js";
import { serveQueries, type QueryServers } from "../../../services/serve.js";
import type { CommitMultiStore, VersionView } from "../../../store/rootmulti/store.js";
import { isHostStore } from "../chain/app-hash.js";
import type { ChainState } from "../chain/state.js";
import type { StoreView } from "../shared/branch.js";
import { devnetAbciRoutes } from "./abci-routes.js";
import { devnetRestRoutes, type BlockSource } from "./rest.js";
import { devnetUiRoutes } from "./ui.js";
import { readinessRoutes } from "./readiness-routes.js";
import { StoreQueryError } from "../../../store/errors.js";

export interface NodeQueriesOptions {
  state: ChainState;
  ms: CommitMultiStore;
  /** The keeper over the last commit's upgrade store. */
  queryKeeper: UpgradeKeeper;
  /** Keepers of older retained heights. */
  keeperAt(height: bigint): UpgradeKeeper | undefined;
  blocks: BlockSource;
  rest: string;
  grpc: string;
  namespace?: string;
  /** The RPC URL the light-client page is told (known once the RPC listens). */
  rpcUrl(): string;
  /** Which engine drives the node: the page verifies a CometBFT node's headers, not the local engine's. */
  engine: "local" | "cometbft";
}

/** The chain's stores at a committed height: the app stores, never the node's host stores. */
function chainStores(view: VersionView): StoresAtHeight & StoreView {
  const has = (name: string) => !isHostStore(name) && view.has(name);
  return {
    has,
    store: (name) => {
      if (!has(name)) throw new StoreQueryError(`store ${name} does not exist at height ${view.height}`);
      return view.store(name);
    },
    prove: (name, key) => view.prove(name, key),
  };
}

export function startNodeQueries(o: NodeQueriesOptions): Promise<QueryServers> {
  const { state, ms } = o;
  const ui = devnetUiRoutes({ config: () => ({ chain_id: state.chainId, rpc: o.rpcUrl(), engine: o.engine }) });
  const storesAt = (height: bigint) => {
    const view = ms.at(height);
    return view && chainStores(view);
  };
  const readiness = readinessRoutes({ viewAt: storesAt, planAt: (h) => o.keeperAt(h)?.getUpgradePlan(), height: () => state.height });
  return serveQueries({
    keeper: o.queryKeeper,
    heightProvider: () => state.height,
    keeperAtHeight: o.keeperAt,
    storesAtHeight: storesAt,
    namespace: o.namespace,
    grpc: { address: o.grpc, closeGraceMs: 1000, services: [readiness.grpc] },
    rest: { address: o.rest, closeGraceMs: 1000, routes: [...devnetRestRoutes(o.blocks), ...readiness.rest, ...ui] },
    abciRoutes: { ...devnetAbciRoutes(storesAt, state.gov, state), ...readiness.abci },
  });
}
