/**
 * x/upgrade's state verified against real simd v0.50.15 (docs/spec/light-client.md §6–§8; live only): a
 * four-validator simd network (`simd testnet init-files`) with a plan scheduled through gov, and a
 * one-validator chain through the real v0.47 → v0.50 upgrade (the Done record in the SDK's layout). The
 * library reads the plan, the protocol version, every module version and every applied upgrade, each proven
 * against a verified app hash; a lying proxy in front of a node makes each lie of the issue; the Go oracle
 * (CometBFT's light client and cosmos/ics23) judges the very same answers and must agree on every header and
 * every proof.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromHex, toHex } from "@cosmjs/encoding";
import { connectComet } from "@cosmjs/tendermint-rpc";
import { loadCore } from "../../bindings/core/index.js";
import type { Core } from "../../bindings/core/contract.js";
import { fetchLightBlock } from "../../bindings/light/provider.js";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import { VerifiedUpgradeClient } from "../../bindings/light/upgrade.js";
import { peerBinaries } from "../../scripts/peers/paths.mjs";
import type { TestServer } from "../support/http.js";
import { cometbftNet, type Net } from "../support/light/cometbft-net.js";
import { judgeUpgrade, type UpgradeJudged, type UpgradeJudgeInput } from "../support/light/judge-upgrade.js";
import { lyingNode, type Tampering } from "../support/light/proxy.js";
import { simdNet, type SimdNet } from "../support/light/simd-net.js";
import { removeTempDirs } from "../support/temp.js";
import { interopPeers } from "./support/peers.js";
import { softwareUpgradeMsg } from "./support/simd.js";

const peers = interopPeers();
const cometbft = peerBinaries().cometbft;
const PLAN = { name: "light-v2", height: 900_000, info: '{"binaries":{"linux/amd64":"https://example.invalid/v2.tar.gz?checksum=sha256:' + "ab".repeat(32) + '"}}' };

let core: Core;
let net: SimdNet;
let other: Net;
const servers: TestServer[] = [];
let root: { trustHeight: bigint; trustHash: Uint8Array };

/** Everything a status page shows, read through one client. */
async function readAll(c: VerifiedUpgradeClient) {
  const [plan, pv, versions, applied] = await Promise.all([c.currentPlan(), c.protocolVersion(), c.moduleVersions(), c.appliedUpgrades()]);
  return { plan: plan.value, protocolVersion: pv.value, versions: versions.value, applied: applied.value, proofs: plan.proofs + pv.proofs + versions.proofs + applied.proofs };
}

type Read = Awaited<ReturnType<typeof readAll>>;

/** The same verdict from both, on the headers and on every proof both saw. */
function expectAgreement(j: UpgradeJudged<unknown>): void {
  const why = () => `xupgrade: ${j.ts.verdict} ${j.ts.check ?? ""} ${j.ts.error ?? ""}\nCometBFT: ${j.go?.verdict} ${j.go?.kind ?? ""} ${j.go?.error ?? ""}\n${JSON.stringify(j.go?.proofs.filter((p) => p.verdict === "refused"))}`;
  expect(j.go, "the Go oracle must run in the interop suite (npm run peers builds it)").toBeDefined();
  const headerRefused = j.ts.verdict === "refused" && j.ts.check !== "proof" && j.ts.check !== "proof-missing";
  expect(j.go!.verdict, why()).toBe(headerRefused ? "refused" : "verified");
  if (headerRefused) expect(j.go!.kind, why()).toBe(j.ts.check);
  for (const note of j.proofs) {
    const go = j.go!.proofs.find((p) => p.name === note.key);
    expect(go, `the oracle judged key ${note.key}`).toBeDefined();
    expect(go!.verdict, `key ${note.key}: ${why()}`).toBe(note.verdict);
  }
  expect(j.proofs.length).toBeGreaterThan(headerRefused ? -1 : 0);
}

async function liar(mode: Tampering, o: { other?: string } = {}): Promise<string> {
  const l = await lyingNode(net.nodes[0].rpcUrl, {
    mode,
    above: root.trustHeight,
    other: o.other,
    fakePlan: (original) => core.encodePlan(original ? { ...core.decodePlan(original), height: core.decodePlan(original).height + 1000n } : { name: "invented", height: 123n, info: "" }),
  });
  servers.push(l);
  return l.url;
}

const input = (extra: Partial<UpgradeJudgeInput> = {}): UpgradeJudgeInput => ({ ...root, primary: net.nodes[0].rpcUrl, ...extra });

beforeAll(async () => {
  core = await loadCore("wasm");
  net = await simdNet({ binary: peers.simd050, chainId: "light-sdk-1", validators: 4 });
  other = await cometbftNet({ cometbft: cometbft!, chainId: "light-elsewhere-1", validators: 1 });
  await Promise.all([net.start(), other.start()]);
  const lb = await fetchLightBlock(RpcProvider.of(net.nodes[0].rpcUrl), 3n, net.chainId);
  root = { trustHeight: 3n, trustHash: lb.hash };
  await net.pass(softwareUpgradeMsg(PLAN));
  await net.waitForHeight((await net.height()) + 2n);
}, 240_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all([net?.stop(), other?.stop()]);
  removeTempDirs();
});

describe("four simd v0.50 validators, a plan scheduled through gov", () => {
  let honest: UpgradeJudged<Read>;

  it("reads the plan, the protocol version, every module version and the applied upgrades, all proven; the oracle agrees on each proof", async () => {
    honest = await judgeUpgrade(input({ witnesses: [net.nodes[2].rpcUrl] }), readAll);
    expect(honest.ts.verdict, honest.ts.error).toBe("verified");
    const v = honest.ts.value!;
    expect(v.plan).toEqual({ name: PLAN.name, height: BigInt(PLAN.height), info: PLAN.info });
    expect(v.protocolVersion).toBe(0n);
    expect(v.applied).toEqual({ layout: undefined, entries: [] });
    // The same as the node's own (unproven) REST answer: nothing left out, nothing added.
    const rest = (await (await fetch(`${net.nodes[0].restUrl}/cosmos/upgrade/v1beta1/module_versions`)).json()) as { module_versions: { name: string; version: string }[] };
    expect(v.versions.map((m) => `${m.name}=${m.version}`)).toEqual(rest.module_versions.map((m) => `${m.name}=${m.version}`));
    // One proof each for the plan and the protocol version, n + 1 for n module versions, 1 for no Done record.
    expect(v.proofs).toBe(1 + 1 + (v.versions.length + 1) + 1);
    expect(honest.ts.steps.some((s) => s.kind === "witness")).toBe(true);
    expectAgreement(honest);
    // The module versions come from the neighbours the absence proofs name: the oracle reads the same ones.
    const named = new Map<string, string>();
    for (const p of honest.go!.proofs) for (const n of [p.left, p.right]) if (n && n.key.startsWith("02")) named.set(n.key, n.value);
    const ours = v.versions.map((m) => [`02${toHex(new TextEncoder().encode(m.name))}`, m.version.toString(16).padStart(16, "0")]);
    expect([...named].sort()).toEqual(ours.sort());
    expect(honest.go!.proofs.filter((p) => p.verdict === "exists").map((p) => p.name)).toEqual(["00"]);
  });

  it("reads the same through a cosmjs CometClient", async () => {
    const client = await connectComet(net.nodes[3].rpcUrl);
    try {
      const c = await VerifiedUpgradeClient.connect(client, { trust: { height: root.trustHeight, hash: root.trustHash } });
      await c.sync();
      const v = await readAll(c);
      expect(v.plan).toEqual(honest.ts.value!.plan);
      expect(v.versions).toEqual(honest.ts.value!.versions);
    } finally {
      client.disconnect();
    }
  });

  const cases: [string, Tampering, string, (() => { other?: string }) | undefined][] = [
    ["plan bytes changed in the abci_query answer", "plan-value", "proof", undefined],
    ["one byte of a proof flipped", "proof-byte", "proof", undefined],
    ["signatures dropped below 2/3", "drop-signatures", "voting-power", undefined],
    ["one signature forged", "forge-signature", "signature", undefined],
    ["a header of another chain id", "other-chain", "chain-id", () => ({ other: other.nodes[0].rpcUrl })],
    ["another validator set", "other-validators", "validators-hash", () => ({ other: other.nodes[0].rpcUrl })],
    ["prove stripped from the query", "strip-prove", "proof-missing", undefined],
  ];
  for (const [what, mode, check, extra] of cases) {
    it(`refuses ${what} (${check}), and the oracle agrees`, async () => {
      const target = await net.height();
      const j = await judgeUpgrade(input({ primary: await liar(mode, extra?.()), syncTo: mode === "other-chain" || mode === "other-validators" ? 5n : target - 1n }), readAll);
      expect(j.ts.verdict).toBe("refused");
      expect(j.ts.check, j.ts.error).toBe(check);
      expectAgreement(j);
    });
  }

  it("refuses a trust root older than the trusting period (trusting-period), and the oracle agrees", async () => {
    const j = await judgeUpgrade(input({ trustingPeriodNs: 1_000_000_000n }), readAll);
    expect(j.ts.check, j.ts.error).toBe("trusting-period");
    expectAgreement(j);
  });

  it("says exactly which key and height a refused proof was for", async () => {
    const j = await judgeUpgrade(input({ primary: await liar("plan-value") }), readAll);
    expect(j.ts.error).toMatch(/^at height \d+: the proof of upgrade key 0x00 = 0x[0-9a-f]+ does not hold against the verified app hash: /);
  });

  it("verifies a single Done record key and a module version key, present and absent", async () => {
    const c = await VerifiedUpgradeClient.connect(net.nodes[1].rpcUrl, { trust: { height: root.trustHeight, hash: root.trustHash } });
    await c.sync();
    expect((await c.moduleVersion("upgrade")).value).toBe(honest.ts.value!.versions.find((m) => m.name === "upgrade")!.version);
    expect((await c.moduleVersion("no-such-module")).value).toBeUndefined();
    expect((await c.doneRecord("never", 5n)).value).toBe(0n);
    expect((await c.doneRecord("never")).value).toBe(0n);
    expect(toHex(c.trustRoot().hash)).toHaveLength(64);
    expect(fromHex(toHex(c.header.appHash))).toHaveLength(32);
  });
});
