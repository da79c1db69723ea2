/**
 * x/upgrade's state verified against real simd v0.50.15 (docs/spec/light-client.md §6–§8; live only): a
 * four-validator simd network (`simd testnet init-files`) with a plan scheduled through gov, and a
 * one-validator chain through the real v0.47 → v0.50 upgrade (the Done record in the SDK's layout). The
 * library reads the plan, the protocol version, every module version and every applied upgrade, each proven
 * against a verified app hash; a lying proxy in front of a node tells each lie of docs/spec/light-client.md §6; the Go oracle
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
import { cometbftNet, forkOf, type Net } from "../support/light/cometbft-net.js";
import { judgeUpgrade, type UpgradeJudged, type UpgradeJudgeInput } from "../support/light/judge-upgrade.js";
import { lyingNode, type Tampering } from "../support/light/proxy.js";
import { simdNet, type SimdNet } from "../support/light/simd-net.js";
import { removeTempDirs, tempDir } from "../support/temp.js";
import { runCli } from "../apps/cli/helpers.js";
import { innerTexts, launchChromium, openPage, pasteHash, staticUi, text, trustFirstUse, waitText, type OpenPage } from "../examples/light-client/helpers.js";
import type { Browser, Page } from "playwright";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/paths.js";
import { interopPeers } from "./support/peers.js";
import { softwareUpgradeMsg } from "./support/simd.js";

const peers = interopPeers();
const cometbft = peerBinaries().cometbft;
const PLAN = {
  name: "light-v2",
  height: 900_000,
  info: '{"binaries":{"linux/amd64":"https://example.invalid/v2.tar.gz?checksum=sha256:' + "ab".repeat(32) + '"}}',
};

let core: Core;
let net: SimdNet;
let other: Net;
const servers: TestServer[] = [];
let root: { trustHeight: bigint; trustHash: Uint8Array };

/** Everything a status page shows, read through one client. */
async function readAll(c: VerifiedUpgradeClient) {
  const [plan, pv, versions, applied] = await Promise.all([c.currentPlan(), c.protocolVersion(), c.moduleVersions(), c.appliedUpgrades()]);
  return {
    plan: plan.value,
    protocolVersion: pv.value,
    versions: versions.value,
    applied: applied.value,
    proofs: plan.proofs + pv.proofs + versions.proofs + applied.proofs,
  };
}

type Read = Awaited<ReturnType<typeof readAll>>;

/** The same verdict from both, on the headers and on every proof both saw. */
function expectAgreement(j: UpgradeJudged<unknown>): void {
  const why = () =>
    `xupgrade: ${j.ts.verdict} ${j.ts.check ?? ""} ${j.ts.error ?? ""}\nCometBFT: ${j.go?.verdict} ${j.go?.kind ?? ""} ${j.go?.error ?? ""}\n${JSON.stringify(j.go?.proofs.filter((p) => p.verdict === "refused"))}`;
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
    fakePlan: (original) =>
      core.encodePlan(
        original ? { ...core.decodePlan(original), height: core.decodePlan(original).height + 1000n } : { name: "invented", height: 123n, info: "" },
      ),
  });
  servers.push(l);
  return l.url;
}

const input = (extra: Partial<UpgradeJudgeInput> = {}): UpgradeJudgeInput => ({ ...root, primary: net.nodes[0].rpcUrl, ...extra });

beforeAll(async () => {
  core = await loadCore("wasm");
  // Voting lasts 20 s: long enough for the page to see a proposal in its voting period on a loaded machine.
  net = await simdNet({ binary: peers.simd050, chainId: "light-sdk-1", validators: 4, votingPeriod: "20s" });
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
    const rest = (await (await fetch(`${net.nodes[0].restUrl}/cosmos/upgrade/v1beta1/module_versions`)).json()) as {
      module_versions: { name: string; version: string }[];
    };
    expect(v.versions.map((m) => `${m.name}=${m.version}`)).toEqual(rest.module_versions.map((m) => `${m.name}=${m.version}`));
    // One proof each for the plan and the protocol version, n + 1 for n module versions, 1 for no Done record.
    expect(v.proofs).toBe(1 + 1 + (v.versions.length + 1) + 1);
    (globalThis as { __honestVersions?: unknown }).__honestVersions = v.versions;
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
      const c = await VerifiedUpgradeClient.connect(client, { trust: { height: root.trustHeight, hash: root.trustHash }, witnesses: [net.nodes[0].rpcUrl] });
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
      const j = await judgeUpgrade(
        input({ primary: await liar(mode, extra?.()), syncTo: mode === "other-chain" || mode === "other-validators" ? 5n : target - 1n }),
        readAll,
      );
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
    const c = await VerifiedUpgradeClient.connect(net.nodes[1].rpcUrl, {
      trust: { height: root.trustHeight, hash: root.trustHash },
      witnesses: [net.nodes[2].rpcUrl],
    });
    await c.sync();
    expect((await c.moduleVersion("upgrade")).value).toBe(honest.ts.value!.versions.find((m) => m.name === "upgrade")!.version);
    expect((await c.moduleVersion("no-such-module")).value).toBeUndefined();
    expect((await c.doneRecord("never", 5n)).value).toBe(0n);
    expect((await c.doneRecord("never")).value).toBe(0n);
    expect(toHex(c.trustRoot().hash)).toHaveLength(64);
    expect(fromHex(toHex(c.header.appHash))).toHaveLength(32);
  });
});

describe("the CLI: xupgrade query upgrade … --verify against the four validators", () => {
  const trustFlags = () => ["--trust-height", root.trustHeight.toString(), "--trust-hash", toHex(root.trustHash).toUpperCase()];

  const witness = () => ["--witness", net.nodes[1].rpcUrl];
  /** The answer without its verification section: the plain query's answer. */
  const answer = (stdout: string) => {
    const { verification: _, ...rest } = JSON.parse(stdout) as Record<string, unknown>;
    return rest;
  };

  it("prints the plan, proven, and exits 0; stderr says against which header", async () => {
    const home = tempDir("xupgrade-light-cli-");
    const r = await runCli([
      "query",
      "upgrade",
      "plan",
      "--verify",
      ...trustFlags(),
      "--node",
      net.nodes[0].rpcUrl,
      "--home",
      home,
      "-o",
      "json",
      ...witness(),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(answer(r.stdout)).toEqual({
      name: PLAN.name,
      time: "0001-01-01T00:00:00Z",
      height: String(PLAN.height),
      info: PLAN.info,
      upgraded_client_state: null,
    });
    expect(JSON.parse(r.stdout).verification).toMatchObject({
      trust_root: { source: "given", confirmed: true },
      witnesses: [net.nodes[1].rpcUrl],
      warnings: [],
    });
    expect(r.stderr).toMatch(
      /^verified: plan "light-v2" at height \d+, against the app hash [0-9A-F]{64} of header \d+ \([0-9A-F]{64}, light-sdk-1, \S+, \d+ s old\), 1 store proof, confirmed by 1 witness$/m,
    );
    // The answer is the plain query's, field for field.
    const plain = await runCli(["query", "upgrade", "plan", "--node", net.nodes[0].rpcUrl, "--home", home, "-o", "json"]);
    expect(answer(r.stdout)).toEqual(JSON.parse(plain.stdout));
  });

  it("module_versions and applied, proven; a name never applied is proven absent (exit 1, as the plain query)", async () => {
    const home = tempDir("xupgrade-light-cli-");
    const mv = await runCli([
      "query",
      "upgrade",
      "module_versions",
      "--verify",
      ...trustFlags(),
      "--node",
      net.nodes[2].rpcUrl,
      "--home",
      home,
      "-o",
      "json",
      ...witness(),
    ]);
    expect(mv.code, mv.stderr).toBe(0);
    const plain = await runCli(["query", "upgrade", "module_versions", "--node", net.nodes[2].rpcUrl, "--home", home, "-o", "json"]);
    expect(answer(mv.stdout)).toEqual(JSON.parse(plain.stdout));
    const ap = await runCli(["query", "upgrade", "applied", "light-v2", "--verify", "--node", net.nodes[2].rpcUrl, "--home", home, ...witness()]);
    expect(ap.code).toBe(1);
    expect(ap.stderr).toMatch(/verified: "light-v2" was not applied \(every Done record\)/);
    expect(ap.stderr.trim().split("\n").at(-1)).toBe("Error: no upgrade found");
  });

  it("refuses without a root; trusts on first use only when asked, says so, and keeps saying it from the trust file", async () => {
    const home = tempDir("xupgrade-light-cli-");
    const none = await runCli(["query", "upgrade", "plan", "--verify", "--node", net.nodes[3].rpcUrl, "--home", home, ...witness()]);
    expect(none.code).toBe(1);
    expect(none.stderr.trim().split("\n").at(-1)).toMatch(/^Error: no trust root for chain "light-sdk-1" .*--trust-on-first-use/);
    const first = await runCli(["query", "upgrade", "plan", "--verify", "--trust-on-first-use", "--node", net.nodes[3].rpcUrl, "--home", home, ...witness()]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^trust root: this node's own latest header, taken unverified on first use \(height \d+, hash [0-9A-F]{64}, with /m);
    expect(first.stdout).toContain("UNCONFIRMED TRUST ROOT");
    const again = await runCli(["query", "upgrade", "plan", "--verify", "--node", net.nodes[3].rpcUrl, "--home", home, ...witness()]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /^trust root: the header verified last time, trusted since first use \(height \d+, hash [0-9A-F]{64}, .*\) — never confirmed$/m,
    );
    expect(again.stdout).toContain("UNCONFIRMED TRUST ROOT");
  });

  const lies: [Tampering, RegExp, (() => { other?: string }) | undefined][] = [
    [
      "plan-value",
      /^Error: verification failed: at height \d+: the proof of upgrade key 0x00 = 0x[0-9a-f]+ does not hold against the verified app hash: /,
      undefined,
    ],
    ["proof-byte", /^Error: verification failed: at height \d+: the proof of upgrade key 0x00 .* does not hold against the verified app hash: /, undefined],
    [
      "drop-signatures",
      /^Error: verification failed: at height \d+: not enough voting power signed: got \d+, needed more than \d+ \(2\/3 of the set\)$/,
      undefined,
    ],
    ["forge-signature", /^Error: verification failed: at height \d+: commit signature #\d+ \(validator [0-9A-F]{40}\) is wrong$/, undefined],
    [
      "other-chain",
      /^Error: verification failed: at height \d+: the header belongs to chain "light-elsewhere-1", not "light-sdk-1"$/,
      () => ({ other: other.nodes[0].rpcUrl }),
    ],
    [
      "other-validators",
      /^Error: verification failed: at height \d+: validators_hash [0-9A-F]{64} does not match the validator set the node supplied \([0-9A-F]{64}\)$/,
      () => ({ other: other.nodes[0].rpcUrl }),
    ],
    ["strip-prove", /^Error: verification failed: at height \d+: the node sent no proof for upgrade key 0x00 \(it ignored prove=true/, undefined],
  ];
  for (const [mode, message, extra] of lies) {
    it(`exits 1 with its own reason when the node lies: ${mode}`, async () => {
      const url = await liar(mode, extra?.());
      const r = await runCli(["query", "upgrade", "plan", "--verify", ...trustFlags(), "--node", url, "--home", tempDir("xupgrade-light-cli-"), ...witness()]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n").at(-1)).toMatch(message);
    });
  }

  it("exits 1 when the root is older than the trusting period", async () => {
    const r = await runCli([
      "query",
      "upgrade",
      "plan",
      "--verify",
      ...trustFlags(),
      "--trusting-period",
      "1s",
      "--node",
      net.nodes[0].rpcUrl,
      "--home",
      tempDir("xupgrade-light-cli-"),
      ...witness(),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(
      /^Error: verification failed: at height 3: the trusted header expired at \S+ \(now \S+\); obtain a newer trust root$/,
    );
  });
});

describe("the status page in verified mode, in Chromium, against the four validators", () => {
  let browser: Browser;
  let site: TestServer;
  const opened: OpenPage[] = [];
  const SHOTS = join(ROOT, "test-output/interop");

  async function shot(page: Page, name: string, docs?: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    const file = join(SHOTS, `light-verified-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    // The committed screenshots change only on purpose: when missing, or with XUPGRADE_UPDATE_SCREENSHOT=1.
    if (docs && (!existsSync(join(ROOT, "docs", docs)) || process.env.XUPGRADE_UPDATE_SCREENSHOT === "1")) copyFileSync(file, join(ROOT, "docs", docs));
  }

  const url = (rpc: string, extra: Record<string, string> = {}) =>
    `${site.url}/index.html?${new URLSearchParams({ rpc, rest: net.nodes[0].restUrl, poll: "700", ...extra })}`;

  async function open(u: string): Promise<OpenPage> {
    const o = await openPage(browser, u);
    opened.push(o);
    return o;
  }

  beforeAll(async () => {
    site = await staticUi();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) await o.context.close().catch(() => undefined);
    await browser?.close();
    await site?.close();
  });

  it("with no root: nothing verified; first use chosen: every badge amber; confirmed with the hash another validator gives: green", async () => {
    const { page, errors } = await open(url(net.nodes[0].rpcUrl, { witness: net.nodes[1].rpcUrl }));
    await page.waitForFunction(() => document.body.dataset.state === "no-root", undefined, { timeout: 60_000 });
    expect(await text(page, "trust-headline")).toBe("No trust root for light-sdk-1");
    expect(await page.locator('[data-testid="verified-badge"]').count()).toBe(0);
    await trustFirstUse(page);
    await page.waitForFunction(() => document.body.dataset.state === "verified" && document.body.dataset.root === "unconfirmed", undefined, {
      timeout: 60_000,
    });
    expect(await text(page, "plan-name")).toBe(PLAN.name);
    expect(await text(page, "plan-height")).toBe(String(PLAN.height));
    const amber = await innerTexts(page, '[data-testid="verified-badge"]');
    expect(amber).toHaveLength(4);
    for (const b of amber) expect(b).toMatch(/^⚠ verified against an unconfirmed root /);
    expect(await text(page, "trust-root")).toMatch(
      /^this node's own latest header, taken unverified on first use \(height \d+, hash [0-9A-F]{12}…[0-9A-F]{6}, with http:\/\/127\.0\.0\.1:\d+ at .*\) — NOT CONFIRMED$/,
    );
    await shot(page, "unconfirmed");
    // The user's source: another validator's /commit at the height the page asks about.
    const height = await text(page, "confirm-height");
    const commit = (await (await fetch(`${net.nodes[2].rpcUrl}/commit?height=${height}`)).json()) as {
      result: { signed_header: { commit: { block_id: { hash: string } } } };
    };
    await pasteHash(page, "confirm-form", commit.result.signed_header.commit.block_id.hash);
    await page.waitForFunction(() => document.body.dataset.root === "confirmed", undefined, { timeout: 60_000 });
    await page.waitForFunction(() => Number(document.querySelector("#footer")?.getAttribute("data-polls")) >= 3);
    const green = await innerTexts(page, '[data-testid="verified-badge"]');
    expect(green).toHaveLength(4);
    for (const b of green) expect(b).toMatch(/^✓ verified /);
    expect(green[1]).toMatch(/plan “light-v2” at height \d+, against the app hash of header \d+/);
    expect(await text(page, "trust-root")).toMatch(
      new RegExp(
        `^(the root you gave|the header verified last time, trusted since the root you gave) \\(height ${height}, hash [0-9A-F]{64}, .*\\) — confirmed$`,
      ),
    );
    expect(await text(page, "witnesses")).toContain(`confirmed by ${net.nodes[1].rpcUrl}`);
    expect(await text(page, "chain-id")).toBe("light-sdk-1");
    expect(await page.locator('[data-testid="module"]').count()).toBe(honestVersions().length);
    // The ETA from verified block times, with its error band.
    await waitText(page, "eta", /between .* and .* \(±2σ of \d+ verified block times\)/);
    expect(await page.evaluate(() => document.body.dataset.state)).toBe("verified");
    await shot(page, "honest");
    expect(errors).toEqual([]);
  }, 180_000);

  it("from a trust root in the page address, said so, amber until confirmed", async () => {
    const { page } = await open(url(net.nodes[2].rpcUrl, { trust_height: root.trustHeight.toString(), trust_hash: toHex(root.trustHash) }));
    await page.waitForFunction(() => document.body.dataset.state === "verified", undefined, { timeout: 60_000 });
    expect(await text(page, "trust-root")).toMatch(/^the root in the link, not yet confirmed by you \(height 3, hash [0-9A-F]{12}…[0-9A-F]{6}, /);
    expect(await page.evaluate(() => document.body.dataset.root)).toBe("unconfirmed");
    await pasteHash(page, "confirm-form", toHex(root.trustHash));
    await page.waitForFunction(() => document.body.dataset.root === "confirmed", undefined, { timeout: 60_000 });
  }, 90_000);

  const lies: [Tampering, string, (() => { other?: string }) | undefined][] = [
    ["forge-signature", "signature", undefined],
    ["drop-signatures", "voting-power", undefined],
    ["plan-value", "proof", undefined],
    ["proof-byte", "proof", undefined],
    ["other-chain", "chain-id", () => ({ other: other.nodes[0].rpcUrl })],
    ["other-validators", "validators-hash", () => ({ other: other.nodes[0].rpcUrl })],
    ["strip-prove", "proof-missing", undefined],
  ];
  for (const [mode, check, extra] of lies) {
    it(`turns a lying node into its own red failure, nothing shown as verified: ${mode} → ${check}`, async () => {
      const liarUrl = await liar(mode, extra?.());
      const { page, errors } = await open(url(liarUrl, { trust_height: root.trustHeight.toString(), trust_hash: toHex(root.trustHash) }));
      await page.waitForFunction(() => document.body.dataset.state === "refused", undefined, { timeout: 60_000 });
      const err = page.locator('[data-testid="verify-error"]');
      expect(await err.getAttribute("data-check")).toBe(check);
      expect(await err.getAttribute("data-height")).toMatch(/^\d+$/);
      expect(await err.innerText()).toContain(`check “${check}” at height`);
      expect(await page.locator('[data-testid="verified-badge"]').count()).toBe(0);
      expect(await page.locator('[data-testid="plan-name"]').count()).toBe(0);
      expect(await page.locator('[data-testid="not-verified"]').count()).toBe(4);
      if (mode === "forge-signature") await shot(page, "refused-signature", "light-client-refused.png");
      expect(errors).toEqual([]);
    }, 90_000);
  }

  it("refuses a root older than the trusting period (trusting-period)", async () => {
    const { page } = await open(
      url(net.nodes[0].rpcUrl, { trust_height: root.trustHeight.toString(), trust_hash: toHex(root.trustHash), trusting_period: "1s" }),
    );
    await page.waitForFunction(() => document.body.dataset.state === "refused", undefined, { timeout: 60_000 });
    expect(await page.locator('[data-testid="verify-error"]').getAttribute("data-check")).toBe("trusting-period");
  }, 60_000);

  it("turns a witness with a conflicting header (a fork signed by the same validator) into a red light client attack", async () => {
    const a = await cometbftNet({ cometbft: cometbft!, chainId: "light-fork-page-1", validators: 1 });
    const b = await forkOf(cometbft!, a);
    try {
      await Promise.all([a.start(), b.start()]);
      const one = await fetchLightBlock(RpcProvider.of(a.nodes[0].rpcUrl), 1n, a.chainId);
      const { page, errors } = await open(url(b.nodes[0].rpcUrl, { trust_height: "1", trust_hash: toHex(one.hash), witness: a.nodes[0].rpcUrl }));
      await page.waitForFunction(() => document.body.dataset.state === "refused", undefined, { timeout: 60_000 });
      const err = page.locator('[data-testid="verify-error"]');
      expect(await err.getAttribute("data-check")).toBe("witness");
      expect(await err.innerText()).toMatch(
        /has a conflicting header: primary [0-9A-F]{64}, witness [0-9A-F]{64} — both are signed by the trusted validators: a light client attack/,
      );
      expect(await page.locator('[data-testid="verified-badge"]').count()).toBe(0);
      await shot(page, "refused-witness");
      expect(errors).toEqual([]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 90_000);

  it("warns when a proposal's voting ends after the estimated time of its upgrade height (all proven)", async () => {
    const { page } = await open(url(net.nodes[3].rpcUrl, { trust_height: root.trustHeight.toString(), trust_hash: toHex(root.trustHash) }));
    await page.waitForFunction(() => document.body.dataset.state === "verified", undefined, { timeout: 60_000 });
    // Voting lasts 20 s; blocks come every ~0.6 s: a height 6 blocks ahead is due long before voting ends (and
    // if the chain passed it before the page looked, it is due now: voting still ends after it).
    const id = await net.propose(softwareUpgradeMsg({ name: "too-soon", height: Number(await net.height(3)) + 6 }));
    await waitText(page, "vote-warning", /^⚠ Voting ends after the estimated upgrade time/, 20_000);
    expect(await page.locator(`[data-testid="proposal"][data-id="${id}"]`).innerText()).toContain("too-soon");
    await shot(page, "vote-warning");
  }, 60_000);
});

function honestVersions(): { name: string }[] {
  return (globalThis as { __honestVersions?: { name: string }[] }).__honestVersions ?? [];
}
