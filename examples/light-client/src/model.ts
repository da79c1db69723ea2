/** What the page shows, whichever way it was read. 64-bit values are bigints, as in the package. */
import type { Problem } from "./net.js";

export interface PlanView {
  name: string;
  height: bigint;
  info: string;
}

export interface AppliedView {
  name: string;
  height: bigint;
}

export interface VersionView {
  name: string;
  version: bigint;
}

/** One piece of state: its value and the block height the node said it read it at, or what went wrong. */
export type Part<T> = { ok: true; value: T; at: bigint | undefined } | { ok: false; problem: Problem };

export type Source = "rest" | "raw" | "verified";

/** The upgrade module's state read one way. */
export interface UpgradeState {
  source: Source;
  plan: Part<PlanView | undefined>;
  applied: Part<AppliedView[]>;
  versions: Part<VersionView[]>;
}

/** The chain as the RPC `status` and `blockchain` describe it. */
export interface ChainView {
  chainId: string;
  height: bigint;
  latestBlockTime: string;
  /** node_info.protocol_version.app */
  appVersion: string;
  /** Identifies this chain across restarts (earliest block hash). */
  chainKey: string;
  nodeVersion: string;
  moniker: string;
  /** Times (ms since the epoch) of recent blocks, newest first. */
  recentBlockTimes: number[];
}

export const ok = <T>(value: T, at: bigint | undefined): Part<T> => ({ ok: true, value, at });
export const failed = <T>(problem: Problem): Part<T> => ({ ok: false, problem });
