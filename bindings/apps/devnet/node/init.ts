/** `initDevnet`: writes a fresh devnet home (genesis, node config, validator keys, genesis account keys). */
import { mkdir } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { loadCore } from "../../../core/index.js";
import type { Core } from "../../../core/contract.js";
import { coinsToString, formatDec, normalize, parseCoins, parseDec, toProtoCoins, type Coin } from "../modules/coins.js";
import { formatGoDuration } from "../../../go/duration.js";
import {
  dataDir,
  genesisKeysPath,
  genesisPath,
  devnetConfigPath,
  privValidatorKeysPath,
  writeJsonFile,
  type DevnetConfig,
  type DevnetGenesis,
  type GenesisKey,
  type GenesisKeysFile,
  type GenesisValidator,
  type PrivValidatorKey,
} from "../shared/genesis.js";
import { BECH32_PREFIX, HD_PATH } from "../../../client/address.js";
import { accountKeyFromMnemonic, consensusKeyFromSeed, consensusSeed, mnemonicFor } from "../chain/keys.js";
import { base64, hexLower, hexUpper, nowNs, sha256, utf8 } from "../shared/util.js";
import { formatRfc3339NanoNs } from "../../../go/time.js";
import { parseDurationOption } from "../../../go/option.js";
import { messageOf } from "../../../base/errors.js";
import { DevnetError } from "../shared/errors.js";
import { exists } from "../../../base/file.js";

export interface InitDevnetOptions {
  home: string;
  /** Number of validators (1–100), default 4. */
  validators?: number;
  votingPeriod?: string;
  depositPeriod?: string;
  blockTime?: string;
  chainId?: string;
  /** gov `min_deposit`, default "10000000stake". */
  minDeposit?: string;
  /** Extra (non-validator) funded accounts, default ["alice", "bob"]. */
  accounts?: string[];
  /**
   * Keys are derived from this text (default: the chain id), so an init with the same options gives the
   * same keys; `null` draws random keys.
   */
  keySeed?: string | null;
  /** Replace an existing devnet home (default false: refuse). */
  overwrite?: boolean;
  /** Genesis time, default now (RFC 3339). */
  genesisTime?: string;
  moniker?: string;
  rpc?: string;
  rest?: string;
  grpc?: string;
}

export interface InitDevnetResult {
  home: string;
  chainId: string;
  genesisFile: string;
  keysFile: string;
  keys: GenesisKey[];
}

export const DEFAULTS = {
  validators: 4,
  votingPeriod: "10s",
  depositPeriod: "10s",
  blockTime: "200ms",
  chainId: "xupgrade-devnet-1",
  minDeposit: "10000000stake",
  accounts: ["alice", "bob"],
  rpc: "127.0.0.1:26657",
  rest: "127.0.0.1:1317",
  grpc: "127.0.0.1:9090",
} as const;

const BOND_DENOM = "stake";
const POWER_REDUCTION = 1_000_000n;
const VALIDATOR_POWER = 100n;
const VALIDATOR_BALANCE = 1_000_000_000_000n; // 1,000,000 STAKE
const ACCOUNT_BALANCE = 1_000_000_000_000n;
const CHAIN_ID = /^[a-zA-Z0-9_.-]{1,50}$/;
const KEY_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

export async function initDevnet(options: InitDevnetOptions): Promise<InitDevnetResult> {
  const o = validateInit(options, await loadCore());
  if (!o.overwrite) {
    for (const p of [genesisPath(o.home), devnetConfigPath(o.home)]) {
      if (await exists(p)) throw new DevnetError("home", `${p} already exists: the devnet home is already initialised (pass overwrite to replace it)`);
    }
  }
  const { genesis, keys, privKeys } = await buildGenesis(o);
  const nodeId = o.keySeed === null ? randomBytes(20) : sha256(utf8(`xupgrade devnet ${o.keySeed} node`)).subarray(0, 20);
  const config: DevnetConfig = {
    moniker: o.moniker,
    node_id: hexLower(nodeId),
    block_time: formatGoDuration(o.blockTime),
    rpc_laddr: o.rpc,
    rest_laddr: o.rest,
    grpc_laddr: o.grpc,
    max_txs_per_block: 100,
  };
  const keysFile: GenesisKeysFile = { chain_id: o.chainId, bech32_prefix: BECH32_PREFIX, hd_path: HD_PATH, keys };

  await mkdir(dataDir(o.home), { recursive: true });
  await writeJsonFile(privValidatorKeysPath(o.home), privKeys, 0o600);
  await writeJsonFile(genesisKeysPath(o.home), keysFile, 0o600);
  await writeJsonFile(devnetConfigPath(o.home), config);
  await writeJsonFile(genesisPath(o.home), genesis);
  return { home: o.home, chainId: o.chainId, genesisFile: genesisPath(o.home), keysFile: genesisKeysPath(o.home), keys };
}

/** What both layouts (this one and the CometBFT testnet's) are made of: the genesis, the accounts' keys, the validators' consensus keys. */
export async function buildGenesis(o: ValidatedInit): Promise<{ genesis: DevnetGenesis; keys: GenesisKey[]; privKeys: PrivValidatorKey[] }> {
  const seedText = (what: string) => (o.keySeed === null ? null : `xupgrade devnet ${o.keySeed} ${what}`);
  const keys: GenesisKey[] = [];
  const validators: GenesisValidator[] = [];
  const privKeys: PrivValidatorKey[] = [];
  const balances: DevnetGenesis["app_state"]["bank"]["balances"] = [];
  // Every account holds the bond denom, plus enough of any other min-deposit denom for many deposits.
  const fund = (base: bigint): Coin[] =>
    normalize([
      { denom: BOND_DENOM, amount: base },
      ...o.minDeposit.filter((c) => c.denom !== BOND_DENOM).map((c) => ({ denom: c.denom, amount: c.amount * 1000n })),
    ]);

  const names = [...Array.from({ length: o.validators }, (_, i) => `validator${i}`), ...o.accounts];
  for (const [i, name] of names.entries()) {
    const isValidator = i < o.validators;
    const key = await accountKeyFromMnemonic(mnemonicFor(seedText(`account ${name}`)));
    const coins = fund(isValidator ? VALIDATOR_BALANCE : ACCOUNT_BALANCE);
    balances.push({ address: key.address, coins: toProtoCoins(coins) });
    keys.push({
      name,
      role: isValidator ? "validator" : "account",
      type: "secp256k1",
      address: key.address,
      pubkey: base64(key.publicKey),
      private_key: hexLower(key.privateKey),
      mnemonic: key.mnemonic,
      account_number: String(i),
      coins: toProtoCoins(coins),
      ...(isValidator ? { voting_power: VALIDATOR_POWER.toString() } : {}),
    });
    if (isValidator) {
      const cons = consensusKeyFromSeed(consensusSeed(seedText(`consensus ${name}`)));
      validators.push({
        name,
        account: key.address,
        consensus_address: hexUpper(cons.address),
        consensus_pubkey: base64(cons.publicKey),
        power: VALIDATOR_POWER.toString(),
        tokens: (VALIDATOR_POWER * POWER_REDUCTION).toString(),
      });
      privKeys.push({ name, address: hexUpper(cons.address), pub_key: base64(cons.publicKey), seed: hexLower(cons.seed) });
    }
  }

  const genesis: DevnetGenesis = {
    genesis_time: o.genesisTime,
    chain_id: o.chainId,
    initial_height: "1",
    app_state: {
      auth: { accounts: keys.map((k) => ({ address: k.address, account_number: k.account_number })) },
      bank: { balances },
      staking: { bond_denom: BOND_DENOM, validators },
      gov: {
        params: {
          min_deposit: toProtoCoins(o.minDeposit),
          max_deposit_period: formatGoDuration(o.depositPeriod),
          voting_period: formatGoDuration(o.votingPeriod),
          quorum: formatDec(parseDec("0.334")),
          threshold: formatDec(parseDec("0.5")),
          veto_threshold: formatDec(parseDec("0.334")),
        },
      },
    },
  };
  return { genesis, keys, privKeys };
}

export type ValidatedInit = ReturnType<typeof validateInit>;

export function validateInit(options: InitDevnetOptions, core: Core) {
  if (!options || typeof options.home !== "string" || options.home === "") throw new TypeError("home must be a non-empty path");
  const validators = options.validators ?? DEFAULTS.validators;
  if (!Number.isInteger(validators) || validators < 1 || validators > 100) {
    throw new RangeError(`validators must be an integer from 1 to 100, got ${String(validators)}`);
  }
  const chainId = options.chainId ?? DEFAULTS.chainId;
  if (!CHAIN_ID.test(chainId)) throw new DevnetError("option", `invalid chain id "${chainId}": use 1–50 letters, digits, '_', '.', '-'`);
  const minDepositText = options.minDeposit ?? DEFAULTS.minDeposit;
  let minDeposit: Coin[];
  try {
    minDeposit = parseCoins(core, minDepositText);
  } catch (e) {
    throw new DevnetError("option", `invalid min deposit "${minDepositText}": ${(e as Error).message}`);
  }
  if (minDeposit.length === 0) throw new DevnetError("option", `invalid min deposit "${minDepositText}": must not be empty`);
  const accounts = options.accounts ?? [...DEFAULTS.accounts];
  const seen = new Set<string>();
  for (const a of accounts) {
    if (!KEY_NAME.test(a) || /^validator[0-9]+$/.test(a) || seen.has(a)) throw new DevnetError("option", `invalid or duplicate account name "${a}"`);
    seen.add(a);
  }
  let genesisTime = options.genesisTime ?? formatRfc3339NanoNs(nowNs());
  if (Number.isNaN(Date.parse(genesisTime))) throw new DevnetError("option", `invalid genesis time "${genesisTime}"`);
  genesisTime = String(genesisTime);
  return {
    home: options.home,
    validators,
    chainId,
    votingPeriod: checkDuration(options.votingPeriod ?? DEFAULTS.votingPeriod, "voting period"),
    depositPeriod: checkDuration(options.depositPeriod ?? DEFAULTS.depositPeriod, "deposit period"),
    blockTime: checkDuration(options.blockTime ?? DEFAULTS.blockTime, "block time"),
    minDeposit,
    minDepositText: coinsToString(minDeposit),
    accounts,
    keySeed: options.keySeed === undefined ? chainId : options.keySeed,
    overwrite: options.overwrite ?? false,
    genesisTime,
    moniker: options.moniker ?? "xupgrade-devnet",
    rpc: options.rpc ?? DEFAULTS.rpc,
    rest: options.rest ?? DEFAULTS.rest,
    grpc: options.grpc ?? DEFAULTS.grpc,
  };
}

/** A devnet's period or block time (go/option.ts: at least 1ms), in ns; the error names the option. */
export function checkDuration(text: string, what: string): bigint {
  try {
    return parseDurationOption(text, "period");
  } catch (e) {
    throw new DevnetError("option", `invalid ${what} "${text}": ${messageOf(e)}`);
  }
}
