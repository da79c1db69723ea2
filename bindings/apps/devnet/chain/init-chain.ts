/**
 * The genesis state the built-in modules write at InitChain: accounts, balances, the bonded validators and
 * their pool, gov params. Which validators are bonded, and with what power, is the consensus engine's
 * word when it has one (CometBFT's genesis validators, matched to the app state's entries by public key);
 * the single-process engine takes the app state's list as it is.
 */
import { parseGoDuration } from "../../../go/duration.js";
import { moduleAddress } from "../../../client/address.js";
import { AUTH_STORE, initGenesisAccount, newAccount } from "../modules/auth.js";
import { mint } from "../modules/bank.js";
import type { Branch } from "../shared/branch.js";
import { fromProtoCoins } from "../modules/coins.js";
import type { DevnetGenesis, GenesisValidator } from "../shared/genesis.js";
import { GOV_MODULE_ADDRESS, makeGovParams, type GovModule } from "../modules/gov.js";
import { setValidator } from "../modules/staking.js";
import { FEE_COLLECTOR } from "./tx.js";
import { base64, hexUpper, sha256 } from "../shared/util.js";
import { DevnetError } from "../shared/errors.js";

export type AppState = DevnetGenesis["app_state"];

/** A validator as the consensus engine's genesis has it. */
export interface ConsensusValidator {
  /** 32-byte ed25519 public key. */
  pubKey: Uint8Array;
  power: bigint;
}

const POWER_REDUCTION = 1_000_000n;

/**
 * The bonded validators: the app state's own (no consensus validators given), or CometBFT's with their
 * power, each joined to its gov account in the app state. A validator on one side only is an error: it
 * would vote without power, or sign without a vote.
 */
export function bondedValidators(s: AppState, consensus: ConsensusValidator[] | undefined): GenesisValidator[] {
  const listed = s.staking?.validators;
  if (!Array.isArray(listed)) throw new DevnetError("genesis", "invalid genesis app_state: staking.validators must be a list");
  if (consensus === undefined) return listed;
  const byKey = new Map(listed.map((v) => [v.consensus_pubkey, v]));
  const out: GenesisValidator[] = [];
  for (const c of consensus) {
    const key = base64(c.pubKey);
    const address = hexUpper(sha256(c.pubKey).subarray(0, 20));
    const v = byKey.get(key);
    if (!v)
      throw new DevnetError(
        "genesis",
        `genesis validator ${address} (power ${c.power}) has no entry in app_state.staking.validators, so it has no gov account`,
      );
    byKey.delete(key);
    out.push({ ...v, consensus_address: address, power: c.power.toString(), tokens: (c.power * POWER_REDUCTION).toString() });
  }
  const left = [...byKey.values()].map((v) => v.name || v.consensus_address);
  if (left.length > 0) throw new DevnetError("genesis", `app_state.staking.validators lists ${left.join(", ")}, which the consensus genesis does not`);
  return out;
}

/** Writes the built-in modules' genesis state to `block`. */
export function writeGenesisState(block: Branch, s: AppState, validators: GenesisValidator[], gov: GovModule): void {
  const auth = block.store(AUTH_STORE);
  for (const a of s.auth.accounts) initGenesisAccount(auth, a.address, BigInt(a.account_number));
  newAccount(auth, GOV_MODULE_ADDRESS, { name: "gov", permissions: ["burner"] });
  newAccount(auth, FEE_COLLECTOR, { name: "fee_collector", permissions: [] });
  newAccount(auth, moduleAddress("bonded_tokens_pool"), { name: "bonded_tokens_pool", permissions: ["burner", "staking"] });
  for (const b of s.bank.balances) mint(block, b.address, fromProtoCoins(b.coins));
  let bonded = 0n;
  for (const v of validators) {
    setValidator(block, v);
    bonded += BigInt(v.tokens);
  }
  if (bonded > 0n) mint(block, moduleAddress("bonded_tokens_pool"), [{ denom: s.staking.bond_denom, amount: bonded }]);
  const g = s.gov.params;
  gov.setParams(
    block,
    makeGovParams({
      minDeposit: g.min_deposit.length ? fromProtoCoins(g.min_deposit) : [{ denom: "stake", amount: 10_000_000n }],
      maxDepositPeriodNs: parseGoDuration(g.max_deposit_period),
      votingPeriodNs: parseGoDuration(g.voting_period),
      quorum: g.quorum,
      threshold: g.threshold,
      vetoThreshold: g.veto_threshold,
    }),
  );
}
