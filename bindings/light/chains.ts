/**
 * How a chain's x/upgrade state is proven (docs/spec/light-client.md §7.1): the store that holds it and the
 * proof a node sends for one of its keys. A chain whose state cannot be proven yet is listed with the reason,
 * so a client says so plainly instead of failing on a missing proof. Making a chain provable is a change to
 * this table, not to the verifier.
 */

export interface StateSpec {
  readonly id: string;
  /** The x/upgrade store's key in the multistore (the `ics23:simple` op's key). */
  readonly storeKey: string;
  /** The proof ops of one key, in order: the key in its store, the store in the multistore (the app hash). */
  readonly proofOps: readonly string[];
  /**
   * The gov store, when proposals can be read from it: v1 Proposals under `00 ‖ BE64(id)`, the ids of those in
   * their voting period under `04 ‖ BE64(id)` (the SDK since v0.46).
   */
  readonly govStoreKey?: string;
}

/** The Cosmos SDK since v0.46 (simd v0.50, real chains): IAVL stores under a simple Merkle multistore. */
export const COSMOS_SDK: StateSpec = { id: "cosmos-sdk", storeKey: "upgrade", proofOps: ["ics23:iavl", "ics23:simple"], govStoreKey: "gov" };

export const STATE_SPECS: Readonly<Record<string, StateSpec>> = { [COSMOS_SDK.id]: COSMOS_SDK };

/** Chains whose upgrade state cannot be proven yet, and why (said to the user as it is). */
export const UNPROVABLE: Readonly<Record<string, string>> = {
  "xupgrade-devnet":
    "the single-process xupgrade devnet cannot be verified: its headers are not CometBFT's (its commits sign a header hash a light client does not compute), so nothing it serves can be tied to a verified header; a devnet under CometBFT (--engine cometbft) can be",
};

/** Thrown for a chain of UNPROVABLE. */
export class UnprovableChainError extends Error {
  override name = "UnprovableChainError";
  constructor(
    readonly chain: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The spec of `chain` (an id of STATE_SPECS, or a spec), or UnprovableChainError / a TypeError. */
export function stateSpec(chain: string | StateSpec = COSMOS_SDK): StateSpec {
  if (typeof chain !== "string") return chain;
  const spec = STATE_SPECS[chain];
  if (spec) return spec;
  const reason = UNPROVABLE[chain];
  if (reason) throw new UnprovableChainError(chain, reason);
  throw new TypeError(`unknown chain kind ${JSON.stringify(chain)}: expected one of ${[...Object.keys(STATE_SPECS), ...Object.keys(UNPROVABLE)].join(", ")}`);
}
