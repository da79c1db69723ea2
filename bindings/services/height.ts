/**
 * Which state a query reads: the `x-cosmos-block-height` header / ABCI `height`, checked as baseapp does
 * (docs/spec/interfaces.md §2–§4). Height 0 or absent means the latest committed height, which every answer reports.
 */
import type { ProofOp } from "../core/ics23.js";
import type { KVStore } from "../core/kv.js";
import type { UpgradeKeeper } from "../module/keeper.js";
import { goParseInt } from "../go/int.js";
import { internalError, sdkError } from "./status.js";
import { INT64_MAX } from "../go/int.js";

export const HEIGHT_HEADER = "x-cosmos-block-height";

/** cosmossdk.io/store's iavl error for a version that is not kept (pruned, or not yet committed). */
export const VERSION_PRUNED =
  "version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height";

/** Returns the latest committed block height (at least 1). */
export type HeightProvider = () => bigint | number;

/** The keeper holding the state of an older, still retained height; undefined when it is not retained. */
export type KeeperAtHeight = (height: bigint) => UpgradeKeeper | undefined;

/** A host's committed stores at one height, for the raw store paths `/store/<name>/key|subspace` (docs/spec/interfaces.md §4.1). */
export interface StoresAtHeight {
  /** Whether the store exists at this height (and may be queried). */
  has(name: string): boolean;
  store(name: string): KVStore;
  /** The value of `key` and the SDK's proof ops for it (`ics23:iavl`, then `ics23:simple`) against this height's app hash. */
  prove(name: string, key: Uint8Array): { value: Uint8Array | undefined; ops: readonly ProofOp[] };
}

/** The committed stores at a height; undefined when that height is not retained (pruned, or not yet committed). */
export type StoresAt = (height: bigint) => StoresAtHeight | undefined;

export interface QueryContext {
  keeper: UpgradeKeeper;
  /** The height served and reported (never 0). */
  height: bigint;
}

export class HeightResolver {
  constructor(
    private readonly keeper: UpgradeKeeper,
    private readonly heightProvider: HeightProvider,
    private readonly keeperAtHeight?: KeeperAtHeight,
  ) {
    if (typeof heightProvider !== "function") throw new TypeError("heightProvider must be a function returning the latest committed height");
    if (keeperAtHeight !== undefined && typeof keeperAtHeight !== "function") throw new TypeError("keeperAtHeight must be a function");
  }

  /** The latest committed height as the host reports it. */
  latest(): bigint {
    let h: unknown;
    try {
      h = this.heightProvider();
    } catch (e) {
      throw internalError(new Error("height provider failed", { cause: e }));
    }
    if (typeof h === "number" && Number.isSafeInteger(h)) h = BigInt(h);
    if (typeof h !== "bigint" || h < 1n || h > INT64_MAX) {
      throw internalError(new Error(`height provider returned ${String(h)}; expected a committed height of at least 1`));
    }
    return h;
  }

  /** The state to read for a requested height (0 or undefined: the latest). */
  at(requested: bigint | undefined): QueryContext {
    const latest = this.latest();
    if (requested === undefined || requested === 0n || requested === latest) return { keeper: this.keeper, height: latest };
    if (requested < 0n) throw sdkError("sdk", 18, "invalid request", "cannot query with height < 0; please provide a valid height");
    if (requested > latest) {
      throw sdkError("sdk", 26, "invalid height", "cannot query with height in the future; please provide a valid height");
    }
    const keeper = this.keeperAtHeight?.(requested);
    if (keeper === undefined) {
      // baseapp's CreateQueryContext when the multistore cannot load the version (Cosmos SDK v0.50).
      throw sdkError("sdk", 18, "invalid request", `failed to load state at height ${requested}; ${VERSION_PRUNED} (latest height: ${latest})`);
    }
    return { keeper, height: requested };
  }

  /**
   * The height asked for by `x-cosmos-block-height` values, as baseapp's gRPC interceptor reads them:
   * exactly one value counts; it must be a base-10 int64 that is not negative.
   */
  static fromHeader(values: readonly string[]): bigint | undefined {
    if (values.length !== 1) return undefined;
    const parsed = goParseInt(values[0], 10);
    if (!parsed.ok) {
      throw sdkError("sdk", 18, "invalid request", `Baseapp.RegisterGRPCServer: invalid height header "${HEIGHT_HEADER}": ${parsed.error}`);
    }
    if (parsed.value < 0n) throw sdkError("sdk", 18, "invalid request", "cannot query with height < 0; please provide a valid height");
    return parsed.value;
  }
}
