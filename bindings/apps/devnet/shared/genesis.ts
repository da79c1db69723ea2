/**
 * The files `initDevnet` writes under `<home>/config/` and `startDevnet` reads:
 *
 * - `genesis.json`           chain id, genesis time, validators and the app state (accounts, balances,
 *                            staking power, gov params) — see {@link DevnetGenesis};
 * - `devnet.json`            node settings: engine, block time, listen addresses, moniker, node id ({@link DevnetConfig});
 * - `priv_validator_keys.json` (0600) the validators' ed25519 consensus seeds: one process signs for all;
 * - `genesis-keys.json`      (0600) the genesis accounts' keys, keyring-independent ({@link GenesisKeysFile}).
 */
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../../../base/file.js";
import type { Coin } from "../../../core/types.js";
import { DevnetError } from "./errors.js";

export interface GenesisValidator {
  name: string;
  /** The validator's account (operator) address: it votes in gov with the validator's power. */
  account: string;
  /** CometBFT validator address: uppercase hex of sha256(ed25519 pubkey)[:20]. */
  consensus_address: string;
  /** base64 ed25519 public key. */
  consensus_pubkey: string;
  /** Voting power (tokens / 10^6). */
  power: string;
  /** Bonded tokens of the bond denom (used by the gov tally). */
  tokens: string;
}

export interface GovParamsJson {
  min_deposit: Coin[];
  /** Go duration text, e.g. "10s". */
  max_deposit_period: string;
  voting_period: string;
  quorum: string;
  threshold: string;
  veto_threshold: string;
}

export interface DevnetGenesis {
  genesis_time: string;
  chain_id: string;
  initial_height: string;
  app_state: {
    auth: { accounts: { address: string; account_number: string }[] };
    bank: { balances: { address: string; coins: Coin[] }[] };
    staking: { bond_denom: string; validators: GenesisValidator[] };
    gov: { params: GovParamsJson };
    /** Upgrade readiness (docs/spec/readiness.md §7): the activation gate's threshold, off when absent or "". */
    readiness?: { activation_threshold?: string };
  };
}

export interface DevnetConfig {
  /** Which engine the home is for: "local" (the default when absent) or "cometbft" (a node of `initTestnet`). */
  engine?: "local" | "cometbft";
  moniker: string;
  /** 40 lowercase hex: the node id reported by `status`. */
  node_id: string;
  /** Go duration between blocks, e.g. "200ms". */
  block_time: string;
  rpc_laddr: string;
  rest_laddr: string;
  grpc_laddr: string;
  /** At most this many txs per block. */
  max_txs_per_block: number;
  /** Past heights kept (docs/spec/store.md §3): simd's strategies; absent: "default". */
  pruning?: "default" | "nothing" | "everything" | "custom";
  /** With "custom": heights kept besides the latest. */
  pruning_keep_recent?: number;
}

export interface PrivValidatorKey {
  name: string;
  address: string;
  pub_key: string;
  /** 32-byte ed25519 seed, hex. */
  seed: string;
}

/**
 * `<home>/config/genesis-keys.json` — the genesis accounts' keys, for `keys add --recover` or a test
 * keyring (file mode 0600; devnet keys only, never real funds). Format:
 *
 * ```json
 * {
 *   "chain_id": "xupgrade-devnet-1",
 *   "bech32_prefix": "cosmos",
 *   "hd_path": "m/44'/118'/0'/0/0",
 *   "keys": [
 *     {
 *       "name": "validator0",            // key name to import under; unique
 *       "role": "validator",             // "validator" (votes with voting_power) or "account"
 *       "type": "secp256k1",
 *       "address": "cosmos1…",           // bech32(cosmos, ripemd160(sha256(pubkey)))
 *       "pubkey": "A…",                  // base64 of the 33-byte compressed public key
 *       "private_key": "2d02…",          // 64 lowercase hex: the key derived from the mnemonic on hd_path
 *       "mnemonic": "word1 … word24",    // BIP-39 English; recovering it on hd_path gives private_key
 *       "account_number": "0",
 *       "coins": [{"denom": "stake", "amount": "1000000000"}],
 *       "voting_power": "100"            // validators only
 *     }
 *   ]
 * }
 * ```
 */
export interface GenesisKeysFile {
  chain_id: string;
  bech32_prefix: string;
  hd_path: string;
  keys: GenesisKey[];
}

export interface GenesisKey {
  name: string;
  role: "validator" | "account";
  type: "secp256k1";
  address: string;
  pubkey: string;
  private_key: string;
  mnemonic: string;
  account_number: string;
  coins: Coin[];
  voting_power?: string;
}

export const dataDir = (home: string) => join(home, "data");
export const genesisPath = (home: string) => join(home, "config", "genesis.json");
export const devnetConfigPath = (home: string) => join(home, "config", "devnet.json");
export const privValidatorKeysPath = (home: string) => join(home, "config", "priv_validator_keys.json");
export const genesisKeysPath = (home: string) => join(home, "config", "genesis-keys.json");
/** The application database (classic-level directory). */
export const appDbPath = (home: string) => join(home, "data", "application.db");

/** Writes JSON (2-space indent, trailing newline) durably and atomically; `mode` (e.g. 0o600 for keys) exactly. */
export async function writeJsonFile(path: string, value: unknown, mode?: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n", { mode });
}

async function readJsonFile<T>(path: string, what: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new DevnetError("home", `${what} not found at ${path}: run devnet init first`);
    throw new DevnetError("home", `cannot read ${what} at ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new DevnetError("home", `invalid ${what} at ${path}: ${(e as Error).message}`);
  }
}

export function readGenesis(home: string): Promise<DevnetGenesis> {
  return readJsonFile<DevnetGenesis>(genesisPath(home), "genesis file");
}

export function readDevnetConfig(home: string): Promise<DevnetConfig> {
  return readJsonFile<DevnetConfig>(devnetConfigPath(home), "devnet config");
}

export function readPrivValidatorKeys(home: string): Promise<PrivValidatorKey[]> {
  return readJsonFile<PrivValidatorKey[]>(privValidatorKeysPath(home), "validator keys file");
}

/** Reads `<home>/config/genesis-keys.json` (for the CLI's `keys add --recover` / test keyring). */
export function readGenesisKeys(home: string): Promise<GenesisKeysFile> {
  return readJsonFile<GenesisKeysFile>(genesisKeysPath(home), "genesis keys file");
}
