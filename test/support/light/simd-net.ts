/**
 * A real multi-validator simd v0.50 network on loopback (`simd testnet init-files`), for verifying x/upgrade
 * state against commits signed by several validators: every node on 127.0.0.1 with free ports, peers of each
 * other, short gov periods, fast blocks, REST and CORS on. Gov proposals go in from node0's validator account
 * and are voted yes by enough validators to pass.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnCollected, type CollectedChild } from "../child.js";
import { freePorts } from "../../../bindings/base/ports.js";
import { tempDir } from "../temp.js";
import { waitUntil } from "../wait.js";
import { eventAttr, proposalJson, rpcTx, runOk, setToml, type TxResult } from "../../interop/support/simd.js";

export interface SimdNetNode {
  home: string;
  key: string;
  rpcUrl: string;
  restUrl: string;
  child?: CollectedChild<string>;
}

export interface SimdNet {
  chainId: string;
  binary: string;
  nodes: SimdNetNode[];
  start(): Promise<void>;
  stop(): Promise<void>;
  height(node?: number): Promise<bigint>;
  waitForHeight(h: bigint, node?: number): Promise<void>;
  /** Submits a proposal carrying `msg` from node0 and has the first `voters` validators vote yes; resolves once it passed. */
  pass(msg: Record<string, unknown>, voters?: number): Promise<number>;
  /** Submits a proposal carrying `msg` from node0 (its deposit puts it straight into its voting period); resolves to its id. */
  propose(msg: Record<string, unknown>): Promise<number>;
}

const q = (s: string) => JSON.stringify(s);

async function height(url: string): Promise<bigint> {
  try {
    const r = (await (await fetch(`${url}/status`, { signal: AbortSignal.timeout(3000) })).json()) as {
      result: { sync_info: { latest_block_height: string } };
    };
    return BigInt(r.result.sync_info.latest_block_height);
  } catch {
    return 0n;
  }
}

export async function simdNet(o: { binary: string; chainId: string; validators: number; votingPeriod?: string; timeoutCommit?: string }): Promise<SimdNet> {
  const dir = tempDir("xupgrade-light-simd-net-");
  await runOk(o.binary, [
    "testnet",
    "init-files",
    "--v",
    String(o.validators),
    "-o",
    dir,
    "--chain-id",
    o.chainId,
    "--keyring-backend",
    "test",
    "--starting-ip-address",
    "127.0.0.1",
  ]);
  const homes = Array.from({ length: o.validators }, (_, i) => join(dir, `node${i}`, "simd"));
  const ids = await Promise.all(homes.map(async (home) => (await runOk(o.binary, ["comet", "show-node-id", "--home", home])).stdout.trim()));
  const ports = await freePorts(4 * o.validators);
  const period = o.votingPeriod ?? "6s";

  const genesisFile = (home: string) => join(home, "config/genesis.json");
  const genesis = JSON.parse(readFileSync(genesisFile(homes[0]), "utf8")) as { app_state: { gov: { params: Record<string, unknown> } } };
  Object.assign(genesis.app_state.gov.params, { voting_period: period, max_deposit_period: period, expedited_voting_period: "1s" });

  const nodes: SimdNetNode[] = homes.map((home, i) => {
    const [rpc, p2p, grpc, api] = ports.slice(4 * i, 4 * i + 4);
    writeFileSync(genesisFile(home), JSON.stringify(genesis, null, 2));
    const peers = homes
      .map((_, j) => (j === i ? "" : `${ids[j]}@127.0.0.1:${ports[4 * j + 1]}`))
      .filter(Boolean)
      .join(",");
    const cfgFile = join(home, "config/config.toml");
    let cfg = readFileSync(cfgFile, "utf8");
    cfg = setToml(cfg, "rpc", "laddr", q(`tcp://127.0.0.1:${rpc}`));
    cfg = setToml(cfg, "rpc", "cors_allowed_origins", '["*"]');
    cfg = setToml(cfg, "rpc", "pprof_laddr", q(""));
    cfg = setToml(cfg, "p2p", "laddr", q(`tcp://127.0.0.1:${p2p}`));
    cfg = setToml(cfg, "p2p", "persistent_peers", q(peers));
    cfg = setToml(cfg, "p2p", "allow_duplicate_ip", "true");
    cfg = setToml(cfg, "consensus", "timeout_commit", q(o.timeoutCommit ?? "500ms"));
    writeFileSync(cfgFile, cfg);
    const appFile = join(home, "config/app.toml");
    let app = readFileSync(appFile, "utf8");
    app = setToml(app, "api", "enable", "true");
    app = setToml(app, "api", "address", q(`tcp://127.0.0.1:${api}`));
    app = setToml(app, "api", "enabled-unsafe-cors", "true");
    app = setToml(app, "grpc", "address", q(`127.0.0.1:${grpc}`));
    writeFileSync(appFile, app);
    return { home, key: `node${i}`, rpcUrl: `http://127.0.0.1:${rpc}`, restUrl: `http://127.0.0.1:${api}` };
  });

  const tx = async (node: SimdNetNode, args: string[]): Promise<TxResult> => {
    const flags = [
      "--from",
      node.key,
      "--keyring-backend",
      "test",
      "--home",
      node.home,
      "--chain-id",
      o.chainId,
      "--node",
      `tcp://${node.rpcUrl.slice(7)}`,
      "--yes",
      "--output",
      "json",
      "--gas",
      "400000",
      "--fees",
      "2000stake",
    ];
    const r = await runOk(o.binary, [...args, ...flags]);
    const res = JSON.parse(r.stdout.slice(r.stdout.indexOf("{"))) as { code: number; txhash: string; raw_log?: string };
    if (res.code !== 0) throw new Error(`simd ${args.join(" ")}: CheckTx code ${res.code}: ${res.raw_log}`);
    const done = await waitUntil(() => rpcTx(node.rpcUrl, res.txhash), 30_000, `tx ${res.txhash}`);
    if (done.code !== 0) throw new Error(`simd ${args.join(" ")}: DeliverTx code ${done.code}: ${done.log}`);
    return done;
  };

  const net: SimdNet = {
    chainId: o.chainId,
    binary: o.binary,
    nodes,
    async start() {
      for (const n of nodes) n.child ??= spawnCollected(o.binary, ["start", "--home", n.home, "--log_level", "error"]);
      await net.waitForHeight(3n);
    },
    async stop() {
      await Promise.all(nodes.map(async (n) => n.child?.kill()));
      for (const n of nodes) n.child = undefined;
    },
    height: (i = 0) => height(nodes[i].rpcUrl),
    async waitForHeight(h, i = 0) {
      await waitUntil(
        async () => {
          for (const n of nodes)
            if (n.child && n.child.proc.exitCode !== null) throw new Error(`simd exited (${n.child.proc.exitCode}): ${n.child.stderr().slice(-2000)}`);
          return (await height(nodes[i].rpcUrl)) >= h;
        },
        90_000,
        `height ${h} on ${nodes[i].rpcUrl}`,
      );
    },
    async propose(msg) {
      const file = join(tempDir("xupgrade-light-proposal-"), "proposal.json");
      writeFileSync(file, proposalJson(msg));
      const submitted = await tx(nodes[0], ["tx", "gov", "submit-proposal", file]);
      return Number(eventAttr(submitted, "submit_proposal", "proposal_id"));
    },
    async pass(msg, voters = Math.ceil((2 * nodes.length) / 3)) {
      const id = await net.propose(msg);
      for (const n of nodes.slice(0, voters)) await tx(n, ["tx", "gov", "vote", String(id), "yes"]);
      await waitUntil(
        async () => {
          const r = await runOk(o.binary, ["query", "gov", "proposal", String(id), "--node", `tcp://${nodes[0].rpcUrl.slice(7)}`, "--output", "json"]);
          const status = (JSON.parse(r.stdout) as { proposal?: { status: string } }).proposal?.status;
          if (status === "PROPOSAL_STATUS_FAILED" || status === "PROPOSAL_STATUS_REJECTED") throw new Error(`proposal ${id} ended ${status}`);
          return status === "PROPOSAL_STATUS_PASSED";
        },
        60_000,
        `proposal ${id} to pass`,
      );
      return id;
    },
  };
  return net;
}
