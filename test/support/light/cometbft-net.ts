/**
 * Real CometBFT v0.38 networks on loopback for the light client's tests, with CometBFT's built-in kvstore
 * application (no SDK needed to test headers): `cometbft testnet` homes rewritten to free ports, peers of each
 * other, CORS open, fast blocks. A network can use secp256k1 validator keys (written here in CometBFT's key
 * format), and can be forked: a copy of a one-validator home started on its own makes a second chain with
 * the same genesis, chain id and validator — two valid histories from height 2 on. The test owns the validators'
 * keys (`validatorKeys`), so it can sign what the network never did (a lunatic header), and reads back what a
 * node committed (`committedEvidence`).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fromBase64, toBase64, toHex } from "@cosmjs/encoding";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keyAddress } from "../../../bindings/light/validators.js";
import { spawnCollected, type CollectedChild } from "../child.js";
import { freePorts } from "../../../bindings/base/ports.js";
import { tempDir } from "../temp.js";
import { waitUntil } from "../wait.js";
import { runOk, setToml } from "../../interop/support/simd.js";

export interface NetNode {
  home: string;
  rpcUrl: string;
  child?: CollectedChild<string>;
}

export interface Net {
  chainId: string;
  nodes: NetNode[];
  /** Starts every node (or one) and waits for the first blocks. */
  start(): Promise<void>;
  stop(): Promise<void>;
  height(node?: number): Promise<bigint>;
  waitForHeight(h: bigint, node?: number): Promise<void>;
}

export interface NetOptions {
  cometbft: string;
  chainId: string;
  validators: number;
  /** Voting power of validator i (default 10 each). */
  power?: (i: number) => number;
  keyType?: "ed25519" | "secp256k1";
  timeoutCommit?: string;
}

const q = (s: string) => JSON.stringify(s);

export async function rpcHeight(url: string): Promise<bigint> {
  try {
    const r = (await (await fetch(`${url}/status`, { signal: AbortSignal.timeout(3000) })).json()) as {
      result: { sync_info: { latest_block_height: string } };
    };
    return BigInt(r.result.sync_info.latest_block_height);
  } catch {
    return 0n;
  }
}

/** A secp256k1 validator key in CometBFT's priv_validator_key.json format. */
function secpKey(seed: string): { file: unknown; pub: string; address: string } {
  const priv = sha256(new TextEncoder().encode(seed));
  const pub = secp256k1.getPublicKey(priv, true);
  const address = toHex(keyAddress("secp256k1", pub)).toUpperCase();
  return {
    file: {
      address,
      pub_key: { type: "tendermint/PubKeySecp256k1", value: toBase64(pub) },
      priv_key: { type: "tendermint/PrivKeySecp256k1", value: toBase64(priv) },
    },
    pub: toBase64(pub),
    address,
  };
}

export async function cometbftNet(o: NetOptions): Promise<Net> {
  const dir = tempDir("xupgrade-light-net-");
  await runOk(o.cometbft, ["testnet", "--v", String(o.validators), "--o", dir, "--populate-persistent-peers=false"]);
  const homes = Array.from({ length: o.validators }, (_, i) => join(dir, `node${i}`));
  const ids = await Promise.all(homes.map(async (home) => (await runOk(o.cometbft, ["show-node-id", "--home", home])).stdout.trim()));
  // One genesis for all: the chain id, the powers, and (for secp256k1) the keys and the allowed key type.
  const genesis = JSON.parse(readFileSync(join(homes[0], "config/genesis.json"), "utf8")) as {
    chain_id: string;
    validators: { address: string; pub_key: { type: string; value: string }; power: string; name: string }[];
    consensus_params: { validator: { pub_key_types: string[] } };
  };
  genesis.chain_id = o.chainId;
  const byAddress = new Map<string, number>();
  homes.forEach((home, i) => {
    const key = JSON.parse(readFileSync(join(home, "config/priv_validator_key.json"), "utf8")) as { address: string };
    byAddress.set(key.address, i);
  });
  genesis.validators = genesis.validators.map((v) => {
    const i = byAddress.get(v.address)!;
    const power = String(o.power?.(i) ?? 10);
    if (o.keyType === "secp256k1") {
      const k = secpKey(`${o.chainId}/validator/${i}`);
      writeFileSync(join(homes[i], "config/priv_validator_key.json"), JSON.stringify(k.file, null, 2));
      return { address: k.address, pub_key: { type: "tendermint/PubKeySecp256k1", value: k.pub }, power, name: `node${i}` };
    }
    return { ...v, power };
  });
  if (o.keyType === "secp256k1") genesis.consensus_params.validator.pub_key_types = ["secp256k1"];

  for (const home of homes) writeFileSync(join(home, "config/genesis.json"), JSON.stringify(genesis, null, 2));
  const nodes: NetNode[] = homes.map((home) => ({ home, rpcUrl: "" }));
  /** Free ports for every node, written to their configs (again when one was taken before CometBFT bound it). */
  const configure = async () => {
    const ports = await freePorts(2 * o.validators);
    homes.forEach((home, i) => {
      const peers = homes
        .map((_, j) => (j === i ? "" : `${ids[j]}@127.0.0.1:${ports[2 * j + 1]}`))
        .filter(Boolean)
        .join(",");
      const file = join(home, "config/config.toml");
      let cfg = readFileSync(file, "utf8");
      cfg = setToml(cfg, "", "proxy_app", q("kvstore"));
      cfg = setToml(cfg, "", "log_level", q("error"));
      cfg = setToml(cfg, "rpc", "laddr", q(`tcp://127.0.0.1:${ports[2 * i]}`));
      cfg = setToml(cfg, "rpc", "cors_allowed_origins", '["*"]');
      cfg = setToml(cfg, "p2p", "laddr", q(`tcp://127.0.0.1:${ports[2 * i + 1]}`));
      cfg = setToml(cfg, "p2p", "persistent_peers", q(peers));
      cfg = setToml(cfg, "consensus", "timeout_commit", q(o.timeoutCommit ?? "300ms"));
      writeFileSync(file, cfg);
      nodes[i].rpcUrl = `http://127.0.0.1:${ports[2 * i]}`;
    });
  };
  await configure();
  return netOf(o.cometbft, o.chainId, nodes, configure);
}

const BIND_FAILED = /bind: address already in use/;

function netOf(cometbft: string, chainId: string, nodes: NetNode[], configure: () => Promise<void>): Net {
  const net: Net = {
    chainId,
    nodes,
    async start() {
      // Another process may take a port between freePorts() and CometBFT's bind: then all ports are picked again.
      for (let attempt = 1; ; attempt++) {
        for (const n of nodes) n.child ??= spawnCollected(cometbft, ["start", "--home", n.home]);
        try {
          await net.waitForHeight(2n);
          return;
        } catch (e) {
          const taken = nodes.some((n) => n.child && n.child.proc.exitCode !== null && BIND_FAILED.test(n.child.stderr() + n.child.records.join("\n")));
          if (!taken || attempt >= 3) throw e;
          await net.stop();
          await configure();
        }
      }
    },
    async stop() {
      await Promise.all(nodes.map(async (n) => n.child?.kill()));
      for (const n of nodes) n.child = undefined;
    },
    height: (i = 0) => rpcHeight(nodes[i].rpcUrl),
    async waitForHeight(h, i = 0) {
      await waitUntil(
        async () => {
          for (const n of nodes) {
            const c = n.child;
            if (c && c.proc.exitCode !== null) throw new Error(`cometbft exited (${c.proc.exitCode}): ${(c.stderr() + c.records.join("\n")).slice(-2000)}`);
          }
          return (await rpcHeight(nodes[i].rpcUrl)) >= h;
        },
        60_000,
        `height ${h} on ${nodes[i].rpcUrl}`,
      );
    },
  };
  return net;
}

/**
 * A fork of a one-validator network that has not started: its home copied, on its own ports and without
 * peers. Both sides share genesis, chain id and validator key, and sign different blocks from height 2 on
 * (their times differ) — the double signing a light client attack needs.
 */
export async function forkOf(cometbft: string, net: Net): Promise<Net> {
  if (net.nodes.length !== 1 || net.nodes[0].child) throw new Error("fork a one-validator network before it starts");
  const home = join(tempDir("xupgrade-light-fork-"), "node0");
  cpSync(net.nodes[0].home, home, { recursive: true });
  const node: NetNode = { home, rpcUrl: "" };
  const configure = async () => {
    const [rpc, p2p] = await freePorts(2);
    const file = join(home, "config/config.toml");
    let cfg = readFileSync(file, "utf8");
    cfg = setToml(cfg, "rpc", "laddr", q(`tcp://127.0.0.1:${rpc}`));
    cfg = setToml(cfg, "p2p", "laddr", q(`tcp://127.0.0.1:${p2p}`));
    cfg = setToml(cfg, "p2p", "persistent_peers", q(""));
    writeFileSync(file, cfg);
    node.rpcUrl = `http://127.0.0.1:${rpc}`;
  };
  await configure();
  return netOf(cometbft, net.chainId, [node], configure);
}

/** A validator's ed25519 key, from its home's priv_validator_key.json. */
export interface ValidatorKey {
  address: Uint8Array;
  /** The 32-byte seed (CometBFT keeps seed ‖ public key). */
  secret: Uint8Array;
}

export function validatorKeys(net: Net): ValidatorKey[] {
  return net.nodes.map((n) => {
    const k = JSON.parse(readFileSync(join(n.home, "config/priv_validator_key.json"), "utf8")) as {
      address: string;
      priv_key: { type: string; value: string };
    };
    if (k.priv_key.type !== "tendermint/PrivKeyEd25519") throw new Error(`${n.home}: not an ed25519 key (${k.priv_key.type})`);
    return { address: Uint8Array.from(Buffer.from(k.address, "hex")), secret: fromBase64(k.priv_key.value).subarray(0, 32) };
  });
}

/** One piece of evidence in a committed block, as the node's `/block` writes it. */
export interface CommittedEvidence {
  height: bigint;
  evidence: { type: string; value: Record<string, unknown> };
}

/**
 * Waits for the node to commit evidence that `matches`, reading each block from `from` on as the node reaches it
 * (the evidence goes into a block its proposer makes once the evidence is pending).
 */
export async function committedEvidence(url: string, from: bigint, matches: (e: CommittedEvidence["evidence"]) => boolean): Promise<CommittedEvidence> {
  let h = from;
  return waitUntil(
    async () => {
      while (h <= (await rpcHeight(url))) {
        const r = (await (await fetch(`${url}/block?height=${h}`, { signal: AbortSignal.timeout(5000) })).json()) as {
          result: { block: { evidence: { evidence: CommittedEvidence["evidence"][] | null } } };
        };
        const evidence = (r.result.block.evidence.evidence ?? []).find(matches);
        if (evidence) return { height: h, evidence };
        h++;
      }
      return false;
    },
    60_000,
    `evidence committed on ${url} from height ${from}`,
  );
}
