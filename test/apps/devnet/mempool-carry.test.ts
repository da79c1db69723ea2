/**
 * The devnet's mempool across an upgrade switch (bindings/apps/devnet/node/engine/cometbft/mempool-carry.ts,
 * docs/spec/interfaces.md §7.3), driven in process as CometBFT drives the app: what v1's CheckTx accepted
 * and no block included is kept before the plan's block runs (so before upgrade-info.json exists), without
 * that block's own transactions; from then on CheckTx refuses, naming the halt; the new binary replaying
 * the block keeps what the old one wrote; the kept transactions go back only through the CheckTx of a binary
 * that committed the plan's height (v2's rules), and one already committed meanwhile is refused for its
 * sequence — applied once; a skipped upgrade height keeps nothing.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { fromBase64 } from "@cosmjs/encoding";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import type { Any } from "cosmjs-types/google/protobuf/any";
import { afterAll, describe, expect, it } from "vitest";
import { AbciHalt } from "../../../bindings/abci/index.js";
import { CometApp, initTestnet, loadApp, openNode, readGenesisKeys, type GenesisKey, type OpenedNode } from "../../../bindings/apps/devnet/index.js";
import { carryPath, mempoolKeeper, PendingTxs, reinjectAfterSwitch } from "../../../bindings/apps/devnet/node/engine/cometbft/mempool-carry.js";
import { HALTED_TX } from "../../../bindings/client/upgrade-halt.js";
import { fullLogger } from "../../../bindings/apps/devnet/shared/logger.js";
import { ReadinessFileReader, readinessFilePath } from "../../../bindings/module/readiness/file.js";
import { V1, V2, captureLogger, removeTempDirs, signTx, softwareUpgradeAny, submitProposalAny, tempDir, voteAny } from "./helpers.js";
import { block, genesisOf, initChainRequest, rejection, type Genesis } from "./abci-driver.js";

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  removeTempDirs();
});

interface Node extends OpenedNode {
  app: CometApp;
  pending: PendingTxs;
  logger: ReturnType<typeof fullLogger>;
  records: ReturnType<typeof captureLogger>["records"];
}

const H = 12n;

/** A node home opened for `app`, its CometApp wired as `devnet start --engine cometbft` wires it (the mempool kept and put back). */
async function open(home: string, app: string, skip: bigint[] = []): Promise<Node> {
  const genesis = genesisOf(home);
  const captured = captureLogger();
  const logger = fullLogger(captured);
  const node = await openNode({ home, chainId: genesis.chain_id, app: await loadApp(app), backend: "wasm", skipUpgradeHeights: skip, logger });
  const pending = new PendingTxs();
  const cometApp = new CometApp({
    state: node.state,
    queries: () => undefined,
    logger,
    plan: () => node.queryKeeper.getUpgradePlan(),
    readiness: new ReadinessFileReader(readinessFilePath(home)),
    pending,
    carry: mempoolKeeper(home, genesis.chain_id, logger),
  });
  return { ...node, logger, records: captured.records, pending, app: cometApp };
}

/** A CometBFT RPC stand-in whose broadcast_tx_sync is the app's CheckTx; it records the app's height at each call. */
async function rpcFor(node: () => Node): Promise<{ url: string; calls: { height: bigint; code: number }[] }> {
  const calls: { height: bigint; code: number }[] = [];
  const s = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const { params } = JSON.parse(body) as { params: { tx: string } };
      const r = node().app.checkTx({ tx: fromBase64(params.tx), type: 0 });
      calls.push({ height: node().state.height, code: r.code });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { code: r.code, codespace: r.codespace, log: r.log } }));
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(s.address() as { port: number }).port}`, calls };
}

describe("the devnet's mempool across an upgrade switch (in process)", { timeout: 60_000 }, () => {
  let home: string;
  let g: Genesis;
  let keys: GenesisKey[];
  const key = (name: string) => keys.find((k) => k.name === name)!;
  const sendAny = (from: GenesisKey, amount: string): Any => ({
    typeUrl: "/cosmos.bank.v1beta1.MsgSend",
    value: MsgSend.encode({ fromAddress: from.address, toAddress: key("alice").address, amount: [{ denom: "stake", amount }] }).finish(),
  });
  const send = (from: string, sequence: bigint, amount = "1") =>
    signTx({} as never, key(from), [sendAny(key(from), amount)], { accountNumber: BigInt(key(from).account_number), sequence });

  /** One validator with v2 scheduled at H, at height `top` (default H-1, every block committed). */
  async function chainAt(o: { skip?: bigint[]; top?: bigint } = {}): Promise<Node> {
    home = join(tempDir("xupgrade-carry-"), "net");
    await initTestnet({ home, validators: 1, votingPeriod: "3s", depositPeriod: "3s" });
    home = join(home, "node0");
    g = genesisOf(home);
    keys = (await readGenesisKeys(join(home, ".."))).keys;
    const n = await open(home, V1, o.skip);
    await n.app.initChain(initChainRequest(g));
    const alice = key("alice");
    const proposal = await signTx({} as never, alice, [submitProposalAny(alice.address, [softwareUpgradeAny("v2", H)])], {
      accountNumber: BigInt(alice.account_number),
      sequence: 0n,
    });
    const vote = await signTx({} as never, key("validator0"), [voteAny(1n, key("validator0").address)], {
      accountNumber: BigInt(key("validator0").account_number),
      sequence: 0n,
    });
    for (let h = 1n; h <= (o.top ?? H - 1n); h++) {
      await n.app.finalizeBlock(block(g, h, h === 2n ? [proposal] : h === 3n ? [vote] : []));
      await n.app.commit();
    }
    expect(n.state.keeper.getUpgradePlan()).toMatchObject({ name: "v2", height: H });
    return n;
  }

  it("keeps what CheckTx accepted and no block included, before the plan's block runs; then refuses, naming the halt", async () => {
    const v1 = await chainAt({ top: H - 2n });
    const [inBlock, kept, outbid] = [await send("alice", 1n), await send("validator0", 1n), await send("bob", 0n, "2")];
    for (const tx of [inBlock, kept, outbid]) expect(v1.app.checkTx({ tx, type: 0 })).toMatchObject({ code: 0 });
    // Another proposer's block H-1 holds bob's other transaction with the same sequence: CometBFT's recheck
    // after the commit refuses the one in this mempool, which leaves it.
    await v1.app.finalizeBlock(block(g, H - 1n, [await send("bob", 0n, "1")]));
    await v1.app.commit();
    expect(v1.app.checkTx({ tx: outbid, type: 1 })).toMatchObject({ code: 32 });
    for (const tx of [inBlock, kept]) expect(v1.app.checkTx({ tx, type: 1 })).toMatchObject({ code: 0 });
    // The keeper writes upgrade-info.json inside this block: the carry must already be on the disk.
    const halt = await rejection(v1.app.finalizeBlock(block(g, H, [inBlock])));
    expect(halt).toBeInstanceOf(AbciHalt);
    expect(halt).toMatchObject({ exitCode: 20 });
    const carry = JSON.parse(readFileSync(carryPath(home), "utf8")) as { chain_id: string; height: string; txs: string[] };
    expect(carry).toEqual({ chain_id: g.chain_id, height: String(H), txs: [Buffer.from(kept).toString("base64")] });
    expect(v1.records.findIndex((r) => r.msg === "kept the mempool for the upgrade's block")).toBeLessThan(
      v1.records.findIndex((r) => r.msg === "halting the node"),
    );
    // Halted: CheckTx takes nothing, and says why.
    expect(v1.app.checkTx({ tx: await send("bob", 1n), type: 0 })).toEqual({
      code: HALTED_TX.code,
      codespace: HALTED_TX.codespace,
      log: `chain halted at height ${H} for upgrade "v2": transactions are taken again once validators run a binary with the "v2" upgrade handler`,
    });
    await v1.ms.close();
  });

  it("v1 restarted on the kept mempool halts again and puts nothing back; v2 replaying the block keeps v1's file and puts it back once it committed H", async () => {
    // v1 again (the wrong binary): the handshake replays H and it halts; nothing goes back through its CheckTx.
    let current = await open(home, V1);
    const rpc = await rpcFor(() => current);
    const onV1 = reinjectAfterSwitch({ home, state: current.state, rpcUrl: rpc.url, logger: current.logger });
    expect(await rejection(current.app.finalizeBlock(block(g, H, [await send("bob", 0n)])))).toMatchObject({ exitCode: 20 });
    expect(rpc.calls).toEqual([]);
    expect(existsSync(carryPath(home))).toBe(true);
    void onV1; // never resolves: v1 never commits H
    await current.ms.close();

    // v2: its replay of H keeps v1's file (its own mempool is empty), and after the commit of H the kept tx goes back.
    current = await open(home, V2);
    const before = readFileSync(carryPath(home), "utf8");
    const back = reinjectAfterSwitch({ home, state: current.state, rpcUrl: rpc.url, logger: current.logger });
    await current.app.finalizeBlock(block(g, H, [await send("bob", 0n)]));
    expect(readFileSync(carryPath(home), "utf8")).toBe(before);
    await current.app.commit();
    expect(await back).toEqual({ kept: 1, accepted: 1, refused: {} });
    expect(rpc.calls).toEqual([{ height: H, code: 0 }]);
    expect(existsSync(carryPath(home))).toBe(false);
    expect(current.app.checkTx({ tx: await send("bob", 1n), type: 0 })).toMatchObject({ code: 0 }); // taking transactions again
    await current.ms.close();
  });

  it("a kept transaction committed meanwhile (its client rebroadcast it) is refused for its sequence when it comes back: applied once", async () => {
    const v1 = await chainAt();
    const tx = await send("validator0", 1n);
    expect(v1.app.checkTx({ tx, type: 0 })).toMatchObject({ code: 0 });
    await rejection(v1.app.finalizeBlock(block(g, H)));
    await v1.ms.close();
    const v2 = await open(home, V2);
    await v2.app.finalizeBlock(block(g, H));
    await v2.app.commit();
    // The client's rebroadcast got it into H+1 first (from another node, say).
    const r = await v2.app.finalizeBlock(block(g, H + 1n, [tx]));
    expect(r.txResults?.map((x) => x?.code)).toEqual([0]);
    await v2.app.commit();
    const rpc = await rpcFor(() => v2);
    const back = await reinjectAfterSwitch({ home, state: v2.state, rpcUrl: rpc.url, logger: v2.logger });
    expect(back).toEqual({ kept: 1, accepted: 0, refused: { "sdk 32": 1 } });
    expect(v2.records.find((r) => r.msg === "put the transactions kept at the halt back through CheckTx")).toMatchObject({ kept: 1, accepted: 0 });
    // Even in a block it would not apply again: DeliverTx makes the same sequence check.
    const again = await v2.app.finalizeBlock(block(g, H + 2n, [tx]));
    expect(again.txResults?.map((x) => x?.code)).toEqual([32]);
    await v2.ms.close();
  });

  it("a skipped upgrade height keeps nothing: the block goes through and the node runs on with its mempool", async () => {
    const v1 = await chainAt({ skip: [H] });
    expect(v1.app.checkTx({ tx: await send("validator0", 1n), type: 0 })).toMatchObject({ code: 0 });
    await v1.app.finalizeBlock(block(g, H));
    await v1.app.commit();
    expect(existsSync(carryPath(home))).toBe(false);
    expect(v1.app.checkTx({ tx: await send("validator0", 1n), type: 0 })).toMatchObject({ code: 0 });
    await v1.ms.close();
  });
});
