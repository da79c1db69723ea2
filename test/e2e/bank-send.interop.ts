/**
 * `xupgrade tx bank send` on a real simd v0.50 chain (live, `npm run test:interop`; skipped without simd):
 * the unsigned send is simd's own, byte for byte; a send from xupgrade moves the coins; and at an upgrade
 * halt — where simd, a Go node, still takes a transaction into a mempool it loses when it restarts — the
 * CLI broadcasts nothing and says the chain is halted for the upgrade, naming the height and the plan.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { connectComet } from "@cosmjs/tendermint-rpc";
import { TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { runCli, type CliResult } from "../apps/cli/helpers.js";
import { removeTempDirs, tempDir } from "../support/temp.js";
import { peerBinaries } from "../../scripts/peers/paths.mjs";
import { KEYS, initSimd, killAll, nodeFlags, passProposal, runOk, softwareUpgradeMsg, startSimd, waitForHalt, type SimdNode } from "../interop/support/simd.js";

const SIMD = peerBinaries().simd050;
const BOB = "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu"; // any address: the send creates its account

afterAll(async () => {
  await killAll();
  removeTempDirs();
});

const ok = (r: CliResult): CliResult => {
  if (r.code !== 0) throw new Error(`xupgrade exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
};

async function balance(node: SimdNode, address: string): Promise<bigint> {
  const res = await fetch(`${node.restUrl}/cosmos/bank/v1beta1/balances/${address}/by_denom?denom=stake`);
  const j = (await res.json()) as { balance?: { amount: string } };
  return BigInt(j.balance?.amount ?? "0");
}

describe.skipIf(!SIMD)("xupgrade tx bank send on a real simd v0.50 chain", () => {
  let node: SimdNode;
  let xhome: string;
  const kr = () => ["--keyring-backend", "test", "--home", xhome];

  beforeAll(async () => {
    const h = await initSimd({ binary: SIMD! });
    node = startSimd(h);
    xhome = tempDir("xupgrade-send-keys-");
    for (const [name, key] of Object.entries(KEYS)) ok(await runCli(["keys", "add", name, "--recover", ...kr()], { input: `${key.mnemonic}\n` }));
    await node.ready();
  }, 120_000);

  afterAll(async () => {
    await node?.stop().catch(() => undefined);
  });

  it("--generate-only: the unsigned send is simd's, byte for byte", async () => {
    const args = ["tx", "bank", "send", KEYS.alice.address, BOB, "5stake,3atom", "--generate-only", "--chain-id", node.chainId, "--note", "hi"];
    const theirs = await runOk(node.binary, [...args, ...nodeFlags(node)]);
    const ours = ok(await runCli([...args, "--node", node.rpcUrl]));
    expect(ours.stdout).toBe(theirs.stdout);
  });

  it("a send from xupgrade: the node takes it and the coins move", async () => {
    const before = await balance(node, BOB);
    const r = ok(await runCli(["tx", "bank", "send", "alice", BOB, "5stake", ...kr(), "--node", node.rpcUrl, "-y", "-o", "json"], { timeoutMs: 90_000 }));
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 0, height: expect.stringMatching(/^[1-9][0-9]*$/), txhash: expect.stringMatching(/^[0-9A-F]{64}$/) });
    expect(await balance(node, BOB)).toBe(before + 5n);
  }, 120_000);

  it("at an upgrade halt the CLI sends nothing and says so; simd itself would take the transaction into its mempool", async () => {
    const height = (await node.height()) + 25;
    await passProposal(node, node.binary, softwareUpgradeMsg({ name: "halt-send", height, info: "" }));
    await waitForHalt(node.child, "halt-send", 120_000);
    const r = await runCli(["tx", "bank", "send", "alice", BOB, "7stake", ...kr(), "--node", node.rpcUrl, "-y", "-o", "json"], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^Error: the chain halted at height ${height} for upgrade "halt-send": tx [0-9A-F]{64} was not broadcast; the chain takes transactions again once validators run a binary with the "halt-send" upgrade handler; to wait for the switch and broadcast it then, pass --wait-upgrade <duration>\\n$`,
      ),
    );
    const unconfirmed = async () => ((await (await fetch(`${node.rpcUrl}/num_unconfirmed_txs`)).json()) as { result: { n_txs: string } }).result.n_txs;
    expect(await unconfirmed()).toBe("0");
    // What a client that does not look gets from a Go node at the halt: CheckTx takes it, into a mempool lost at the restart.
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(KEYS.alice.mnemonic);
    const client = await SigningStargateClient.connectWithSigner(node.rpcUrl, wallet);
    const comet = await connectComet(node.rpcUrl);
    try {
      const signed = await client.sign(
        KEYS.alice.address,
        [{ typeUrl: "/cosmos.bank.v1beta1.MsgSend", value: { fromAddress: KEYS.alice.address, toAddress: BOB, amount: [{ denom: "stake", amount: "7" }] } }],
        { amount: [], gas: "200000" },
        "",
      );
      const res = await comet.broadcastTxSync({ tx: TxRaw.encode(signed).finish() });
      expect(res.code).toBe(0);
      expect(await unconfirmed()).toBe("1");
    } finally {
      client.disconnect();
      comet.disconnect();
    }
  }, 240_000);
});
