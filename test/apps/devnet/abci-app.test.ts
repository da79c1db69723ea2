/**
 * The devnet as CometBFT's ABCI++ application, driven in this process the way CometBFT drives it (no
 * CometBFT needed): two validators of one `initTestnet` genesis fed the same InitChain and blocks compute
 * the same app hash at every height, whatever their wall clocks; Info answers the last durable commit; a
 * crash between FinalizeBlock and Commit leaves the store at the last commit and the replayed block gives
 * the same app hash; CheckTx and Query never stop the node; the upgrade keeper's halts are AbciHalts with
 * their exit codes (20 with upgrade-info.json, 21 too early, 22 downgrade, 23 handler failed), v2 applies the upgrade once and reports the
 * new app version as a consensus-params update; a bad genesis is refused.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestFinalizeBlock, RequestInitChain } from "cosmjs-types/tendermint/abci/types";
import { QueryCurrentPlanResponse } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { afterAll, describe, expect, it } from "vitest";
import { AbciHalt } from "../../../bindings/abci/index.js";
import { UpgradeError } from "../../../bindings/core/errors.js";
import {
  CometApp,
  exitCodeFor,
  initTestnet,
  loadApp,
  openNode,
  readGenesisKeys,
  type GenesisKey,
  type OpenedNode,
} from "../../../bindings/apps/devnet/index.js";
import { startNodeQueries } from "../../../bindings/apps/devnet/node/queries.js";
import { loadCore } from "../../../bindings/core/index.js";
import type { QueryServers } from "../../../bindings/services/serve.js";
import { ReadinessFileReader, readinessFilePath } from "../../../bindings/module/readiness/file.js";
import { V1, V2, captureLogger, fixtureApp, removeTempDirs, signTx, softwareUpgradeAny, submitProposalAny, tempDir, voteAny } from "./helpers.js";
import { block, genesisOf, initChainRequest, rejection, type Genesis } from "./abci-driver.js";

const servers: QueryServers[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close(0)));
  removeTempDirs();
});

interface Node extends OpenedNode {
  app: CometApp;
  logger: ReturnType<typeof captureLogger>;
}

/** A node home opened for `app` as `devnet start --engine cometbft` opens it, with its ABCI app (queries included). */
async function open(home: string, app: string): Promise<Node> {
  const genesis = genesisOf(home);
  const logger = captureLogger(home.slice(-6));
  const node = await openNode({ home, chainId: genesis.chain_id, app: await loadApp(app), backend: "wasm", skipUpgradeHeights: [], logger });
  const queries = await startNodeQueries({
    state: node.state,
    ms: node.ms,
    queryKeeper: node.queryKeeper,
    keeperAt: node.keeperAt,
    blocks: { height: () => node.state.height, block: () => undefined },
    rest: "127.0.0.1:0",
    grpc: "127.0.0.1:0",
    rpcUrl: () => "",
    engine: "cometbft",
  });
  servers.push(queries);
  const readiness = new ReadinessFileReader(readinessFilePath(home));
  return {
    ...node,
    logger,
    app: new CometApp({ state: node.state, queries: () => queries.abci, logger, plan: () => node.queryKeeper.getUpgradePlan(), readiness }),
  };
}

describe("the devnet as an ABCI++ application (in process)", { timeout: 60_000 }, () => {
  let dir: string;
  let g: Genesis;
  let keys: GenesisKey[];
  let a: Node;
  let b: Node;
  const key = (name: string) => keys.find((k) => k.name === name)!;
  const hex = (u: Uint8Array | undefined) => Buffer.from(u ?? []).toString("hex");

  /** Feeds both validators the same block and checks they agree on its app hash; returns it. */
  async function both(req: RequestFinalizeBlock): Promise<string> {
    const [ra, rb] = [await a.app.finalizeBlock(req), await b.app.finalizeBlock(req)];
    expect(hex(ra.appHash as Uint8Array)).toBe(hex(rb.appHash as Uint8Array));
    expect(ra.txResults?.map((r) => r?.code)).toEqual(rb.txResults?.map((r) => r?.code));
    await a.app.commit();
    await b.app.commit();
    return hex(ra.appHash);
  }

  it("two validators fed the same InitChain and blocks compute the same app hash at every height", async () => {
    dir = tempDir("xupgrade-abci-");
    await initTestnet({ home: dir, validators: 2, votingPeriod: "5s", depositPeriod: "5s" });
    g = genesisOf(join(dir, "node0"));
    expect(readFileSync(join(dir, "node0", "config", "genesis.json"))).toEqual(readFileSync(join(dir, "node1", "config", "genesis.json")));
    keys = (await readGenesisKeys(dir)).keys;
    a = await open(join(dir, "node0"), V1);
    b = await open(join(dir, "node1"), V1);
    expect(a.app.info()).toMatchObject({ data: "example-v1", version: "1.0.0", appVersion: 0n, lastBlockHeight: 0n, lastBlockAppHash: new Uint8Array(0) });

    const [ia, ib] = [await a.app.initChain(initChainRequest(g)), await b.app.initChain(initChainRequest(g))];
    expect(ia.appHash).toHaveLength(32);
    expect(hex(ia.appHash)).toBe(hex(ib.appHash));
    const hashes = [await both(block(g, 1n))];
    const alice = key("alice");
    const proposal = await signTx({} as never, alice, [submitProposalAny(alice.address, [softwareUpgradeAny("v2", 20n)])], {
      accountNumber: BigInt(alice.account_number),
      sequence: 0n,
    });
    hashes.push(await both(block(g, 2n, [proposal])));
    const votes = await Promise.all(
      ["validator0", "validator1"].map((n) =>
        signTx({} as never, key(n), [voteAny(1n, key(n).address)], { accountNumber: BigInt(key(n).account_number), sequence: 0n }),
      ),
    );
    hashes.push(await both(block(g, 3n, votes)));
    for (let h = 4n; h <= 10n; h++) hashes.push(await both(block(g, h)));
    expect(new Set(hashes).size).toBe(hashes.length); // every block changes the state (the counter module)
    // The vote ended at block 7 (submitted at 2, a 5 s voting period at one block per second): the plan is scheduled.
    expect(a.logger.records.find((r) => r.msg === "proposal tallied")).toMatchObject({ status: "PROPOSAL_STATUS_PASSED", yes: "200000000" });
    expect(a.state.keeper.getUpgradePlan()).toEqual({ name: "v2", height: 20n, info: "" });
  });

  it("Info answers the last commit after a reopen; a crash between FinalizeBlock and Commit replays to the same app hash", async () => {
    const committed = a.app.info();
    expect(committed.lastBlockHeight).toBe(10n);
    const first = await a.app.finalizeBlock(block(g, 11n));
    // SIGKILL here: the block's writes were never committed.
    await a.ms.close();
    a = await open(join(dir, "node0"), V1);
    expect(a.app.info()).toEqual(committed);
    const again = await a.app.finalizeBlock(block(g, 11n));
    expect(hex(again.appHash as Uint8Array)).toBe(hex(first.appHash as Uint8Array));
    await a.app.commit();
    await b.app.finalizeBlock(block(g, 11n));
    await b.app.commit();
    expect(hex(a.app.info().lastBlockAppHash)).toBe(hex(b.app.info().lastBlockAppHash));
  });

  it("CheckTx runs on the check state (reset by Commit); Query answers the upgrade store and the gRPC routes; neither throws", async () => {
    const bob = key("bob");
    const send = (sequence: bigint) => signTx({} as never, bob, [voteAny(1n, bob.address)], { accountNumber: BigInt(bob.account_number), sequence });
    expect(a.app.checkTx({ tx: await send(0n), type: 0 })).toMatchObject({ code: 0 });
    expect(a.app.checkTx({ tx: await send(0n), type: 0 })).toMatchObject({
      code: 32,
      codespace: "sdk",
      log: expect.stringMatching(/^account sequence mismatch, expected 1, got 0/),
    });
    expect(a.app.checkTx({ tx: Uint8Array.of(1, 2, 3), type: 0 })).toMatchObject({ code: 2, codespace: "sdk" });
    await a.app.finalizeBlock(block(g, 12n));
    await a.app.commit();
    // Nothing was delivered: after the commit the first sequence is valid again (recheck).
    expect(a.app.checkTx({ tx: await send(0n), type: 1 })).toMatchObject({ code: 0 });

    const plan = a.app.query({ path: "/cosmos.upgrade.v1beta1.Query/CurrentPlan", data: new Uint8Array(0), height: 0n, prove: false });
    expect(plan).toMatchObject({ code: 0, height: 12n });
    expect(QueryCurrentPlanResponse.decode(plan.value!).plan).toMatchObject({ name: "v2", height: 20n });
    const raw = a.app.query({ path: "/store/upgrade/key", data: Uint8Array.of(0), height: 0n, prove: false });
    expect(raw.code).toBe(0);
    expect(raw.value!.length).toBeGreaterThan(0);
    expect(raw.proofOps).toBeUndefined();
    // With prove: the SDK's two ops, which verify against the app hash of that height (Info's, as Commit made it).
    const proven = a.app.query({ path: "/store/upgrade/key", data: Uint8Array.of(0), height: 0n, prove: true });
    expect(proven).toMatchObject({ code: 0, height: 12n, value: raw.value });
    expect(proven.proofOps!.ops.map((o) => o.type)).toEqual(["ics23:iavl", "ics23:simple"]);
    const core = await loadCore("js");
    expect(() => core.ics23VerifyStoreProof(a.app.info().lastBlockAppHash, proven.proofOps!.ops, "upgrade", Uint8Array.of(0), raw.value)).not.toThrow();
    expect(() => core.ics23VerifyStoreProof(a.app.info().lastBlockAppHash, proven.proofOps!.ops, "upgrade", Uint8Array.of(0), Uint8Array.of(1))).toThrow();
    expect(a.app.query({ path: "/no/such/path", data: new Uint8Array(0), height: 0n, prove: false }).code).not.toBe(0);
  });

  it("at the height v1 halts with AbciHalt(20) after writing upgrade-info.json, again on the replay; a binary with the handler halts earlier with 21", async () => {
    await b.app.finalizeBlock(block(g, 12n));
    await b.app.commit();
    // node1 restarted too early: with only a handler (no store changes) it halts in the next block with 21…
    await b.ms.close();
    const early = await open(join(dir, "node1"), fixtureApp("v2-handler-only"));
    const halt21 = await rejection(early.app.finalizeBlock(block(g, 13n)));
    expect(halt21).toBeInstanceOf(AbciHalt);
    expect(halt21).toMatchObject({ exitCode: 21, message: expect.stringMatching(/^BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2"/) });
    expect(early.app.halted).toBe(halt21);
    expect(early.app.info().lastBlockHeight).toBe(12n);
    await early.ms.close();
    // …and v2 (which adds and renames stores) is refused before it loads them, in the same words.
    const refused = await rejection(open(join(dir, "node1"), V2));
    expect(refused).toBeInstanceOf(UpgradeError);
    expect(exitCodeFor(refused)).toBe(21);
    b = await open(join(dir, "node1"), V1);

    for (let h = 13n; h < 20n; h++) await both(block(g, h));
    for (const [n, name] of [
      [a, "node0"],
      [b, "node1"],
    ] as const) {
      const halt = await rejection(n.app.finalizeBlock(block(g, 20n)));
      expect(halt).toBeInstanceOf(AbciHalt);
      expect(halt).toMatchObject({ exitCode: 20, message: 'UPGRADE "v2" NEEDED at height: 20: ' });
      expect(n.app.info().lastBlockHeight).toBe(19n);
      expect(readFileSync(join(dir, name, "data", "upgrade-info.json"), "utf8")).toBe('{"name":"v2","time":"0001-01-01T00:00:00Z","height":20}');
      await n.ms.close();
    }
    // v1 restarted: CometBFT's handshake replays block 20, and v1 halts again.
    a = await open(join(dir, "node0"), V1);
    expect(a.app.info().lastBlockHeight).toBe(19n);
    expect(await rejection(a.app.finalizeBlock(block(g, 20n)))).toMatchObject({ exitCode: 20 });
    await a.ms.close();
  });

  it("a v2 whose handler throws halts with AbciHalt(23), nothing committed", async () => {
    const broken = await open(join(dir, "node0"), fixtureApp("v2-broken"));
    expect(await rejection(broken.app.finalizeBlock(block(g, 20n)))).toMatchObject({ exitCode: 23, message: "boom: the v2 handler failed after migrating" });
    expect(broken.app.info().lastBlockHeight).toBe(19n);
    await broken.ms.close();
  });

  it("v2 applies the upgrade once on each validator, reports the app version as a consensus-params update, and they agree", async () => {
    a = await open(join(dir, "node0"), V2);
    b = await open(join(dir, "node1"), V2);
    const [ra, rb] = [await a.app.finalizeBlock(block(g, 20n)), await b.app.finalizeBlock(block(g, 20n))];
    expect(hex(ra.appHash as Uint8Array)).toBe(hex(rb.appHash as Uint8Array));
    expect(ra.consensusParamUpdates).toEqual({ version: { app: 1n } });
    await a.app.commit();
    await b.app.commit();
    expect(a.app.info()).toMatchObject({ data: "example-v2", appVersion: 1n, lastBlockHeight: 20n });
    for (let h = 21n; h <= 23n; h++) {
      expect((await a.app.finalizeBlock(block(g, h))).consensusParamUpdates).toBeUndefined();
      await a.app.commit();
      await b.app.finalizeBlock(block(g, h));
      await b.app.commit();
    }
    expect(hex(a.app.info().lastBlockAppHash)).toBe(hex(b.app.info().lastBlockAppHash));
    for (const n of [a, b]) {
      expect(n.logger.records.filter((r) => r.msg === "migrating module counter from version 1 to version 2")).toHaveLength(1);
      expect(n.state.keeper.getDoneHeight("v2")).toBe(20n);
      await n.ms.close();
    }
    // v1 on the upgraded chain: refused before a block, as the keeper words it (22).
    expect(exitCodeFor(await rejection(open(join(dir, "node0"), V1)))).toBe(22);
  });

  it("InitChain refuses another chain's genesis, a validator without a gov account and an unreadable app state (AbciHalt, exit 1)", async () => {
    const other = tempDir("xupgrade-abci-bad-");
    await initTestnet({ home: other, validators: 1 });
    const og = genesisOf(join(other, "node0"));
    const cases: [Partial<RequestInitChain>, RegExp][] = [
      [{ chainId: "another-chain" }, /^CometBFT's genesis is for chain "another-chain", the devnet's for "xupgrade-devnet-1"$/],
      [
        { validators: [{ pubKey: { ed25519: new Uint8Array(32).fill(7) }, power: 10n }] },
        /has no entry in app_state.staking.validators, so it has no gov account/,
      ],
      [{ appStateBytes: new TextEncoder().encode("{not json") }, /^invalid app_state in CometBFT's genesis: /],
    ];
    for (const [overrides, message] of cases) {
      const n = await open(join(other, "node0"), V1);
      const e = await rejection(n.app.initChain(initChainRequest(og, overrides)));
      expect(e).toBeInstanceOf(AbciHalt);
      expect(e).toMatchObject({ exitCode: 1, message: expect.stringMatching(message) });
      expect(n.app.info().lastBlockHeight).toBe(0n);
      await n.ms.close();
    }
    expect(existsSync(join(other, "node0", "data", "upgrade-info.json"))).toBe(false);
  });
});
