/**
 * The CLI against the real devnet, both spawned as processes on loopback ports: init, import the genesis
 * keys, start v1, query, cancel with nothing scheduled, schedule an upgrade through gov, vote, watch the
 * plan, halt at the height (exit 20), start v2, `applied` and `module_versions`, stop.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOV, ROOT, errorLine, removeTempDirs, runCli, stageCli, tempDir } from "./helpers.js";

const VOTING = 12; // seconds; also the deposit period
const BLOCK_MS = 100;

interface Node {
  url: string;
  child: ChildProcess;
  exit: Promise<number | null>;
  log: () => string;
}

let home = "";
let node: Node | undefined;

/** `xupgrade devnet start` as a child process; resolves once it prints where its RPC listens. */
function startNode(app: string): Promise<Node> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(ROOT, "bindings/apps/cli/main.ts"), "devnet", "start", "--home", home, "--app", app, "--log-level", "warn"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    const exit = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /devnet running: rpc (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1], child, exit, log: () => out });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`devnet exited with ${code} before serving:\n${out}`)));
    setTimeout(() => reject(new Error(`devnet did not start:\n${out}`)), 60_000);
  });
}

const cli = (args: string[], input?: string) => runCli([...args, "--node", node!.url], { input });
const keyring = () => ["--keyring-backend", "test", "--home", home];

async function height(): Promise<number> {
  const res = await fetch(node!.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "status", params: {} }) });
  return Number(((await res.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

beforeAll(async () => {
  home = tempDir("xupgrade-cli-devnet-");
  const init = await runCli([
    "devnet",
    "init",
    "--home",
    home,
    "--voting-period",
    `${VOTING}s`,
    "--deposit-period",
    `${VOTING}s`,
    "--block-time",
    `${BLOCK_MS}ms`,
    "--rpc",
    "127.0.0.1:0",
    "--rest",
    "127.0.0.1:0",
    "--grpc",
    "127.0.0.1:0",
  ]);
  expect(init.stderr).toMatch(/^initialised devnet xupgrade-devnet-1 in /);
  expect(init.code).toBe(0);
  const imported = await runCli(["keys", "import-genesis", "-o", "json", ...keyring()]);
  expect(imported.code).toBe(0);
  expect((JSON.parse(imported.stdout) as { name: string }[]).map((k) => k.name)).toEqual([
    "validator0",
    "validator1",
    "validator2",
    "validator3",
    "alice",
    "bob",
  ]);
  node = await startNode(join(ROOT, "examples/apps/v1"));
}, 120_000);

afterAll(async () => {
  if (node && node.child.exitCode === null) {
    node.child.kill("SIGTERM");
    await node.exit;
  }
  removeTempDirs();
});

describe.sequential("the CLI against a running devnet", () => {
  let upgradeHeight = 0;

  it("queries a fresh chain", async () => {
    expect(errorLine(await cli(["query", "upgrade", "plan"]))).toBe("no upgrade scheduled");
    expect(errorLine(await cli(["query", "upgrade", "applied", "v2"]))).toBe("no upgrade found");
    const versions = await cli(["query", "upgrade", "module_versions", "-o", "json"]);
    expect(versions.code).toBe(0);
    expect(JSON.parse(versions.stdout).module_versions).toContainEqual({ name: "upgrade", version: "2" });
    expect((await cli(["query", "upgrade", "module-versions", "upgrade"])).stdout).toBe('module_versions:\n- name: upgrade\n  version: "2"\n');
    expect(errorLine(await cli(["query", "upgrade", "module_versions", "foo"]))).toBe(
      "rpc error: code = Unknown desc = x/upgrade: QueryModuleVersions module foo not found: module version not found: unknown request",
    );
    expect((await cli(["query", "upgrade", "authority"])).stdout).toBe(`address: ${GOV}\n`);
    expect((await cli(["query", "upgrade", "authority", "-o", "json"])).stdout).toBe(`{"address":"${GOV}"}\n`);
    expect(errorLine(await cli(["query", "gov", "proposal", "99"]))).toMatch(/^rpc error: code = \w+ desc = .*99/);
  }, 120_000);

  it("a cancel proposal with nothing scheduled warns and is submitted", async () => {
    const r = await cli([
      "tx",
      "upgrade",
      "cancel-software-upgrade",
      "--title",
      "Cancel",
      "--summary",
      "Nothing to cancel",
      "--deposit",
      "10000000stake",
      "--from",
      "alice",
      ...keyring(),
      "-y",
      "-o",
      "json",
    ]);
    expect(r.stderr).toBe(
      "warning: no upgrade is currently scheduled; this proposal has an effect only if an upgrade proposal passes before its voting period ends\n",
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(["txhash", "code", "height", "proposal_id"]);
    expect(out).toMatchObject({ code: 0, proposal_id: "1" });
    expect(out.txhash).toMatch(/^[0-9A-F]{64}$/);
  }, 120_000);

  it("refuses a height that is not in the future", async () => {
    const r = await cli([
      "tx",
      "upgrade",
      "software-upgrade",
      "v2",
      "--title",
      "t",
      "--summary",
      "s",
      "--upgrade-height",
      "2",
      "--no-validate",
      "--from",
      "alice",
      ...keyring(),
      "-y",
    ]);
    expect(errorLine(r)).toMatch(/^upgrade height 2 must be greater than the current height \d+$/);
  }, 60_000);

  it("a transaction signed for another chain is refused by the node", async () => {
    const r = await cli(["tx", "gov", "vote", "1", "yes", "--from", "validator0", ...keyring(), "-y", "--chain-id", "other-chain"]);
    expect(errorLine(r)).toMatch(
      /^broadcast failed \(codespace sdk code 4\): signature verification failed; please verify account number \(\d+\), sequence \(\d+\) and chain-id \(xupgrade-devnet-1\): unauthorized$/,
    );
  }, 60_000);

  it("a key without an account cannot sign", async () => {
    expect((await runCli(["keys", "add", "nobody", ...keyring()])).code).toBe(0);
    const address = (await runCli(["keys", "show", "nobody", "-a", ...keyring()])).stdout.trim();
    const r = await cli(["tx", "gov", "vote", "1", "yes", "--from", "nobody", ...keyring(), "-y"]);
    expect(errorLine(r)).toBe(`account ${address} not found on the chain (it must receive funds before it can sign)`);
  }, 60_000);

  it("schedules an upgrade through gov: submit, vote, plan", async () => {
    // The votes are staged before the proposal exists (stageCli): the voting period holds their broadcasts only.
    const ballots = [0, 1, 2, 3].map((v) =>
      stageCli(["tx", "gov", "vote", "2", "yes", "--from", `validator${v}`, ...keyring(), "--node", node!.url, "-o", "json"]),
    );
    await Promise.all(ballots.map((b) => b.ready));
    upgradeHeight = (await height()) + Math.ceil((2.2 * VOTING * 1000) / BLOCK_MS);
    const submit = await cli([
      "tx",
      "upgrade",
      "software-upgrade",
      "v2",
      "--title",
      "Upgrade to v2",
      "--summary",
      "Switch to v2",
      "--deposit",
      "10000000stake",
      "--upgrade-height",
      String(upgradeHeight),
      "--no-validate",
      "--from",
      "alice",
      ...keyring(),
      "-y",
    ]);
    if (submit.code !== 0) await Promise.all(ballots.map((b) => b.cancel()));
    expect(submit.code).toBe(0);
    // 2*(12s+12s) needs ~480 blocks at 100ms: more than the ~264 left, so the warning is printed.
    expect(submit.stderr).toMatch(
      new RegExp(
        `^warning: upgrade at height ${upgradeHeight} is \\d+ blocks \\(~[0-9.]+m?s\\) away, but cancelling it needs 2\\*\\(voting_period\\+deposit_period\\)\\+safety_delta = 48s \\(~\\d+ blocks at [0-9.]+ms per block\\); a cancel proposal could not pass in time\\n$`,
      ),
    );
    expect(submit.stdout).toMatch(/^code: 0\nheight: "\d+"\nproposal_id: "2"\ntxhash: [0-9A-F]{64}\n$/);

    const votes = (await Promise.all(ballots.map((b) => b.confirm()))).map((r) => (r.code === 0 ? JSON.parse(r.stdout).code : r.stderr));
    expect(votes).toEqual([0, 0, 0, 0]);

    const proposal = await cli(["query", "gov", "proposal", "2", "-o", "json"]);
    const p = JSON.parse(proposal.stdout).proposal;
    expect(p).toMatchObject({
      id: "2",
      title: "Upgrade to v2",
      status: "PROPOSAL_STATUS_VOTING_PERIOD",
      total_deposit: [{ denom: "stake", amount: "10000000" }],
    });
    expect(p.messages).toEqual([
      {
        "@type": "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade",
        authority: GOV,
        plan: { name: "v2", time: "0001-01-01T00:00:00Z", height: String(upgradeHeight), info: "", upgraded_client_state: null },
      },
    ]);

    const plan = await until(
      "the plan",
      async () => {
        const r = await cli(["query", "upgrade", "plan"]);
        return r.code === 0 ? r.stdout : undefined;
      },
      (VOTING + 30) * 1000,
    );
    expect(plan).toBe(`height: "${upgradeHeight}"\ninfo: ""\nname: v2\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null\n`);
    expect((await cli(["query", "upgrade", "plan", "-o", "json"])).stdout).toBe(
      `{"name":"v2","time":"0001-01-01T00:00:00Z","height":"${upgradeHeight}","info":"","upgraded_client_state":null}\n`,
    );
    expect(JSON.parse((await cli(["query", "gov", "proposal", "2", "-o", "json"])).stdout).proposal.status).toBe("PROPOSAL_STATUS_PASSED");
  }, 180_000);

  it("a vote on a finished proposal fails in the block", async () => {
    const r = await cli(["tx", "gov", "vote", "2", "no", "--from", "bob", ...keyring(), "-y"]);
    expect(errorLine(r)).toMatch(/^tx [0-9A-F]{64} failed \(codespace gov code 3\): .*inactive proposal$/);
  }, 60_000);

  it("a cancel whose voting would end after the height warns", async () => {
    const r = await cli([
      "tx",
      "upgrade",
      "cancel-software-upgrade",
      "--title",
      "Late",
      "--summary",
      "Too late",
      "--deposit",
      "1stake",
      "--from",
      "bob",
      ...keyring(),
      "-y",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: the voting period of this proposal ends after upgrade height ${upgradeHeight}; the upgrade would happen first\n`);
  }, 60_000);

  it("halts at the height (exit 20), and v2 applies the upgrade", async () => {
    const code = await Promise.race([node!.exit, new Promise((r) => setTimeout(() => r("timeout"), 90_000))]);
    expect(code, node!.log()).toBe(20);
    const infoFile = JSON.parse(readFileSync(join(home, "data", "upgrade-info.json"), "utf8"));
    expect(infoFile).toMatchObject({ name: "v2", height: upgradeHeight });

    node = await startNode(join(ROOT, "examples/apps/v2"));
    const applied = await until(
      "the applied upgrade",
      async () => {
        const r = await cli(["query", "upgrade", "applied", "v2", "-o", "text"]);
        return r.code === 0 ? r.stdout : undefined;
      },
      60_000,
    );
    // The block record: always JSON, two-space indent, keys in the seed's order (docs/spec/interfaces.md §6).
    const record = JSON.parse(applied);
    expect(applied).toBe(JSON.stringify(record, null, 2) + "\n");
    expect(Object.keys(record)).toEqual(["block_id", "block_size", "header", "num_txs"]);
    expect(Object.keys(record.header)).toEqual([
      "version",
      "chain_id",
      "height",
      "time",
      "last_block_id",
      "last_commit_hash",
      "data_hash",
      "validators_hash",
      "next_validators_hash",
      "consensus_hash",
      "app_hash",
      "last_results_hash",
      "evidence_hash",
      "proposer_address",
    ]);
    expect(record.header).toMatchObject({ chain_id: "xupgrade-devnet-1", height: String(upgradeHeight), version: { block: "11" } });
    expect(record.block_id.hash).toMatch(/^[0-9A-F]{64}$/);
    expect(record.block_id.parts.total).toBe(1);
    expect(record.header.proposer_address).toMatch(/^[0-9A-F]{40}$/);
    expect(record.header.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/);

    const versions = JSON.parse((await cli(["query", "upgrade", "module_versions", "-o", "json"])).stdout).module_versions as {
      name: string;
      version: string;
    }[];
    expect(versions).toContainEqual({ name: "tags", version: "1" });
    expect(versions).toContainEqual({ name: "counter", version: "2" });
    expect(errorLine(await cli(["query", "upgrade", "plan"]))).toBe("no upgrade scheduled");

    node.child.kill("SIGTERM");
    expect(await node.exit).toBe(0);
  }, 240_000);
});
