/**
 * Store proofs (docs/spec/light-client.md §7) against a synthetic SDK node: a synthetic chain of validators
 * whose latest header commits to a real commit multistore (IAVL trees, SDK commit info), answering
 * `abci_query` with the SDK's two proof ops. The plan, the protocol version, the complete module-version and
 * Done ranges (both layouts), the gov proposals in their voting period; a lying node's changed value, flipped
 * proof byte, stripped proof and short listing; each judged again by the Go oracle when it is built.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import { VerifiedUpgradeClient } from "../../bindings/light/upgrade.js";
import { loadCore } from "../../bindings/core/index.js";
import type { TestServer } from "../support/http.js";
import { judgeUpgrade, type UpgradeJudged } from "../support/light/judge-upgrade.js";
import { forgedRangeNode } from "../support/light/forged-range.js";
import { lyingNode, type Tampering } from "../support/light/proxy.js";
import { serveJsonRpc } from "../support/light/rpc-server.js";
import { SIMD_VERSIONS, syntheticSdkNode, type SdkNode } from "../support/light/synthetic-sdk.js";
import { removeTempDirs } from "../support/temp.js";

const PLAN = { name: "v2", height: 5_000n, info: '{"binaries":{}}' };
let node: SdkNode;
let seed: SdkNode;
const servers: TestServer[] = [];

beforeAll(async () => {
  node = await syntheticSdkNode({
    chain: { chainId: "sdk-synthetic-1", validators: 7, latest: 30n },
    state: {
      plan: PLAN,
      protocolVersion: 2n,
      done: [
        { name: "v1", height: 12n },
        { name: "v1.5", height: 20n },
      ],
      proposal: { id: 3n, plan: { name: "v3", height: 40n, info: "" }, votingEndNs: BigInt(Date.now() + 3_600_000) * 1_000_000n },
    },
  });
  seed = await syntheticSdkNode({ chain: { chainId: "seed-synthetic-1", validators: 4, latest: 10n }, state: { seedDone: [{ name: "v1", height: 7n }] } });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await node?.close();
  await seed?.close();
  removeTempDirs();
});

const read = async (c: VerifiedUpgradeClient) => ({
  plan: (await c.currentPlan()).value,
  pv: (await c.protocolVersion()).value,
  versions: (await c.moduleVersions()).value,
  applied: (await c.appliedUpgrades()).value,
  proposals: (await c.proposedUpgrades()).value,
});

function expectOracleAgrees(j: UpgradeJudged<unknown>): void {
  if (!j.go) return;
  const headerRefused = j.ts.verdict === "refused" && j.ts.check !== "proof" && j.ts.check !== "proof-missing";
  expect(j.go.verdict).toBe(headerRefused ? "refused" : "verified");
  for (const n of j.proofs) expect(j.go.proofs.find((p) => p.name === n.key)?.verdict, `key ${n.key}: ${JSON.stringify(j.go.proofs)}`).toBe(n.verdict);
}

const root = () => ({ trustHeight: 1n, trustHash: node.chain.hash(1n) });

describe("proven x/upgrade state", () => {
  it("the plan, the protocol version, every module version, the Done records in the SDK's layout and the proposed upgrades", async () => {
    const j = await judgeUpgrade({ ...root(), primary: node.url }, read);
    expect(j.ts.verdict, j.ts.error).toBe("verified");
    const v = j.ts.value!;
    expect(v.plan).toEqual(PLAN);
    expect(v.pv).toBe(2n);
    expect(v.versions.map((m) => [m.name, m.version])).toEqual(SIMD_VERSIONS);
    expect(v.applied).toEqual({
      layout: "sdk",
      entries: [
        { name: "v1", height: 12n },
        { name: "v1.5", height: 20n },
      ],
    });
    expect(v.proposals.map((p) => [p.proposalId, p.plan.name, p.plan.height])).toEqual([[3n, "v3", 40n]]);
    expectOracleAgrees(j);
  });

  it("a Done record in the seed's layout, by name: present with its height, absent proven", async () => {
    const c = await VerifiedUpgradeClient.connect(seed.url, { trust: { height: 1n, hash: seed.chain.hash(1n) }, withoutWitnesses: true });
    await c.sync();
    expect((await c.doneRecord("v1")).value).toBe(7n);
    expect((await c.doneRecord("v9")).value).toBe(0n);
    expect((await c.appliedUpgrades()).value).toEqual({ layout: "seed", entries: [{ name: "v1", height: 7n }] });
    expect((await c.appliedPlan("v9")).value).toBe(0n);
    // and in the SDK's layout, by height and name
    const sdk = await VerifiedUpgradeClient.connect(node.url, { trust: { height: 1n, hash: node.chain.hash(1n) }, withoutWitnesses: true });
    await sdk.sync();
    expect((await sdk.doneRecord("v1", 12n)).value).toBe(12n);
    expect((await sdk.doneRecord("v1", 13n)).value).toBe(0n);
    expect((await sdk.appliedPlan("v1.5")).value).toBe(20n);
  });

  it("a node whose listing leaves a module out cannot hide it: the range is proven by its proofs, not the listing", async () => {
    const short = await serveJsonRpc(async (method, params) => {
      const res = await fetch(node.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await res.json()) as { result: { response?: { value?: string } } };
      if (method === "abci_query" && String(params.path).endsWith("/subspace")) body.result.response!.value = ""; // "nothing here"
      return body.result;
    });
    servers.push(short);
    const c = await VerifiedUpgradeClient.connect(short.url, { trust: { height: 1n, hash: node.chain.hash(1n) }, withoutWitnesses: true });
    await c.sync();
    const versions = await c.moduleVersions();
    expect(versions.value).toHaveLength(SIMD_VERSIONS.length);
    expect(versions.proofs).toBe(SIMD_VERSIONS.length + 1);
  });

  it("a state the node no longer keeps is a provider failure naming the height", async () => {
    const c = await VerifiedUpgradeClient.connect(node.url, { trust: { height: 1n, hash: node.chain.hash(1n) }, withoutWitnesses: true });
    await c.sync(node.chain.latest - 1n);
    await expect(c.currentPlan()).rejects.toMatchObject({ check: "provider", height: node.stateHeight - 1n });
  });
});

describe("a lying node's store answers are refused", () => {
  const cases: [Tampering, string, RegExp][] = [
    ["plan-value", "proof", /^at height 30: the proof of upgrade key 0x00 = 0x[0-9a-f]+ does not hold against the verified app hash: /],
    ["proof-byte", "proof", /^at height 30: the proof of upgrade key 0x00 .* does not hold against the verified app hash: /],
    ["strip-prove", "proof-missing", /^at height 30: the node sent no proof for upgrade key 0x00 \(it ignored prove=true/],
  ];
  for (const [mode, check, message] of cases) {
    it(`${mode} → ${check}`, async () => {
      const core = await loadCore("js");
      const liar = await lyingNode(node.url, { mode, above: 1n, fakePlan: (p) => core.encodePlan({ ...core.decodePlan(p!), height: 9_999n }) });
      servers.push(liar);
      const j = await judgeUpgrade({ ...root(), primary: liar.url }, (c) => c.currentPlan());
      expect(j.ts.check, j.ts.error).toBe(check);
      expect(j.ts.error).toMatch(message);
      expectOracleAgrees(j);
    });
  }

  it("through CometBFT's URI form (GET), as the page asks, the same verdicts", async () => {
    const { CometRpc } = await import("../../bindings/client/rpc.js");
    const { uriTransport } = await import("../../bindings/client/uri-transport.js");
    const c = await VerifiedUpgradeClient.connect(new RpcProvider(new CometRpc(node.url, 5000, uriTransport)), {
      trust: { height: 1n, hash: node.chain.hash(1n) },
      withoutWitnesses: true,
    });
    await c.sync();
    expect((await c.currentPlan()).value).toEqual(PLAN);
    const liar = await lyingNode(node.url, { mode: "proof-byte", above: 1n });
    servers.push(liar);
    const bad = await VerifiedUpgradeClient.connect(new RpcProvider(new CometRpc(liar.url, 5000, uriTransport)), {
      trust: { height: 1n, hash: node.chain.hash(1n) },
      withoutWitnesses: true,
    });
    await bad.sync();
    await expect(bad.currentPlan()).rejects.toMatchObject({ check: "proof" });
  });
});

describe("the forged range: an invented non-existence proof stacked on a batch holding the genuine one", () => {
  const evil = { key: Uint8Array.of(0x02, ...new TextEncoder().encode("evil")), value: Uint8Array.of(0, 0, 0, 0, 0, 0, 3, 231) };
  for (const backend of ["wasm", "js"] as const) {
    for (const form of ["invented-first", "batch-first"] as const) {
      it(`is refused as non-canonical by the ${backend} core (${form}), and no entry is shown`, async () => {
        const liar = await forgedRangeNode(node.url, { prefix: Uint8Array.of(0x02), invented: [evil], form });
        servers.push(liar);
        const c = await VerifiedUpgradeClient.connect(liar.url, { trust: { height: 1n, hash: node.chain.hash(1n) }, withoutWitnesses: true, core: backend });
        await c.sync();
        const err = await c.moduleVersions().then(
          () => undefined,
          (e: unknown) => e as { check: string; message: string },
        );
        expect(liar.forged).toBeGreaterThan(0);
        expect(err?.check).toBe("proof");
        expect(err?.message).toMatch(
          /^at height 30: the proof of upgrade key 0x02 \(absent\) does not hold against the verified app hash: proof op 0 \(ics23:iavl\): the proof is not canonically encoded: CommitmentProof holds two proofs/,
        );
      });
    }
  }

  it("the genuine absence proofs in another canonical encoding (each wrapped in a batch) give the honest range", async () => {
    const wrapped = await forgedRangeNode(node.url, { prefix: Uint8Array.of(0x02), invented: [evil], form: "batch-only" });
    servers.push(wrapped);
    for (const backend of ["wasm", "js"] as const) {
      const c = await VerifiedUpgradeClient.connect(wrapped.url, { trust: { height: 1n, hash: node.chain.hash(1n) }, withoutWitnesses: true, core: backend });
      await c.sync();
      expect((await c.moduleVersions()).value.map((m) => [m.name, m.version])).toEqual(SIMD_VERSIONS);
    }
    expect(wrapped.forged).toBeGreaterThan(0);
  });
});
