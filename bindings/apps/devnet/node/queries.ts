/**
 * The app process's query servers, as a Cosmos node serves them: gRPC and the REST gateway over the
 * committed state, with the devnet's extra REST routes (blocks from the engine, the light-client page at
 * /ui) and ABCI query routes (gov, auth, bank, Simulate). The ABCI router answers `abci_query` (the local
 * engine's RPC) or ABCI Query requests (CometBFT's RPC forwards them).
 */
import type { UpgradeKeeper } from "../../../module/keeper.js";
import { serveQueries, type QueryServers } from "../../../services/serve.js";
import { devnetAbciRoutes } from "./abci-routes.js";
import type { StoreView } from "../shared/branch.js";
import { devnetRestRoutes, type BlockSource } from "./rest.js";
import type { ChainState } from "../chain/state.js";
import { devnetUiRoutes } from "./ui.js";

export interface NodeQueriesOptions {
  state: ChainState;
  queryKeeper: UpgradeKeeper;
  mounted: StoreView;
  blocks: BlockSource;
  rest: string;
  grpc: string;
  namespace?: string;
  /** The RPC URL the light-client page is told (known once the RPC listens). */
  rpcUrl(): string;
}

export function startNodeQueries(o: NodeQueriesOptions): Promise<QueryServers> {
  const { state } = o;
  const ui = devnetUiRoutes({ config: () => ({ chain_id: state.chainId, rpc: o.rpcUrl() }) });
  return serveQueries({
    keeper: o.queryKeeper,
    heightProvider: () => state.height,
    namespace: o.namespace,
    grpc: { address: o.grpc, closeGraceMs: 1000 },
    rest: { address: o.rest, closeGraceMs: 1000, routes: [...devnetRestRoutes(o.blocks), ...ui] },
    abciRoutes: devnetAbciRoutes(o.mounted, state.gov, state),
  });
}
