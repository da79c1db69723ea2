/**
 * The upgrade Query service, transport-neutral: each method reads the keeper of the resolved height in one
 * synchronous step, so an answer is always a whole state before or after a change (docs/spec/interfaces.md §2).
 */
import { UpgradeError } from "../core/errors.js";
import type { UpgradeKeeper } from "../module/keeper.js";
import { encodeResponse, type QueryRequests, type QueryResponses } from "./codec.js";
import { HeightResolver, type HeightProvider, type KeeperAtHeight, type StoresAt } from "./height.js";
import { DEFAULT_NAMESPACE, serviceNames, type QueryMethod, type ServiceNames } from "./names.js";
import { reportToStderr, type InternalErrorReporter } from "./internal.js";
import { handlerError } from "./status.js";

type Handlers = { [M in QueryMethod]: (keeper: UpgradeKeeper, req: QueryRequests[M]) => QueryResponses[M] };

const HANDLERS: Handlers = {
  CurrentPlan: (keeper) => ({ plan: keeper.getUpgradePlan() }),
  // An empty name is answered here: the keeper API refuses empty names, a real node answers height 0.
  AppliedPlan: (keeper, { name }) => ({ height: name === "" ? 0n : keeper.getDoneHeight(name) }),
  UpgradedConsensusState: (keeper, { lastHeight }) => {
    try {
      return { upgradedConsensusState: keeper.getUpgradedConsensusState(lastHeight) };
    } catch (e) {
      if (e instanceof UpgradeError && e.kind === "consensus-state-not-found") return { upgradedConsensusState: undefined };
      throw e;
    }
  },
  ModuleVersions: (keeper, { moduleName }) => ({
    moduleVersions: moduleName === "" ? keeper.getModuleVersions() : [{ name: moduleName, version: keeper.getModuleVersion(moduleName) }],
  }),
  Authority: (keeper) => ({ address: keeper.authority }),
};

/** Runs one query method against a keeper; every failure is a QueryError. */
export function runQuery<M extends QueryMethod>(method: M, keeper: UpgradeKeeper, req: QueryRequests[M]): QueryResponses[M] {
  const handler = HANDLERS[method] as (keeper: UpgradeKeeper, req: QueryRequests[M]) => QueryResponses[M];
  try {
    return handler(keeper, req);
  } catch (e) {
    throw handlerError(e);
  }
}

/** What every surface needs: the keeper, the names of the namespace and the height rules. */
export interface QueryEnv {
  readonly keeper: UpgradeKeeper;
  readonly names: ServiceNames;
  readonly heights: HeightResolver;
  /** The host's committed stores by height, for `/store/<name>/…` with proofs; absent: the upgrade store alone, unproven. */
  readonly stores?: StoresAt;
  /** Where every surface reports an unexpected error it answered as `internal error` (docs/spec/interfaces.md §12.1). */
  readonly report: InternalErrorReporter;
}

export interface QueryEnvOptions {
  keeper: UpgradeKeeper;
  /** The latest committed block height (at least 1), reported by every answer. */
  heightProvider: HeightProvider;
  /** The keeper of an older retained height; without it, older heights answer as pruned ones (sdk/18). */
  keeperAtHeight?: KeeperAtHeight;
  /** The host's committed stores at a height (raw store queries, proofs); see {@link StoresAt}. */
  storesAtHeight?: StoresAt;
  /** Default `cosmos`. */
  namespace?: string;
  /**
   * Told about every unexpected error a surface answered as `internal error` (the answer never carries its
   * detail, docs/spec/interfaces.md §12.1); default: one line on stderr.
   */
  onInternalError?: InternalErrorReporter;
}

export function createQueryEnv(options: QueryEnvOptions): QueryEnv {
  const { keeper } = options;
  if (typeof keeper !== "object" || keeper === null || typeof keeper.getUpgradePlan !== "function") {
    throw new TypeError("keeper must be an UpgradeKeeper");
  }
  if (options.storesAtHeight !== undefined && typeof options.storesAtHeight !== "function") throw new TypeError("storesAtHeight must be a function");
  if (options.onInternalError !== undefined && typeof options.onInternalError !== "function") {
    throw new TypeError("onInternalError must be a function");
  }
  return {
    keeper,
    names: serviceNames(options.namespace ?? DEFAULT_NAMESPACE),
    heights: new HeightResolver(keeper, options.heightProvider, options.keeperAtHeight),
    stores: options.storesAtHeight,
    report: options.onInternalError ?? reportToStderr,
  };
}

/** Runs a method and encodes its response bytes; every failure is a QueryError. */
export function queryBytes<M extends QueryMethod>(method: M, keeper: UpgradeKeeper, req: QueryRequests[M]): Uint8Array {
  const res = runQuery(method, keeper, req);
  try {
    return encodeResponse(keeper.core, method, res);
  } catch (e) {
    throw handlerError(e);
  }
}
