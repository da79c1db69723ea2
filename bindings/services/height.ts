/**
 * Which state a query reads: the `x-cosmos-block-height` header / ABCI `height`, checked as baseapp does
 * (docs/spec/interfaces.md §2–§4). Height 0 or absent means the latest committed height, which every answer reports.
 */
import type { UpgradeKeeper } from "../module/keeper.js";
import { goParseInt } from "../go/int.js";
import { internalError, sdkError } from "./status.js";
import { INT64_MAX } from "../go/int.js";

export const HEIGHT_HEADER = "x-cosmos-block-height";

/** Returns the latest committed block height (at least 1). */
export type HeightProvider = () => bigint | number;

/** The keeper holding the state of an older, still retained height; undefined when it is not retained. */
export type KeeperAtHeight = (height: bigint) => UpgradeKeeper | undefined;

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
      throw sdkError(
        "sdk",
        38,
        "not found",
        `failed to load state at height ${requested}; version does not exist (latest height: ${latest})`,
      );
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
