/**
 * x/staking, as far as the devnet needs it: the bonded validators in state, written once at InitChain.
 * Each record joins a consensus key (the one CometBFT signs with) to the account that votes for it in gov,
 * with its voting power and bonded tokens. The gov tally reads them from the block's state, so every node
 * tallies with the same powers whatever its own configuration says.
 *
 * Store `staking`: `21 ‖ consensus address (20 bytes)` → the validator as JSON ({@link GenesisValidator}).
 */
import type { StoreView } from "../shared/branch.js";
import type { GenesisValidator } from "../shared/genesis.js";
import { fromUtf8, utf8 } from "../shared/util.js";
import { concatBytes } from "../../../base/bytes.js";

const STAKING_STORE = "staking";
const VALIDATOR = 0x21;

/** What the gov tally needs of a validator: its account and its bonded tokens. */
export interface VotingValidator {
  account: string;
  tokens: bigint;
}

export function setValidator(view: StoreView, v: GenesisValidator): void {
  view.store(STAKING_STORE).set(concatBytes(Uint8Array.of(VALIDATOR), Buffer.from(v.consensus_address, "hex")), utf8(JSON.stringify(v)));
}

/** Every validator in state, in consensus-address order. */
export function validators(view: StoreView): GenesisValidator[] {
  const out: GenesisValidator[] = [];
  for (const [, v] of view.store(STAKING_STORE).iterate(Uint8Array.of(VALIDATOR), Uint8Array.of(VALIDATOR + 1))) {
    out.push(JSON.parse(fromUtf8(v)) as GenesisValidator);
  }
  return out;
}

/** The voting validators of the gov tally. */
export function votingValidators(view: StoreView): VotingValidator[] {
  return validators(view).map((v) => ({ account: v.account, tokens: BigInt(v.tokens) }));
}
