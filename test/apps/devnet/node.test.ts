/**
 * A real devnet in this process on ephemeral loopback ports, driven by unmodified clients: cosmjs
 * connectComet + QueryClient + cosmjs-types QueryClientImpl over the CometBFT RPC, grpc-js over gRPC, fetch
 * over REST; txs signed with cosmjs' DirectSecp256k1Wallet.
 */
import * as grpc from "@grpc/grpc-js";
import { fromHex, toHex } from "@cosmjs/encoding";
import { QueryClientImpl as UpgradeGrpc } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { QueryParamsRequest, QueryParamsResponse } from "cosmjs-types/cosmos/gov/v1/query";
import { ProposalStatus } from "cosmjs-types/cosmos/gov/v1/gov";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type DevnetHandle, type GenesisKey } from "../../../bindings/apps/devnet/index.js";
import {
  EPHEMERAL,
  GOV,
  V1,
  broadcastAndWait,
  cancelUpgradeAny,
  captureLogger,
  clients,
  newHome,
  removeTempDirs,
  signTx,
  softwareUpgradeAny,
  submitProposalAny,
  depositAny,
  voteAny,
  waitUntil,
} from "./helpers.js";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { checkJudgesOnVectors, provenQuery } from "../../support/proofs.js";
import { GasPrice, SigningStargateClient } from "@cosmjs/stargate";

let node: DevnetHandle;
let keys: GenesisKey[];
let c: Awaited<ReturnType<typeof clients>>;
const key = (name: string) => keys.find((k) => k.name === name)!;

beforeAll(async () => {
  const h = await newHome();
  keys = h.keys;
  node = await startDevnet({ home: h.home, app: V1, ...EPHEMERAL, logger: captureLogger("v1") });
  c = await clients(node.rpcUrl);
  await node.waitForHeight(3);
}, 30_000);

afterAll(async () => {
  c?.comet.disconnect();
  await node?.stop();
  expect(await node.done).toBe(0);
  removeTempDirs();
});

const rpcPost = async (body: unknown) => {
  const res = await fetch(node.rpcUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: await res.json() };
};

describe("CometBFT RPC subset through cosmjs", () => {
  it("status: CometBFT 0.38 node info, sync info with real hashes, validator info", async () => {
    const s = await c.comet.status();
    expect(s.nodeInfo.network).toBe("xupgrade-devnet-1");
    expect(s.nodeInfo.version).toBe("0.38.17");
    expect(s.syncInfo.latestBlockHash).toHaveLength(32);
    expect(s.syncInfo.latestAppHash).toHaveLength(32);
    expect(s.syncInfo.latestBlockHeight).toBeGreaterThanOrEqual(3);
    expect(s.syncInfo.catchingUp).toBe(false);
    expect(s.validatorInfo.address).toHaveLength(20);
    expect(s.validatorInfo.votingPower).toBe(100n);
  });

  it("blockchain: metas descending, at most 20; block: header, last commit signed by every validator", async () => {
    await node.waitForHeight(25);
    const bc = await c.comet.blockchain(1, 25);
    expect(bc.blockMetas).toHaveLength(20);
    expect(bc.blockMetas.map((m) => m.header.height)).toEqual(Array.from({ length: 20 }, (_, i) => 25 - i));
    const b = await c.comet.block(5);
    expect(b.block.header.height).toBe(5);
    expect(b.block.header.chainId).toBe("xupgrade-devnet-1");
    expect(toHex(b.block.header.lastBlockId!.hash)).toBe(toHex((await c.comet.block(4)).blockId.hash));
    expect(b.block.lastCommit!.signatures).toHaveLength(4);
    expect(b.block.lastCommit!.height).toBe(4);
    const first = await c.comet.block(1);
    expect(first.block.lastCommit).toBeNull(); // height 1: empty last commit, as CometBFT
  });

  it("the block record of docs/spec/interfaces.md §6 (raw JSON): key order, uppercase hex, RFC 3339 nanosecond times", async () => {
    const { json } = await rpcPost({ jsonrpc: "2.0", id: 7, method: "blockchain", params: { minHeight: "3", maxHeight: "3" } });
    expect(json.id).toBe(7);
    const meta = json.result.block_metas[0];
    expect(Object.keys(meta)).toEqual(["block_id", "block_size", "header", "num_txs"]);
    expect(Object.keys(meta.header)).toEqual([
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
    expect(meta.block_id.hash).toMatch(/^[0-9A-F]{64}$/);
    expect(meta.block_id.parts).toEqual({ total: 1, hash: expect.stringMatching(/^[0-9A-F]{64}$/) });
    expect(meta.header.proposer_address).toMatch(/^[0-9A-F]{40}$/);
    expect(meta.header.version).toEqual({ block: "11" });
    expect(meta.header.height).toBe("3");
    expect(meta.header.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
    expect(meta.header.data_hash).toBe("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855");
    expect(meta.num_txs).toBe("0");
    // The block hash is the SHA-256 of the header (the devnet's documented simplification).
    const { createHash } = await import("node:crypto");
    expect(createHash("sha256").update(JSON.stringify(meta.header)).digest("hex").toUpperCase()).toBe(meta.block_id.hash);
  });

  it("JSON-RPC transport: batches, URI GET forms, CORS, and CometBFT's errors", async () => {
    const batch = await fetch(node.rpcUrl, {
      method: "POST",
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "health", params: {} },
        { jsonrpc: "2.0", id: "two", method: "nope", params: {} },
      ]),
    });
    const arr = (await batch.json()) as unknown[];
    expect(arr[0]).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(arr[1]).toEqual({ jsonrpc: "2.0", id: "two", error: { code: -32601, message: "Method not found", data: "" } });
    expect(batch.headers.get("access-control-allow-origin")).toBe("*");

    const uri = await fetch(`${node.rpcUrl}/abci_query?path="/store/upgrade/key"&data=0x0275706772616465`);
    const q = await uri.json();
    expect(q.result.response.code).toBe(0);
    expect(Buffer.from(q.result.response.value, "base64").toString("hex")).toBe("0000000000000002");
    expect(q.result.response.key).toBe(Buffer.from("0275706772616465", "hex").toString("base64"));

    const blk = await (await fetch(`${node.rpcUrl}/block?height=2`)).json();
    expect(blk.result.block.header.height).toBe("2");
    const status = await (await fetch(`${node.rpcUrl}/status`)).json();
    expect(status.result.node_info.other.tx_index).toBe("on");

    const future = await rpcPost({ jsonrpc: "2.0", id: 3, method: "block", params: { height: "999999" } });
    expect(future.json.error).toEqual({
      code: -32603,
      message: "Internal error",
      data: `height 999999 must be less than or equal to the current blockchain height ${future.json.error.data.split(" ").pop()}`,
    });
    const minmax = await rpcPost({ jsonrpc: "2.0", id: 4, method: "blockchain", params: { minHeight: "5", maxHeight: "3" } });
    expect(minmax.json.error.data).toBe("min height 5 can't be greater than max height 3");
    const bad = await rpcPost({ jsonrpc: "2.0", id: 5, method: "block", params: { height: "abc" } });
    expect(bad.json.error.code).toBe(-32602);
    const parse = await fetch(node.rpcUrl, { method: "POST", body: "{not json" });
    expect((await parse.json()).error.code).toBe(-32700);
    const options = await fetch(node.rpcUrl, { method: "OPTIONS" });
    expect(options.status).toBe(204);
  });
});

describe("queries through cosmjs QueryClient + cosmjs-types QueryClientImpl (abci_query)", () => {
  it("the upgrade Query service: module versions, plan, applied plan, authority, errors", async () => {
    const mv = await c.upgrade.ModuleVersions({ moduleName: "" });
    expect(mv.moduleVersions.map((m) => `${m.name}=${m.version}`)).toEqual(["auth=5", "bank=4", "counter=1", "gov=5", "notes=1", "staking=5", "upgrade=2"]);
    expect((await c.upgrade.CurrentPlan({})).plan).toBeUndefined();
    expect((await c.upgrade.AppliedPlan({ name: "v2" })).height).toBe(0n);
    expect((await c.upgrade.Authority({})).address).toBe(GOV);
    await expect(c.upgrade.ModuleVersions({ moduleName: "foo" })).rejects.toThrow(
      "Query failed with (6): x/upgrade: QueryModuleVersions module foo not found: module version not found: unknown request",
    );
  });

  it("raw store paths: /store/<store>/key and /store/<store>/subspace for every app store; the node's own stores are refused", async () => {
    const key = await c.query.queryAbci("/store/upgrade/key", fromHex("0262616e6b"));
    expect(toHex(key.value)).toBe("0000000000000004");
    const sub = await c.query.queryAbci("/store/upgrade/subspace", fromHex("02"));
    // cosmos.base.kv.v1beta1.Pairs: the module versions in store order.
    const names: string[] = [];
    const r = new BinaryReader(sub.value);
    while (r.pos < r.len) {
      r.tag();
      const pair = new BinaryReader(r.bytes());
      pair.tag();
      names.push(Buffer.from(pair.bytes()).subarray(1).toString());
    }
    expect(names).toEqual(["auth", "bank", "counter", "gov", "notes", "staking", "upgrade"]);
    // The bank's supply of stake (0x00 ‖ denom), as the bank keeps it.
    const supply = await c.query.queryAbci("/store/bank/key", Uint8Array.of(0x00, ...new TextEncoder().encode("stake")));
    expect(BigInt(new TextDecoder().decode(supply.value))).toBeGreaterThan(0n);
    await expect(c.query.queryAbci("/store/_blocks/key", fromHex("00"))).rejects.toThrow("Query failed with (6): no such store: _blocks: unknown request");
    await expect(c.query.queryAbci("/store/nope/key", fromHex("00"))).rejects.toThrow("Query failed with (6): no such store: nope: unknown request");
    await expect(c.query.queryAbci("/no/such/path", new Uint8Array())).rejects.toThrow("Query failed with (6): unknown query path: unknown request");
  });

  it("devnet routes: gov params, auth accounts (not found → sdk 22), gov proposals", async () => {
    const params = QueryParamsResponse.decode(
      (await c.query.queryAbci("/cosmos.gov.v1.Query/Params", QueryParamsRequest.encode({ paramsType: "" }).finish())).value,
    );
    expect(params.params!.votingPeriod).toEqual({ seconds: 1n, nanos: 0 });
    expect(params.params!.minDeposit).toEqual([{ denom: "stake", amount: "10000000" }]);
    const acc = await c.auth.Account({ address: key("alice").address });
    expect(acc.account!.typeUrl).toBe("/cosmos.auth.v1beta1.BaseAccount");
    const missing = "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu";
    await expect(c.auth.Account({ address: missing })).rejects.toThrow(
      `Query failed with (22): rpc error: code = NotFound desc = account ${missing} not found: key not found`,
    );
    await expect(c.gov.Proposal({ proposalId: 999n })).rejects.toThrow("(22)");
  });
});

describe("proofs of the state (docs/spec/store.md §5): verified against the next header's app hash", () => {
  const utf8 = (t: string) => new TextEncoder().encode(t);

  it("the judges (both cores, @confio/ics23) agree with cosmos/ics23's own vectors", checkJudgesOnVectors);

  it("present and absent keys of the upgrade store and of app stores, at the latest and at a past height", async () => {
    await node.waitForHeight(12);
    const latest = (await c.comet.status()).syncInfo.latestBlockHeight;
    for (const height of [undefined, latest - 6]) {
      const bank = await provenQuery(c.comet, "upgrade", Uint8Array.of(0x02, ...utf8("bank")), height);
      expect(toHex(bank.value!)).toBe("0000000000000004");
      expect((await provenQuery(c.comet, "upgrade", Uint8Array.of(0x02, ...utf8("nope")), height)).value).toBeUndefined();
      expect((await provenQuery(c.comet, "upgrade", Uint8Array.of(0x01, ...utf8("v2")), height)).value).toBeUndefined();
      const supply = await provenQuery(c.comet, "bank", Uint8Array.of(0x00, ...utf8("stake")), height);
      expect(BigInt(new TextDecoder().decode(supply.value))).toBeGreaterThan(0n);
      expect((await provenQuery(c.comet, "bank", Uint8Array.of(0x00, ...utf8("nostake")), height)).value).toBeUndefined();
      // The v1 app counts blocks: each height proves its own count.
      const count = await provenQuery(c.comet, "counter", utf8("count"), height);
      expect(new TextDecoder().decode(count.value)).toBe(String(count.height));
    }
  });

  it("answers as the SDK where it cannot prove: height 1, above the latest, the node's own stores, no key", async () => {
    const q = async (path: string, data: Uint8Array, height: number, prove: boolean) => {
      const r = await c.comet.abciQuery({ path, data, height, prove });
      return [r.code ?? 0, r.codespace, r.log ?? "", r.value.length, r.proof === undefined];
    };
    expect(await q("/store/upgrade/key", Uint8Array.of(0), 1, true)).toEqual([
      18,
      "sdk",
      "cannot query with proof when height <= 1; please provide a valid height: invalid request",
      0,
      true,
    ]);
    const latest = (await c.comet.status()).syncInfo.latestBlockHeight;
    expect(await q("/store/upgrade/key", Uint8Array.of(0x02, ...utf8("bank")), latest + 1000, false)).toEqual([0, "", "version does not exist", 0, true]);
    expect(await q("/store/upgrade/key", Uint8Array.of(0x02), latest + 1000, true)).toEqual([
      18,
      "sdk",
      "proof is unexpectedly empty; ensure height has not been pruned: invalid request",
      0,
      true,
    ]);
    expect(await q("/store/_node/key", utf8("block_time"), 0, true)).toEqual([6, "sdk", "no such store: _node: unknown request", 0, true]);
    expect(await q("/store/upgrade/key", new Uint8Array(0), 0, false)).toEqual([2, "sdk", "query cannot be zero length: tx parse error", 0, true]);
    // A prefix scan is never proven.
    const [code, , , bytes, unproven] = await q("/store/upgrade/subspace", Uint8Array.of(0x02), 0, true);
    expect([code, unproven]).toEqual([0, true]);
    expect(bytes).toBeGreaterThan(0);
  });
});

describe("REST and gRPC (serveQueries on the devnet)", () => {
  it("GET /cosmos/base/tendermint/v1beta1/blocks/{height}, the upgrade REST routes, errors", async () => {
    const res = await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/blocks/2`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = await res.json();
    const rpcBlock = await c.comet.block(2);
    expect(Buffer.from(body.block_id.hash, "base64")).toEqual(Buffer.from(rpcBlock.blockId.hash));
    expect(body.block.header.height).toBe("2");
    expect(body.sdk_block.header.proposer_address).toMatch(/^cosmosvalcons1/);
    expect((await (await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/blocks/latest`)).json()).block.header.height).toMatch(/^\d+$/);
    const future = await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/blocks/99999999`);
    expect(future.status).toBe(400);
    expect(await future.json()).toEqual({ code: 3, message: "requested block height is bigger then the chain length", details: [] });
    const nan = await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/blocks/abc`);
    expect(nan.status).toBe(400);
    expect(await (await fetch(`${node.restUrl}/cosmos/upgrade/v1beta1/current_plan`)).text()).toBe('{"plan":null}');
    const zero = await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/blocks/0`);
    expect([zero.status, await zero.json()]).toEqual([500, { code: 2, message: "height must be greater than 0, but got 0", details: [] }]);
    expect(res.headers.get("x-cosmos-block-height")).toMatch(/^\d+$/);
    expect(await (await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/syncing`)).text()).toBe('{"syncing":false}');
    expect((await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/blocks/2`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${node.restUrl}/cosmos/base/tendermint/v1beta1/node_info`)).status).toBe(501);
    expect((await fetch(`${node.restUrl}/nope`)).status).toBe(501);
  });

  it("cosmjs-types QueryClientImpl over @grpc/grpc-js", async () => {
    const client = new grpc.Client(node.grpcAddress, grpc.credentials.createInsecure());
    try {
      const q = new UpgradeGrpc({
        request: (service, method, data) =>
          new Promise((resolve, reject) =>
            client.makeUnaryRequest(
              `/${service}/${method}`,
              (b: Buffer) => b,
              (b: Buffer) => b,
              Buffer.from(data),
              new grpc.Metadata(),
              { deadline: Date.now() + 5000 },
              (err, v) => (err ? reject(err) : resolve(new Uint8Array(v!))),
            ),
          ),
      });
      expect((await q.Authority({})).address).toBe(GOV);
      expect((await q.ModuleVersions({ moduleName: "counter" })).moduleVersions).toEqual([{ name: "counter", version: 1n }]);
      await expect(q.ModuleVersions({ moduleName: "foo" })).rejects.toMatchObject({ code: 2 });
    } finally {
      client.close();
    }
  });
});

describe("tx-level errors (docs/spec/interfaces.md §7) and the node keeps running", () => {
  it("a replayed tx: 19 while in the mempool, 32 once included", async () => {
    const alice = key("alice");
    const tx = await signTx(
      c.auth,
      alice,
      [cancelUpgradeAny()].map((m) => submitProposalAny(alice.address, [m], "", "Cancel", "Nothing to cancel")),
    );
    const first = await c.comet.broadcastTxSync({ tx });
    expect(first.code).toBe(0);
    const again = await c.comet.broadcastTxSync({ tx });
    // A block may include the first copy between the two calls on a loaded machine: then it is already a replay.
    if (again.code === 19) expect([again.code, again.codespace, again.log]).toEqual([19, "sdk", "tx already in mempool"]);
    else expect([again.code, again.codespace, again.log]).toEqual([32, "sdk", expect.stringMatching(/incorrect account sequence$/)]);
    await waitUntil(() => c.comet.tx({ hash: first.hash }).catch(() => undefined), 10_000, "inclusion");
    const replay = await c.comet.broadcastTxSync({ tx });
    expect(replay.codespace).toBe("sdk");
    expect(replay.code).toBe(32);
    expect(replay.log).toMatch(/^account sequence mismatch, expected \d+, got \d+: incorrect account sequence$/);
  });

  it("a wrong-key signature (4), a public key of another account (8), a wrong chain id (4), garbage (2)", async () => {
    const bob = key("bob");
    const msg = [submitProposalAny(bob.address, [cancelUpgradeAny()])];
    const acc = await c.auth.Account({ address: bob.address });
    expect(acc.account).toBeDefined();
    const wrongKey = await c.comet.broadcastTxSync({ tx: await signTx(c.auth, bob, msg, { signWith: key("alice").private_key }) });
    expect(wrongKey.code).toBe(4);
    expect(wrongKey.codespace).toBe("sdk");
    expect(wrongKey.log).toMatch(
      /^signature verification failed; please verify account number \(\d+\), sequence \(\d+\) and chain-id \(xupgrade-devnet-1\): unauthorized$/,
    );
    // bob's proposal carrying alice's public key (and signature).
    const other = await c.comet.broadcastTxSync({
      tx: await signTx(c.auth, { ...key("alice") }, [submitProposalAny(bob.address, [cancelUpgradeAny()])], { accountNumber: 5n, sequence: 0n }),
    });
    expect([other.code, other.codespace, other.log]).toEqual([
      8,
      "sdk",
      `pubKey does not match signer address ${bob.address} with signer index: 0: invalid pubkey`,
    ]);
    const chain = await c.comet.broadcastTxSync({ tx: await signTx(c.auth, bob, msg, { chainId: "other-chain" }) });
    expect(chain.code).toBe(4);
    // The node reports its own chain id (as the SDK does): the signer must compare.
    expect(chain.log).toContain("chain-id (xupgrade-devnet-1)");
    const garbage = await c.comet.broadcastTxSync({ tx: fromHex("0a02ffff") });
    expect([garbage.code, garbage.codespace]).toEqual([2, "sdk"]);
    expect(garbage.log).toMatch(/tx parse error$/);
    const before = node.height();
    await node.waitForHeight(before + 2n);
  });

  it("gov errors are DeliverTx results with gov codes: 11, 13, 10, 2, 7", async () => {
    const alice = key("alice");
    const deliver = async (tx: Uint8Array) => (await broadcastAndWait(c.comet, tx)).result;
    let r = await deliver(await signTx(c.auth, alice, [submitProposalAny(alice.address, [])]));
    expect([r.code, r.codespace, r.log]).toEqual([11, "gov", "failed to execute message; message index: 0: no messages proposed"]);
    r = await deliver(await signTx(c.auth, alice, [submitProposalAny(alice.address, [softwareUpgradeAny("x", 10_000n, "", alice.address)])]));
    expect([r.code, r.codespace, r.log]).toEqual([
      13,
      "gov",
      `failed to execute message; message index: 0: ${alice.address}: expected gov account as only signer for proposal message`,
    ]);
    r = await deliver(await signTx(c.auth, alice, [submitProposalAny(alice.address, [{ typeUrl: "/foo.Bar", value: new Uint8Array() }])]));
    expect([r.code, r.codespace, r.log]).toEqual([
      10,
      "gov",
      "failed to execute message; message index: 0: /foo.Bar: proposal message not recognized by router",
    ]);
    r = await deliver(await signTx(c.auth, alice, [voteAny(999n, alice.address)]));
    expect([r.code, r.codespace, r.log]).toEqual([2, "gov", "failed to execute message; message index: 0: 999: unknown proposal"]);
    r = await deliver(await signTx(c.auth, alice, [voteAny(1n, alice.address, 9)]));
    expect([r.code, r.codespace, r.log]).toEqual([7, "gov", "failed to execute message; message index: 0: 9: invalid vote option"]);
    r = await deliver(await signTx(c.auth, alice, [submitProposalAny(alice.address, [cancelUpgradeAny()], "5", "t", "")]));
    expect([r.code, r.codespace, r.log]).toEqual([
      12,
      "gov",
      "failed to execute message; message index: 0: proposal summary cannot be empty: invalid proposal message",
    ]);
  });

  it("a passed proposal whose upgrade message fails ends FAILED, nothing scheduled; a finished proposal is inactive (3)", async () => {
    const alice = key("alice");
    // Height 2 is in the past by the time the proposal passes.
    const included = await broadcastAndWait(c.comet, await signTx(c.auth, alice, [submitProposalAny(alice.address, [softwareUpgradeAny("past", 2n)])]));
    const id = BigInt(included.result.events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!.value);
    for (const v of ["validator0", "validator1", "validator2"]) {
      expect((await c.comet.broadcastTxSync({ tx: await signTx(c.auth, key(v), [voteAny(id, key(v).address)]) })).code).toBe(0);
    }
    const p = await waitUntil(
      async () => {
        const { proposal } = await c.gov.Proposal({ proposalId: id });
        return proposal!.status === ProposalStatus.PROPOSAL_STATUS_FAILED ? proposal : undefined;
      },
      10_000,
      "the proposal to fail",
    );
    expect(p.failedReason).toBe("upgrade cannot be scheduled in the past: invalid request");
    expect(p.finalTallyResult!.yesCount).toBe("300000000");
    expect((await c.upgrade.CurrentPlan({})).plan).toBeUndefined();
    const late = await broadcastAndWait(c.comet, await signTx(c.auth, key("validator3"), [voteAny(id, key("validator3").address)]));
    expect([late.result.code, late.result.codespace, late.result.log]).toEqual([
      3,
      "gov",
      `failed to execute message; message index: 0: ${id}: inactive proposal`,
    ]);
  });
});

describe("deposits, the deposit period and cosmjs' signing client", () => {
  it("MsgDeposit moves a proposal into the voting period; a proposal short of the minimum deposit is dropped and refunded", async () => {
    const alice = key("alice");
    const bob = key("bob");
    const deliver = async (tx: Uint8Array) => (await broadcastAndWait(c.comet, tx)).result;
    let r = await deliver(await signTx(c.auth, alice, [submitProposalAny(alice.address, [cancelUpgradeAny()], "4000000")]));
    expect(r.code).toBe(0);
    const id = BigInt(r.events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!.value);
    expect((await c.gov.Proposal({ proposalId: id })).proposal!.status).toBe(ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD);
    r = await deliver(await signTx(c.auth, bob, [depositAny(id, bob.address, "6000000")]));
    expect(r.code).toBe(0);
    const p = (await c.gov.Proposal({ proposalId: id })).proposal!;
    expect(p.status).toBe(ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD);
    expect(p.totalDeposit).toEqual([{ denom: "stake", amount: "10000000" }]);

    const balance = async (addr: string) => BigInt((await c.query.bank.balance(addr, "stake")).amount);
    // validator3 takes part in nothing else here, so its balance moves only with this proposal.
    const v3 = key("validator3");
    const before = await balance(v3.address);
    r = await deliver(await signTx(c.auth, v3, [submitProposalAny(v3.address, [cancelUpgradeAny()], "1000")]));
    const short = BigInt(r.events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!.value);
    expect(await balance(v3.address)).toBe(before - 1000n);
    await waitUntil(
      () =>
        c.gov.Proposal({ proposalId: short }).then(
          () => undefined,
          () => true,
        ),
      10_000,
      "the proposal to be dropped",
    );
    expect(await balance(v3.address)).toBe(before);
    r = await deliver(await signTx(c.auth, bob, [depositAny(short, bob.address, "1")]));
    expect([r.code, r.codespace]).toEqual([2, "gov"]);
  });

  it("`tx` never answers `height N is not available` while the tx's block is being committed", async () => {
    // The tx index is visible in the stores while the block's commit is in flight; polling `tx` as fast as
    // possible used to hit that window (the tx found, its block not yet committed: -32603).
    const bob = key("bob");
    const errors: string[] = [];
    for (let i = 0; i < 8; i++) {
      const send = {
        typeUrl: "/cosmos.bank.v1beta1.MsgSend",
        value: MsgSend.encode({ fromAddress: bob.address, toAddress: key("alice").address, amount: [{ denom: "stake", amount: "1" }] }).finish(),
      };
      const r = await c.comet.broadcastTxSync({ tx: await signTx(c.auth, bob, [send]) });
      expect(r.code).toBe(0);
      const end = Date.now() + 10_000;
      for (;;) {
        const { json } = await rpcPost({ jsonrpc: "2.0", id: 1, method: "tx", params: { hash: "0x" + toHex(r.hash) } });
        if (json.result) {
          expect(json.result.tx_result.code).toBe(0);
          break;
        }
        if (!/^tx \([0-9A-F]{64}\) not found$/.test(json.error.data)) errors.push(json.error.data);
        if (Date.now() > end) throw new Error("tx not included");
      }
    }
    expect(errors).toEqual([]);
  });

  it("SigningStargateClient (connectWithSigner + sendTokens) works unmodified: account query, simulate (fee auto), broadcast, tx_search", async () => {
    const alice = key("alice");
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(alice.mnemonic);
    const client = await SigningStargateClient.connectWithSigner(node.rpcUrl, wallet, { gasPrice: GasPrice.fromString("0.01stake") });
    try {
      expect(await client.getChainId()).toBe("xupgrade-devnet-1");
      const to = "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu";
      const res = await client.sendTokens(alice.address, to, [{ denom: "stake", amount: "123" }], { amount: [{ denom: "stake", amount: "5" }], gas: "200000" });
      expect(res.code).toBe(0);
      expect(await client.getBalance(to, "stake")).toEqual({ denom: "stake", amount: "123" });
      expect((await client.getTx(res.transactionHash))?.height).toBe(res.height);
      expect((await client.getAccount(to))?.sequence).toBe(0);
      const auto = await client.sendTokens(alice.address, to, [{ denom: "stake", amount: "7" }], "auto");
      expect(auto.code).toBe(0);
      expect(auto.gasWanted).toBeGreaterThan(auto.gasUsed); // the simulated gas times cosmjs' multiplier
      await expect(client.sendTokens(alice.address, to, [{ denom: "stake", amount: "99999999999999999999" }], "auto")).rejects.toThrow(
        /Query failed with \(5\): failed to execute message; message index: 0: spendable balance \d+stake is smaller than 99999999999999999999stake: insufficient funds/,
      );
    } finally {
      client.disconnect();
    }
  });
});
