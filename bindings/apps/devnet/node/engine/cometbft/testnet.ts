/**
 * `initTestnet`: a network of CometBFT validators on this machine, one node home per validator:
 *
 * ```
 * <dir>/testnet.json                 the nodes: name, home, node id, RPC and p2p addresses
 * <dir>/config/genesis-keys.json     (0600) the genesis accounts' keys (`xupgrade keys import-genesis --home <dir>`)
 * <dir>/node<i>/config/              config.toml, genesis.json (shared, byte for byte), priv_validator_key.json,
 *                                    node_key.json, devnet.json (engine "cometbft", REST and gRPC addresses)
 * <dir>/node<i>/data/                priv_validator_state.json; later CometBFT's databases, application.db,
 *                                    upgrade-info.json
 * ```
 *
 * Each node listens on 127.0.0.1 with its own RPC and p2p ports, picked free below the kernel's ephemeral
 * range (so they do not collide with the port-0 listeners of other programs), and has every other node
 * as a persistent peer. The keys are derived as `initDevnet` derives them (deterministic from the chain id
 * unless told otherwise), so node i signs for validator i of the same genesis.
 */
import { mkdir, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { BECH32_PREFIX, HD_PATH } from "../../../../../client/address.js";
import { loadCore } from "../../../../../core/index.js";
import { formatGoDuration } from "../../../../../go/duration.js";
import { genesisKeysPath, writeJsonFile, type DevnetConfig, type GenesisKey, type GenesisKeysFile } from "../../../shared/genesis.js";
import { buildGenesis, checkDuration, validateInit, type InitDevnetOptions } from "../../init.js";
import { consensusKeyFromSeed, consensusSeed } from "../../../chain/keys.js";
import { cometGenesis, nodeIdOf, writeNodeHome } from "./home.js";
import { DevnetError } from "../../../shared/errors.js";
import { exists } from "../../../../../base/file.js";
import { NoFreePortError, freePorts } from "../../../../../base/ports.js";
import { checkActivationThreshold } from "../../../modules/readiness.js";

export interface InitTestnetOptions extends Omit<InitDevnetOptions, "rpc" | "rest" | "grpc" | "moniker" | "blockTime"> {
  /** CometBFT's `timeout_commit` (about the time between blocks), default 300ms. */
  blockTime?: string;
  /** CometBFT's `timeout_propose`, default 1s. */
  timeoutPropose?: string;
  /** The first height whose precommits carry vote extensions (default 1; 0: off). */
  voteExtensionsEnableHeight?: bigint | number;
  /** The readiness activation gate (docs/spec/readiness.md §7): a fraction of the power, e.g. "0.67"; default off. */
  readinessActivationThreshold?: string;
}

export interface TestnetNode {
  name: string;
  home: string;
  /** The p2p node id (40 hex). */
  node_id: string;
  /** `http://127.0.0.1:<port>` of CometBFT's RPC. */
  rpc: string;
  /** `127.0.0.1:<port>` CometBFT's p2p listens on. */
  p2p: string;
  /** The validator's consensus address (uppercase hex). */
  validator_address: string;
}

export interface InitTestnetResult {
  home: string;
  chainId: string;
  nodes: TestnetNode[];
  keysFile: string;
  keys: GenesisKey[];
}

export const TESTNET_DEFAULTS = { blockTime: "300ms", timeoutPropose: "1s" } as const;
export const testnetFilePath = (dir: string) => join(dir, "testnet.json");

export async function initTestnet(options: InitTestnetOptions): Promise<InitTestnetResult> {
  if (!options || typeof options.home !== "string" || options.home === "") throw new TypeError("home must be a non-empty path");
  const dir = resolve(options.home);
  const blockTime = checkDuration(options.blockTime ?? TESTNET_DEFAULTS.blockTime, "block time");
  const timeoutPropose = checkDuration(options.timeoutPropose ?? TESTNET_DEFAULTS.timeoutPropose, "timeout_propose");
  const o = validateInit({ ...options, home: dir }, await loadCore());
  if (!o.overwrite && (await exists(testnetFilePath(dir)))) {
    throw new DevnetError("home", `${testnetFilePath(dir)} already exists: the testnet is already initialised (pass overwrite to replace it)`);
  }
  if (!o.overwrite && (await exists(dir)) && (await readdir(dir)).some((n) => /^node\d+$/.test(n))) {
    throw new DevnetError("home", `${dir} already holds node homes: pass overwrite to replace them`);
  }
  const veHeight = BigInt(options.voteExtensionsEnableHeight ?? 1);
  if (veHeight < 0n) throw new DevnetError("option", `vote extensions enable height ${veHeight} is negative`);
  const threshold = options.readinessActivationThreshold ?? "";
  checkActivationThreshold(threshold);
  const { genesis, keys, privKeys } = await buildGenesis(o);
  if (threshold !== "") {
    if (veHeight === 0n) throw new DevnetError("option", "the readiness activation threshold needs vote extensions (they carry the attestations it counts)");
    genesis.app_state.readiness = { activation_threshold: threshold };
  }
  const doc = cometGenesis(genesis, veHeight);
  const seedText = (what: string) => (o.keySeed === null ? null : `xupgrade devnet ${o.keySeed} ${what}`);
  const ports = await freePorts(2 * privKeys.length).catch((e: unknown) => {
    throw e instanceof NoFreePortError ? new DevnetError("network", e.message, { cause: e }) : e;
  });
  const nodes = privKeys.map((v, i) => {
    const nodeKey = consensusKeyFromSeed(consensusSeed(seedText(`p2p node${i}`)));
    return {
      name: `node${i}`,
      home: join(dir, `node${i}`),
      nodeKey,
      validatorKey: v,
      rpcPort: ports[2 * i],
      p2pPort: ports[2 * i + 1],
      nodeId: nodeIdOf(nodeKey),
    };
  });
  for (const n of nodes) {
    const peers = nodes.filter((p) => p !== n).map((p) => `${p.nodeId}@127.0.0.1:${p.p2pPort}`);
    await writeNodeHome(n.home, {
      config: {
        moniker: n.name,
        rpc: `127.0.0.1:${n.rpcPort}`,
        p2p: `127.0.0.1:${n.p2pPort}`,
        persistentPeers: peers,
        timeoutCommit: formatGoDuration(blockTime),
        timeoutPropose: formatGoDuration(timeoutPropose),
      },
      genesis: doc,
      validatorKey: n.validatorKey,
      nodeKey: n.nodeKey,
    });
    const config: DevnetConfig = {
      engine: "cometbft",
      moniker: n.name,
      node_id: n.nodeId,
      block_time: formatGoDuration(blockTime),
      rpc_laddr: `127.0.0.1:${n.rpcPort}`,
      rest_laddr: "127.0.0.1:0",
      grpc_laddr: "127.0.0.1:0",
      max_txs_per_block: 100,
    };
    await writeJsonFile(join(n.home, "config", "devnet.json"), config);
  }
  const keysFile: GenesisKeysFile = { chain_id: o.chainId, bech32_prefix: BECH32_PREFIX, hd_path: HD_PATH, keys };
  await mkdir(dir, { recursive: true });
  await writeJsonFile(genesisKeysPath(dir), keysFile, 0o600);
  const described: TestnetNode[] = nodes.map((n) => ({
    name: n.name,
    home: n.home,
    node_id: n.nodeId,
    rpc: `http://127.0.0.1:${n.rpcPort}`,
    p2p: `127.0.0.1:${n.p2pPort}`,
    validator_address: n.validatorKey.address,
  }));
  await writeJsonFile(testnetFilePath(dir), { chain_id: o.chainId, engine: "cometbft", nodes: described });
  return { home: dir, chainId: o.chainId, nodes: described, keysFile: genesisKeysPath(dir), keys };
}
