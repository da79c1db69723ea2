/** Shapes shared by the keeper, both cores and the services. 64-bit values are `bigint`. */

/** An upgrade plan. The deprecated time and IBC fields are not representable: the core refuses them. */
export interface Plan {
  name: string;
  height: bigint;
  info: string;
}

/** A plan as callers may write it: heights as `bigint` or a safe integer `number`, info optional. */
export interface PlanInput {
  name: string;
  height: bigint | number;
  info?: string;
}

/** Module name → consensus version (uint64). */
export type VersionMap = Map<string, bigint>;

export interface ModuleVersion {
  name: string;
  version: bigint;
}

export interface CompletedUpgrade {
  name: string;
  height: bigint;
}

/**
 * How a store keeps its done records: `seed`, the seed's `01 ‖ name → BE64(height)` (what this module
 * writes), or `sdk`, the Cosmos SDK's (v0.46 and later) `01 ‖ BE64(height) ‖ name → 01`.
 */
export type DoneLayout = "seed" | "sdk";

/** Raw done records decoded in whichever layout they are: the layout found (`undefined` when there were none) and the records. */
export interface DoneEntries {
  layout: DoneLayout | undefined;
  entries: CompletedUpgrade[];
}

/** The three changes a store loader can make at the upgrade height. */
export interface StoreUpgrades {
  added?: string[];
  renamed?: { oldKey: string; newKey: string }[];
  deleted?: string[];
}

/**
 * A coin as the chain writes it (protobuf `cosmos.base.v1beta1.Coin`, JSON) and as `parseCoin` returns it
 * (sdk.ParseCoinNormalized without the normalisation).
 */
export interface Coin {
  denom: string;
  /** The amount as canonical decimal digits (no leading zeros; "0" for zero), at most 2^256 - 1. */
  amount: string;
}
