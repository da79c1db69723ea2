/**
 * Header verification against real CometBFT v0.38.26 networks (built by `npm run peers`) with its kvstore
 * application: four ed25519 validators of unequal power, one secp256k1 validator on another chain, and a
 * forked one-validator chain (the same genesis and key started twice: two valid histories). The light
 * client reads each node through our RPC provider and through a cosmjs CometClient; a lying proxy in front of
 * the network tampers with what it says; the Go oracle (CometBFT's own light client) judges the same answers.
 */
import { connectComet } from "@cosmjs/tendermint-rpc";
import { fromHex, toHex } from "@cosmjs/encoding";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LightClient } from "../../bindings/light/client.js";
import { CometClientProvider } from "../../bindings/light/comet-provider.js";
import { fetchLightBlock } from "../../bindings/light/provider.js";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import { missingPeerReason, peerBinaries } from "../../scripts/peers/paths.mjs";
import type { TestServer } from "../support/http.js";
import { cometbftNet, forkOf, type Net } from "../support/light/cometbft-net.js";
import { explain, judge, type JudgeInput, type Judged } from "../support/light/judge.js";
import { lyingNode, type Tampering } from "../support/light/proxy.js";
import { removeTempDirs } from "../support/temp.js";

const cometbft = peerBinaries().cometbft;
const missing = missingPeerReason("cometbft");

function expectVerdict(j: Judged, verdict: "verified" | "refused", check?: string): void {
  expect(j.ts.verdict, explain(j)).toBe(verdict);
  if (check) expect(j.ts.check, explain(j)).toBe(check);
  if (j.go) {
    expect(j.go.verdict, explain(j)).toBe(verdict);
    if (check) expect(j.go.kind, explain(j)).toBe(check);
    if (verdict === "verified") expect(j.go.hash).toBe(j.ts.hash);
  }
}

describe.skipIf(!cometbft)(`real CometBFT networks (${cometbft ?? missing})`, () => {
  let four: Net;
  let secp: Net;
  let forkA: Net;
  let forkB: Net;
  const servers: TestServer[] = [];
  /** The trust root every case starts from: height 2 of the four-validator network. */
  let root: { trustHeight: bigint; trustHash: Uint8Array };

  beforeAll(async () => {
    four = await cometbftNet({ cometbft: cometbft!, chainId: "light-four-1", validators: 4, power: (i) => 10 * (i + 1) });
    secp = await cometbftNet({ cometbft: cometbft!, chainId: "light-secp-1", validators: 1, keyType: "secp256k1" });
    forkA = await cometbftNet({ cometbft: cometbft!, chainId: "light-fork-1", validators: 1 });
    forkB = await forkOf(cometbft!, forkA);
    await Promise.all([four.start(), secp.start(), forkA.start(), forkB.start()]);
    const lb = await fetchLightBlock(RpcProvider.of(four.nodes[0].rpcUrl), 2n, four.chainId);
    root = { trustHeight: 2n, trustHash: lb.hash };
    await four.waitForHeight(8n);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all([four, secp, forkA, forkB].map((n) => n?.stop()));
    removeTempDirs();
  });

  const target = async (net: Net, node = 0) => (await net.height(node)) - 1n;

  async function liar(mode: Tampering, other?: string): Promise<string> {
    const l = await lyingNode(four.nodes[0].rpcUrl, { mode, other, above: root.trustHeight });
    servers.push(l);
    return l.url;
  }

  const base = async (extra: Partial<JudgeInput> = {}): Promise<JudgeInput> => ({ chainId: four.chainId, ...root, primary: four.nodes[0].rpcUrl, target: await target(four), ...extra });

  it("verifies the four-validator network's latest header from the root, with another validator as witness", async () => {
    const j = await judge(await base({ witnesses: [four.nodes[3].rpcUrl] }));
    expectVerdict(j, "verified");
    const skip = j.ts.steps.find((s) => s.kind === "skipping")!;
    // Powers 10, 20, 30, 40, signing in set order (by power: 40, 30, …): more than 66 of 100 takes two signatures.
    // The trusted set's 1/3 (more than 33) took the first; each signature is verified once.
    expect(skip.tally).toMatchObject({ total: 100n, needed: 66n, tallied: 70n, signaturesCounted: 2, signaturesVerified: 2 });
    expect(j.ts.steps.some((s) => s.kind === "witness")).toBe(true);
  });

  it("verifies the same header through a cosmjs CometClient", async () => {
    const client = await connectComet(four.nodes[1].rpcUrl);
    try {
      const h = await target(four, 1);
      const light = await LightClient.create(new CometClientProvider(client), { chainId: four.chainId, trust: { height: root.trustHeight, hash: root.trustHash }, withoutWitnesses: true });
      const viaCosmjs = await light.verifyAtHeight(h);
      const viaRpc = await fetchLightBlock(RpcProvider.of(four.nodes[1].rpcUrl), h, four.chainId);
      expect(toHex(viaCosmjs.hash)).toBe(toHex(viaRpc.hash));
      // Height 1 (no last block id, cosmjs says null) hashes the same way too.
      const one = await fetchLightBlock(new CometClientProvider(client), 1n, four.chainId);
      expect(toHex(one.hash)).toBe(toHex((await fetchLightBlock(RpcProvider.of(four.nodes[1].rpcUrl), 1n, four.chainId)).hash));
    } finally {
      client.disconnect();
    }
  });

  it("verifies a real secp256k1 validator's commits", async () => {
    const one = await fetchLightBlock(RpcProvider.of(secp.nodes[0].rpcUrl), 1n, secp.chainId);
    expect(one.validatorSet.validators[0].pubKey.secp256k1).toHaveLength(33);
    const j = await judge({ chainId: secp.chainId, trustHeight: 1n, trustHash: one.hash, primary: secp.nodes[0].rpcUrl, target: await target(secp) });
    expectVerdict(j, "verified");
  });

  it("refuses a forged signature (signature)", async () => {
    expectVerdict(await judge(await base({ primary: await liar("forge-signature") })), "refused", "signature");
  });

  it("refuses a commit whose signatures were dropped below 2/3 (voting-power)", async () => {
    const j = await judge(await base({ primary: await liar("drop-signatures") }));
    expectVerdict(j, "refused", "voting-power");
    // The two largest validators' signatures are gone: 20 + 10 of 100 is left.
    expect(j.ts.error).toMatch(/not enough voting power signed: got 30, needed more than 66/);
  });

  it("refuses a header of another chain (chain-id)", async () => {
    const j = await judge(await base({ primary: await liar("other-chain", secp.nodes[0].rpcUrl), target: 4n }));
    expectVerdict(j, "refused", "chain-id");
  });

  it("refuses another validator set (validators-hash)", async () => {
    expectVerdict(await judge(await base({ primary: await liar("other-validators", forkA.nodes[0].rpcUrl), target: 4n })), "refused", "validators-hash");
  });

  it("refuses a root older than the trusting period (trusting-period)", async () => {
    expectVerdict(await judge(await base({ trustingPeriodNs: 1_000_000_000n })), "refused", "trusting-period");
  });

  it("refuses a trusted hash the network never had (trusted-hash)", async () => {
    expectVerdict(await judge(await base({ trustHash: fromHex("AB".repeat(32)) })), "refused", "trusted-hash");
  });

  it("catches a fork: the primary's header and the witness's both verify from the shared root — a light client attack", async () => {
    const one = await fetchLightBlock(RpcProvider.of(forkA.nodes[0].rpcUrl), 1n, forkA.chainId);
    const other = await fetchLightBlock(RpcProvider.of(forkB.nodes[0].rpcUrl), 1n, forkB.chainId);
    expect(toHex(other.hash)).toBe(toHex(one.hash));
    const h = [await target(forkA), await target(forkB)].reduce((a, b) => (a < b ? a : b));
    const j = await judge({ chainId: forkA.chainId, trustHeight: 1n, trustHash: one.hash, primary: forkB.nodes[0].rpcUrl, witnesses: [forkA.nodes[0].rpcUrl], target: h });
    expectVerdict(j, "refused", "witness");
    expect(j.ts.errorClass).toBe("LightClientAttackError");
    expect(j.ts.error).toContain("a light client attack");
  });
});
