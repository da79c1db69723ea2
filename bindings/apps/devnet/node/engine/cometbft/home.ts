/**
 * A CometBFT v0.38 node home as `cometbft init` lays it out, written without the binary:
 *
 * - `config/config.toml`            the settings the devnet chooses (listen addresses, peers, short
 *                                   timeouts, CORS, JSON logs); CometBFT fills in every other one with its
 *                                   defaults;
 * - `config/genesis.json`           the CometBFT genesis doc; its `app_state` is the devnet's app state;
 * - `config/priv_validator_key.json` (0600) the validator's ed25519 key;
 * - `config/node_key.json`          (0600) the p2p key; the node id is the hex of sha256(pubkey)[:20];
 * - `data/priv_validator_state.json` the signing state at height 0.
 *
 * And the one setting the devnet reads back: where CometBFT's RPC listens.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { DevnetGenesis, PrivValidatorKey } from "../../../shared/genesis.js";
import { writeJsonFile } from "../../../shared/genesis.js";
import { consensusKeyFromSeed, type ConsensusKey } from "../../../chain/keys.js";
import { base64, fromHexStrict, hexLower, hexUpper, sha256 } from "../../../shared/util.js";
import { joinHostPort, parseHostPort, type HostPort } from "../../../../../base/host-port.js";
import { DevnetError } from "../../../shared/errors.js";

const configTomlPath = (home: string) => join(home, "config", "config.toml");

/** The CometBFT genesis doc (v0.38 JSON: int64 as strings). */
export interface CometGenesis extends DevnetGenesis {
  consensus_params: unknown;
  validators: { address: string; pub_key: { type: string; value: string }; power: string; name: string }[];
  app_hash: string;
}

/** CometBFT v0.38's default consensus params, as `cometbft init` writes them. */
const DEFAULT_CONSENSUS_PARAMS = {
  block: { max_bytes: "22020096", max_gas: "-1" },
  evidence: { max_age_num_blocks: "100000", max_age_duration: "172800000000000", max_bytes: "1048576" },
  validator: { pub_key_types: ["ed25519"] },
  version: { app: "0" },
  abci: { vote_extensions_enable_height: "0" },
};

/**
 * The CometBFT genesis of a devnet: its chain, its app state, and its validators with their power. Vote
 * extensions are on from `voteExtensionsEnableHeight` (default 1, the first block: docs/spec/readiness.md
 * §6.1); 0 leaves them off, as CometBFT's default does.
 */
export function cometGenesis(genesis: DevnetGenesis, voteExtensionsEnableHeight: bigint = 1n): CometGenesis {
  return {
    genesis_time: genesis.genesis_time,
    chain_id: genesis.chain_id,
    initial_height: genesis.initial_height,
    consensus_params: { ...DEFAULT_CONSENSUS_PARAMS, abci: { vote_extensions_enable_height: voteExtensionsEnableHeight.toString() } },
    validators: genesis.app_state.staking.validators.map((v) => ({
      address: v.consensus_address,
      pub_key: { type: "tendermint/PubKeyEd25519", value: v.consensus_pubkey },
      power: v.power,
      name: v.name,
    })),
    app_hash: "",
    app_state: genesis.app_state,
  };
}

const ed25519Json = (type: "PubKey" | "PrivKey", bytes: Uint8Array) => ({ type: `tendermint/${type}Ed25519`, value: base64(bytes) });

/** `priv_validator_key.json`: the address, the public key, and the private key as seed ‖ public key. */
function privValidatorKeyJson(key: ConsensusKey): unknown {
  return {
    address: hexUpper(key.address),
    pub_key: ed25519Json("PubKey", key.publicKey),
    priv_key: ed25519Json("PrivKey", new Uint8Array([...key.seed, ...key.publicKey])),
  };
}

/** The node id of a p2p key: lowercase hex of sha256(pubkey)[:20]. */
export function nodeIdOf(key: ConsensusKey): string {
  return hexLower(sha256(key.publicKey).subarray(0, 20));
}

export interface NodeConfig {
  moniker: string;
  /** host:port */
  rpc: string;
  /** host:port */
  p2p: string;
  /** `id@host:port` of the other validators. */
  persistentPeers: string[];
  /** Go duration: the pause after a commit before the next height (about the block time). */
  timeoutCommit: string;
  /** Go duration: how long a round waits for the proposal. */
  timeoutPropose: string;
}

const q = (s: string) => JSON.stringify(s);

/** config.toml: only what the devnet sets; every other setting keeps CometBFT's default. */
function configToml(c: NodeConfig): string {
  return [
    "# CometBFT v0.38 configuration written by `xupgrade devnet init --engine cometbft`.",
    "# Only the settings the devnet chooses are here: CometBFT fills in every other one with its default",
    "# (see `cometbft init` for the full file). `xupgrade devnet start` passes --proxy_app itself.",
    "",
    `moniker = ${q(c.moniker)}`,
    'db_backend = "goleveldb"',
    'log_level = "info"',
    'log_format = "json"',
    "",
    "[rpc]",
    `laddr = ${q(`tcp://${c.rpc}`)}`,
    "# The light-client page, served by the app's REST server, reads this RPC from the browser.",
    'cors_allowed_origins = ["*"]',
    'pprof_laddr = ""',
    "",
    "[p2p]",
    `laddr = ${q(`tcp://${c.p2p}`)}`,
    `persistent_peers = ${q(c.persistentPeers.join(","))}`,
    "# Every node of the testnet is on this machine's loopback.",
    "addr_book_strict = false",
    "allow_duplicate_ip = true",
    "pex = false",
    'persistent_peers_max_dial_period = "2s"',
    "",
    "[consensus]",
    `timeout_commit = ${q(c.timeoutCommit)}`,
    `timeout_propose = ${q(c.timeoutPropose)}`,
    'timeout_propose_delta = "500ms"',
    'peer_gossip_sleep_duration = "50ms"',
    "",
    "[tx_index]",
    'indexer = "kv"',
    "",
    "[instrumentation]",
    "prometheus = false",
    "",
  ].join("\n");
}

/** Writes a node home: config.toml, genesis, keys, signing state. */
export async function writeNodeHome(
  home: string,
  o: { config: NodeConfig; genesis: CometGenesis; validatorKey: PrivValidatorKey; nodeKey: ConsensusKey },
): Promise<void> {
  await mkdir(join(home, "config"), { recursive: true });
  await mkdir(join(home, "data"), { recursive: true });
  const validator = consensusKeyFromSeed(fromHexStrict(o.validatorKey.seed));
  await writeFile(configTomlPath(home), configToml(o.config));
  await writeJsonFile(join(home, "config", "genesis.json"), o.genesis);
  await writeJsonFile(join(home, "config", "priv_validator_key.json"), privValidatorKeyJson(validator), 0o600);
  await writeJsonFile(
    join(home, "config", "node_key.json"),
    { priv_key: ed25519Json("PrivKey", new Uint8Array([...o.nodeKey.seed, ...o.nodeKey.publicKey])) },
    0o600,
  );
  await writeJsonFile(join(home, "data", "priv_validator_state.json"), { height: "0", round: 0, step: 0 });
}

/** What the devnet reads of a node's config.toml. */
export interface CometConfig {
  /** `tcp://host:port` */
  rpcLaddr: string;
  moniker: string;
  /** Node ids of `[p2p] persistent_peers`. */
  persistentPeers: string[];
}

export async function readCometConfig(home: string): Promise<CometConfig> {
  const path = configTomlPath(home);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new DevnetError("home", `no CometBFT config at ${path}: run \`xupgrade devnet init --engine cometbft\` first`);
    throw new DevnetError("home", `cannot read ${path}: ${(e as Error).message}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch (e) {
    throw new DevnetError("home", `invalid ${path}: ${(e as Error).message}`);
  }
  const rpc = (doc.rpc ?? {}) as Record<string, unknown>;
  const p2p = (doc.p2p ?? {}) as Record<string, unknown>;
  const rpcLaddr = typeof rpc.laddr === "string" ? rpc.laddr : "tcp://127.0.0.1:26657";
  const peers = typeof p2p.persistent_peers === "string" ? p2p.persistent_peers.split(",").map((p) => p.trim()) : [];
  const persistentPeers = peers.filter((p) => p.includes("@")).map((p) => p.slice(0, p.indexOf("@")).toLowerCase());
  return { rpcLaddr, moniker: typeof doc.moniker === "string" ? doc.moniker : "", persistentPeers };
}

/** `tcp://host:port` (CometBFT's notation) → `http://host:port`, a wildcard host read as loopback. */
export function rpcUrlOf(laddr: string): string {
  let hp: HostPort;
  try {
    hp = parseHostPort(laddr.replace(/^tcp:\/\//, ""));
  } catch {
    throw new DevnetError("home", `cannot use the CometBFT RPC address ${JSON.stringify(laddr)}: expected tcp://host:port`);
  }
  const host = hp.host === "" || hp.host === "0.0.0.0" ? "127.0.0.1" : hp.host === "::" ? "::1" : hp.host;
  if (hp.port === 0) throw new DevnetError("home", `the CometBFT RPC address ${laddr} has port 0: CometBFT needs a fixed port the devnet can tell clients`);
  return `http://${joinHostPort(host, hp.port)}`;
}
