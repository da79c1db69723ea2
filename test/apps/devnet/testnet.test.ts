/**
 * A CometBFT testnet's files without running it: `initTestnet` and `devnet init --engine cometbft` (node
 * homes in CometBFT's own formats, one genesis byte for byte, distinct loopback ports below the ephemeral
 * range, every other node a persistent peer, the keys `initDevnet` derives, the test keyring); CometBFT
 * itself reads them as written (when `npm run peers` has built it); and the clear errors: a home of the
 * other engine, a block time for a CometBFT node, no CometBFT, the wrong CometBFT.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { afterAll, describe, expect, it } from "vitest";
import { peerBinaries } from "../../../scripts/peers/paths.mjs";
import { findCometbft, initDevnet, initTestnet, silentLogger, startDevnet, type InitTestnetResult } from "../../../bindings/apps/devnet/index.js";
import { processesMentioning } from "../../support/processes.js";
import { consensusKeyFromSeed } from "../../../bindings/apps/devnet/chain/keys.js";
import { errorLine, runCli } from "../cli/helpers.js";
import { removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const COMETBFT = peerBinaries().cometbft;
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("initTestnet: CometBFT node homes", () => {
  let t: InitTestnetResult;

  it("writes one home per validator in CometBFT's formats, with the shared genesis and the devnet's keys", async () => {
    const dir = tempDir("xupgrade-testnet-");
    t = await initTestnet({ home: dir, validators: 3, votingPeriod: "7s", blockTime: "250ms" });
    expect(t.nodes.map((n) => n.name)).toEqual(["node0", "node1", "node2"]);
    expect(json(join(dir, "testnet.json"))).toEqual({ chain_id: "xupgrade-devnet-1", engine: "cometbft", nodes: t.nodes });

    const genesis = readFileSync(join(t.nodes[0].home, "config", "genesis.json"));
    const g = JSON.parse(genesis.toString("utf8"));
    expect(Object.keys(g)).toEqual(["genesis_time", "chain_id", "initial_height", "consensus_params", "validators", "app_hash", "app_state"]);
    expect(g.consensus_params.validator).toEqual({ pub_key_types: ["ed25519"] });
    expect(g.validators.map((v: { power: string; name: string }) => [v.name, v.power])).toEqual([
      ["validator0", "100"],
      ["validator1", "100"],
      ["validator2", "100"],
    ]);
    expect(g.app_state.gov.params.voting_period).toBe("7s");

    // The same keys as a single-process devnet of the same options.
    const local = tempDir();
    await initDevnet({ home: local, validators: 3, votingPeriod: "7s", genesisTime: g.genesis_time });
    expect(g.app_state).toEqual(json(join(local, "config", "genesis.json")).app_state);

    const ports = new Set<number>();
    for (const [i, n] of t.nodes.entries()) {
      const home = n.home;
      expect(readFileSync(join(home, "config", "genesis.json"))).toEqual(genesis);
      const pv = json(join(home, "config", "priv_validator_key.json"));
      const priv = Buffer.from(pv.priv_key.value, "base64");
      expect(priv).toHaveLength(64);
      const key = consensusKeyFromSeed(new Uint8Array(priv.subarray(0, 32)));
      expect(Buffer.from(key.publicKey).toString("base64")).toBe(pv.pub_key.value);
      expect(pv.address).toBe(g.validators[i].address);
      expect(pv.pub_key).toEqual(g.validators[i].pub_key);
      expect(statSync(join(home, "config", "priv_validator_key.json")).mode & 0o777).toBe(0o600);
      expect(statSync(join(home, "config", "node_key.json")).mode & 0o777).toBe(0o600);
      expect(json(join(home, "data", "priv_validator_state.json"))).toEqual({ height: "0", round: 0, step: 0 });
      expect(json(join(home, "config", "devnet.json"))).toMatchObject({
        engine: "cometbft",
        moniker: n.name,
        node_id: n.node_id,
        block_time: "250ms",
        rest_laddr: "127.0.0.1:0",
      });

      const toml = parseToml(readFileSync(join(home, "config", "config.toml"), "utf8"));
      expect(toml.moniker).toBe(n.name);
      expect(toml.log_format).toBe("json");
      expect(toml.rpc).toMatchObject({ laddr: `tcp://${n.rpc.slice("http://".length)}`, cors_allowed_origins: ["*"] });
      expect(toml.p2p).toMatchObject({ laddr: `tcp://${n.p2p}`, addr_book_strict: false, allow_duplicate_ip: true, pex: false });
      expect(toml.consensus).toMatchObject({ timeout_commit: "250ms" });
      expect(toml.instrumentation).toEqual({ prometheus: false });
      const peers = (toml.p2p as { persistent_peers: string }).persistent_peers.split(",");
      expect(peers.sort()).toEqual(
        t.nodes
          .filter((o) => o !== n)
          .map((o) => `${o.node_id}@${o.p2p}`)
          .sort(),
      );
      for (const p of [Number(new URL(n.rpc).port), Number(n.p2p.split(":")[1])]) {
        expect(p).toBeGreaterThanOrEqual(20_000);
        expect(p).toBeLessThan(32_768);
        ports.add(p);
      }
    }
    expect(ports.size).toBe(6);
  });

  it.skipIf(!COMETBFT)("CometBFT reads the node homes as written: node id and validator key", () => {
    for (const n of t.nodes) {
      const id = spawnSync(COMETBFT!, ["show-node-id", "--home", n.home], { encoding: "utf8" });
      expect(id.stdout.trim(), id.stderr).toBe(n.node_id);
      const val = spawnSync(COMETBFT!, ["show-validator", "--home", n.home], { encoding: "utf8" });
      expect(JSON.parse(val.stdout).value).toBe(json(join(n.home, "config", "priv_validator_key.json")).pub_key.value);
    }
  });

  it("refuses to write over a testnet, and bad options, with clear errors", async () => {
    await expect(initTestnet({ home: t.home })).rejects.toThrow(
      /testnet\.json already exists: the testnet is already initialised \(pass overwrite to replace it\)$/,
    );
    await expect(initTestnet({ home: tempDir(), blockTime: "fast" })).rejects.toThrow(/^invalid block time "fast": /);
    const again = await initTestnet({ home: t.home, validators: 2, overwrite: true });
    expect(again.nodes).toHaveLength(2);
  });
});

describe("devnet init --engine cometbft (the CLI)", () => {
  it("writes the testnet and imports the genesis keys into its test keyring", async () => {
    const dir = tempDir("xupgrade-testnet-cli-");
    const r = await runCli(["devnet", "init", "--engine", "cometbft", "--home", dir, "--validators", "2"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^initialised testnet xupgrade-devnet-1 in .+: 2 CometBFT validators\n {2}node0 {2}rpc http:\/\/127\.0\.0\.1:\d+ {2}p2p 127\.0\.0\.1:\d+ {2}id [0-9a-f]{40} {2}home .+node0\n/,
    );
    const keys = await runCli(["keys", "list", "--keyring-backend", "test", "--home", dir, "-o", "json"]);
    expect((JSON.parse(keys.stdout) as { name: string }[]).map((k) => k.name).sort()).toEqual(["alice", "bob", "validator0", "validator1"]);
  });

  it("refuses flags that would give every node the same address, and an unknown engine", async () => {
    expect(errorLine(await runCli(["devnet", "init", "--engine", "cometbft", "--home", tempDir(), "--rpc", "127.0.0.1:0"]))).toBe(
      "--rpc cannot be used with --engine cometbft: every node gets its own name and free loopback ports (see <home>/testnet.json)",
    );
    expect(errorLine(await runCli(["devnet", "init", "--engine", "tendermint", "--home", tempDir()]))).toBe(
      'invalid --engine "tendermint": must be local or cometbft',
    );
    expect(errorLine(await runCli(["devnet", "start", "--engine", "x", "--home", tempDir()]))).toBe('invalid --engine "x": must be local or cometbft');
  });
});

describe("starting a node: the engine must fit the home, and CometBFT must be there and v0.38", () => {
  it("says which engine a home is for", async () => {
    const local = tempDir();
    await initDevnet({ home: local });
    await expect(startDevnet({ home: local, engine: "cometbft" })).rejects.toThrow(
      /is a single-process devnet home: initialise a CometBFT testnet with `xupgrade devnet init --engine cometbft`/,
    );
    const net = await initTestnet({ home: tempDir(), validators: 1 });
    await expect(startDevnet({ home: net.nodes[0].home, engine: "local" })).rejects.toThrow(
      /is a CometBFT node home \(devnet init --engine cometbft\): start it with --engine cometbft$/,
    );
    await expect(startDevnet({ home: net.nodes[0].home, blockTime: "1s" })).rejects.toThrow(
      /^the block time of a CometBFT node is its timeout_commit: set it in .+config\.toml$/,
    );
  });

  it.skipIf(!COMETBFT)("a CometBFT that cannot start (its RPC port taken) fails the start with its own words, and leaves nothing running", async () => {
    const net = await initTestnet({ home: tempDir(), validators: 1 });
    const port = Number(new URL(net.nodes[0].rpc).port);
    const blocker = createServer().listen(port, "127.0.0.1");
    await once(blocker, "listening");
    try {
      const e = await startDevnet({ home: net.nodes[0].home, cometbft: COMETBFT, logger: silentLogger }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(String(e)).toMatch(/CometBFT exited \(exit code 1\); its last lines:\n[\s\S]*address already in use/);
      expect(processesMentioning(net.nodes[0].home)).toEqual([]);
    } finally {
      blocker.close();
    }
  });

  it("finds CometBFT or says what to install; refuses a binary that is not CometBFT v0.38", () => {
    const dir = tempDir();
    expect(() => findCometbft(join(dir, "missing"))).toThrow(
      /missing \(from --cometbft\) does not exist: pass --cometbft <path>, set XUPGRADE_COMETBFT, put CometBFT v0\.38 on PATH, or run `npm run peers`/,
    );
    const fake = (name: string, out: string) => {
      const p = join(dir, name);
      writeFileSync(p, `#!/bin/sh\necho '${out}'\n`);
      chmodSync(p, 0o755);
      return p;
    };
    expect(() => findCometbft(fake("old", "0.37.4"))).toThrow(/is CometBFT 0\.37\.4; the devnet speaks the ABCI\+\+ of CometBFT v0\.38\.x$/);
    expect(() => findCometbft(fake("old", "0.37.4"))).toThrow(expect.objectContaining({ name: "DevnetError", kind: "cometbft" }));
    expect(() => findCometbft(fake("other", "hello"))).toThrow(/is not a working CometBFT: `.+ version` printed "hello\\n"$/);
    const env = { ...process.env };
    try {
      process.env.XUPGRADE_COMETBFT = fake("env", "0.38.99");
      expect(findCometbft()).toMatchObject({ version: "0.38.99", source: "env" });
      delete process.env.XUPGRADE_COMETBFT;
      process.env.PATH = "/nonexistent";
      process.env.XUPGRADE_PEERS_DIR = join(dir, "no-peers");
      expect(() => findCometbft()).toThrow(/^no CometBFT binary found: pass --cometbft <path>/);
      if (COMETBFT) {
        process.env.XUPGRADE_PEERS_DIR = join(COMETBFT, "..", "..", "..");
        expect(findCometbft().source).toBe("peers");
      }
    } finally {
      process.env = env;
    }
  });
});
