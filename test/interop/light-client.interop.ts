/**
 * The light-client page against real SDK nodes (live only; docs/spec/interop.md §8), in the system Chromium: the
 * page (examples/light-client, built with Vite, served from loopback) reads the node's own REST gateway and
 * CometBFT RPC (CORS opened in app.toml and config.toml) while a real upgrade happens, on each SDK line: simd
 * v0.47 with `v047-to-v050` scheduled, the halt, and simd v0.50 after it applied the upgrade; the same with appd
 * v0.50 → v0.53 (`v050-to-v053`, epochs added) and appd v0.53 → v0.54 (`v053-to-v054`, auth 5 → 6). REST mode must show it
 * all as on a devnet. Raw-store mode reads the upgrade store through abci_query; simd (SDK ≥ 0.46) keeps its
 * Done records as `01 ‖ BE64(height) ‖ name → 01`, not the seed's `01 ‖ name → BE64(height)` this project
 * stores (D1): the core reads both (decodeDoneEntriesAnyLayout), so raw mode must show the applied upgrade,
 * say that the records are in the SDK's layout, and agree with REST. Screenshots go to
 * test-output/interop/light-client-*.png.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../support/http.js";
import { ROOT } from "../support/paths.js";
import { removeTempDirs } from "../support/temp.js";
import { waitUntil } from "../support/wait.js";
import { innerTexts, launchChromium, staticUi, openPage, pasteHash, text, waitText, type OpenPage } from "../examples/light-client/helpers.js";
import { APP_UPGRADE_V053, APP_UPGRADE_V054, SDK_V050_VERSION, SDK_V053_VERSION, SDK_V054_VERSION } from "../../scripts/peers/paths.mjs";
import { interopPeers } from "./support/peers.js";
import { fetchLightBlock } from "../../bindings/light/provider.js";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import { judgeUpgrade } from "../support/light/judge-upgrade.js";
import { initSimd, killAll, passProposal, rpcHeight, softwareUpgradeMsg, startSimd, waitForHalt, type SimdHome, type SimdNode } from "./support/simd.js";

const peers = interopPeers();
const SHOTS = join(ROOT, "test-output/interop");

/** The upgrade the page watches on each line: the binaries, the plan, and the module rows before and after. */
interface Scenario {
  tag: string;
  old: { label: string; binary: string };
  new: { label: string; binary: string };
  name: string;
  modulesBefore: number;
  modulesAfter: number;
  /** Rows the upgrade adds, and rows whose version it changes (name → new version). */
  added: string[];
  changed: Record<string, number>;
}

const SCENARIOS: Scenario[] = [
  // simd v0.50 after the upgrade: its 20 modules plus v0.47's capability, kept in the version map.
  {
    tag: "simd",
    old: { label: "simd v0.47", binary: peers.simd047 },
    new: { label: "simd v0.50", binary: peers.simd050 },
    name: "v047-to-v050",
    modulesBefore: 19,
    modulesAfter: 21,
    added: ["circuit", "runtime"],
    changed: { gov: 5, auth: 5 },
  },
  {
    tag: "appd-v053",
    old: { label: `appd ${SDK_V050_VERSION}`, binary: peers.app050 },
    new: { label: `appd ${SDK_V053_VERSION}`, binary: peers.app053 },
    name: APP_UPGRADE_V053,
    modulesBefore: 9,
    modulesAfter: 10,
    added: ["epochs"],
    changed: {},
  },
  {
    tag: "appd-v054",
    old: { label: `appd ${SDK_V053_VERSION}`, binary: peers.app053 },
    new: { label: `appd ${SDK_V054_VERSION}`, binary: peers.app054 },
    name: APP_UPGRADE_V054,
    modulesBefore: 10,
    modulesAfter: 10,
    added: [],
    changed: { auth: 6 },
  },
];

let browser: Browser;
let site: TestServer;
const opened: OpenPage[] = [];

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `light-client-${name}.png`), fullPage: true });
}

beforeAll(async () => {
  // The built page from loopback, as any static web server would serve it (nothing of the devnet).
  site = await staticUi();
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  for (const p of opened) await p.context.close().catch(() => undefined);
  await browser?.close();
  await site?.close();
  await killAll();
  removeTempDirs();
});

for (const sc of SCENARIOS)
  describe(`the light-client page against ${sc.new.label}'s REST and CometBFT RPC, through a real upgrade (${sc.name})`, () => {
    const NAME = sc.name;
    let h: SimdHome;
    let node: SimdNode;
    let height = 0;
    let main: OpenPage;
    /** What raw mode showed, for the report (also when an expectation fails). */
    const rawSeen: Record<string, string> = {};
    const pageUrl = (mode: "rest" | "raw" | "verified", extra = "") =>
      `${site.url}/index.html?rest=${encodeURIComponent(h.restUrl)}&rpc=${encodeURIComponent(h.rpcUrl)}&poll=500&mode=${mode}${extra}`;
    /** The trust root of the verified checks: the old binary's header at height 2, before the upgrade. */
    let trust: { height: bigint; hash: Uint8Array } | undefined;
    const trustParams = () => `&trust_height=${trust!.height}&trust_hash=${Buffer.from(trust!.hash).toString("hex")}`;

    beforeAll(async () => {
      h = await initSimd({ binary: sc.old.binary });
      node = startSimd(h);
      await node.rpcReady();
    }, 180_000);

    afterAll(async () => {
      await node?.stop().catch(() => undefined);
      if (Object.keys(rawSeen).length)
        console.log(
          `raw-store mode against ${sc.new.label}:\n${Object.entries(rawSeen)
            .map(([k, v]) => `  ${k}: ${v}`)
            .join("\n")}`,
        );
    });

    it(`${sc.old.label} with ${NAME} scheduled: chain, plan with countdown, module versions (REST mode)`, async () => {
      height = Math.max(45, (await node.height()) + 35);
      await passProposal(h, sc.old.binary, softwareUpgradeMsg({ name: NAME, height }));
      main = await openPage(browser, pageUrl("rest"));
      opened.push(main);
      const { page } = main;
      await waitText(page, "chain", h.chainId, 60_000);
      await waitText(page, "plan", NAME, 60_000);
      expect(await text(page, "plan")).toContain(String(height));
      await waitText(page, "countdown", /^in /, 30_000);
      expect(await page.locator('[data-testid="module"]').count()).toBe(sc.modulesBefore);
      await shot(page, `${sc.tag}-1-scheduled`);
      expect(main.errors).toEqual([]);
    }, 120_000);

    it(`verified mode on ${sc.old.label}: the scheduled plan proven, with its badge`, async () => {
      trust = { height: 2n, hash: (await fetchLightBlock(RpcProvider.of(h.rpcUrl), 2n, h.chainId)).hash };
      const v = await openPage(browser, pageUrl("verified", trustParams()));
      opened.push(v);
      await v.page.waitForFunction(() => document.body.dataset.state === "verified", undefined, { timeout: 60_000 });
      expect(await text(v.page, "plan-name")).toBe(NAME);
      expect(await v.page.locator('[data-testid="verified-badge"]').count()).toBe(4);
      await shot(v.page, `${sc.tag}-1v-scheduled-verified`);
      expect(v.errors).toEqual([]);
    }, 90_000);

    it(`the halt, then ${sc.new.label} on the same home: the applied upgrade, its block, the new module versions (REST mode)`, async () => {
      await waitForHalt(node.child, NAME);
      await shot(main.page, `${sc.tag}-2-halted`);
      await node.stop();
      node = startSimd(h, sc.new.binary);
      await node.ready();
      const { page } = main;
      await waitText(page, "applied-height", String(height), 60_000);
      await waitText(page, "no-plan", "No upgrade scheduled", 30_000);
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="module"]').length === n, sc.modulesAfter, { timeout: 30_000 });
      for (const m of sc.added) expect(await page.locator(`[data-testid="module"][data-name="${m}"]`).count(), m).toBe(1);
      for (const [m, v] of Object.entries(sc.changed)) {
        await page.waitForFunction(
          ([name, version]) => document.querySelector(`[data-testid="module"][data-name="${name}"] td:nth-child(2)`)?.textContent === version,
          [m, String(v)] as const,
          { timeout: 30_000 },
        );
      }
      // The block record of the upgrade height, as simd's CometBFT has it.
      const block = (await (await fetch(`${h.rpcUrl}/block?height=${height}`)).json()) as { result: { block_id: { hash: string } } };
      expect(await text(page, "block-record")).toContain(block.result.block_id.hash);
      await shot(page, `${sc.tag}-3-applied`);
      expect(main.errors).toEqual([]);
    }, 180_000);

    it(`verified on ${sc.new.label} from the root taken before the upgrade: the Done record in the SDK's layout and what changed, proven; the oracle agrees`, async () => {
      // Block H writes the Done record, and a state is proven against the next header: wait for header H+1
      // (REST already answers at H; a loaded machine may not have made the next block yet).
      await waitUntil(async () => (await rpcHeight(h.rpcUrl)) > height, 60_000, `a block of ${sc.new.label} after the upgrade height ${height}`);
      const j = await judgeUpgrade({ primary: h.rpcUrl, trustHeight: trust!.height, trustHash: trust!.hash }, async (c) => ({
        applied: (await c.appliedUpgrades()).value,
        plan: (await c.currentPlan()).value,
        versions: (await c.moduleVersions()).value,
      }));
      expect(j.ts.verdict, j.ts.error).toBe("verified");
      expect(j.ts.value!.applied).toEqual({ layout: "sdk", entries: [{ name: NAME, height: BigInt(height) }] });
      expect(j.ts.value!.plan).toBeUndefined();
      expect(j.ts.value!.versions).toHaveLength(sc.modulesAfter);
      expect(j.go, "the Go oracle (npm run peers) must run in the interop suite").toBeDefined();
      expect(j.go!.verdict).toBe("verified");
      for (const n of j.proofs) expect(j.go!.proofs.find((p) => p.name === n.key)?.verdict, n.key).toBe(n.verdict);

      const v = await openPage(browser, pageUrl("verified", trustParams()));
      opened.push(v);
      await v.page.waitForFunction(() => document.body.dataset.state === "verified", undefined, { timeout: 60_000 });
      // The root in the link, confirmed with its hash (until then no block hash is shown whole).
      await pasteHash(v.page, "confirm-form", Buffer.from(trust!.hash).toString("hex"));
      await v.page.waitForFunction(() => document.body.dataset.root === "confirmed", undefined, { timeout: 60_000 });
      await waitText(v.page, "applied-height", String(height), 30_000);
      expect(await text(v.page, "done-layout")).toBe("Done records: SDK layout (height in the key)");
      // What changed at the upgrade, proven at height H−1 against header H (verified backwards).
      const change = await text(v.page, "versions-change");
      for (const m of sc.added) expect(change).toContain(`${m} added`);
      // The block record of the upgrade height: its header, verified by the hash chain.
      const block = (await (await fetch(`${h.rpcUrl}/block?height=${height}`)).json()) as { result: { block_id: { hash: string } } };
      expect(await text(v.page, "block-record")).toContain(block.result.block_id.hash);
      await shot(v.page, `${sc.tag}-3v-applied-verified`);
      expect(v.errors).toEqual([]);
    }, 120_000);

    it(`raw-store mode on ${sc.new.label}: the Done records in the SDK's layout, read and said so, agreeing with REST`, async () => {
      const raw = await openPage(browser, pageUrl("raw"));
      opened.push(raw);
      const { page } = raw;
      const record = async () => {
        rawSeen.state = String(await page.evaluate(() => document.body.dataset.state));
        rawSeen.banner = (await text(page, "banner").catch(() => "(none)")).replace(/\s+/g, " ").slice(0, 600);
        rawSeen.applied = (await text(page, "applied")).replace(/\s+/g, " ").slice(0, 400);
        rawSeen.versions = (await text(page, "versions")).replace(/\s+/g, " ").slice(0, 200);
        rawSeen.agreement = (await text(page, "agreement")).replace(/\s+/g, " ").slice(0, 600);
      };
      try {
        await waitText(page, "chain", h.chainId, 60_000);
        // The SDK's record of the upgrade: 01 ‖ BE64(height) ‖ name → 01.
        await waitText(page, "done-layout", "Done records: SDK layout (height in the key) — 01 ‖ BE64(height) ‖ name → 01", 60_000);
        expect(await text(page, "applied-height")).toBe(String(height));
        expect(await page.locator('[data-testid="applied-upgrade"]').getAttribute("data-name")).toBe(NAME);
        const key = `01${height.toString(16).padStart(16, "0")}${Buffer.from(NAME).toString("hex")}`;
        expect(await innerTexts(page, '[data-testid="raw-entry"]')).toContain(`${key}\t01`);
        expect(await page.locator('[data-testid="module"]').count()).toBe(sc.modulesAfter);
        await page.waitForFunction(() => document.body.dataset.state === "ok", undefined, { timeout: 30_000 });
        // Plan, applied upgrades and module versions agree with REST; the app version (0 in an SDK node's status) is left unjudged.
        await page.waitForFunction(
          () => [...document.querySelectorAll<HTMLElement>('[data-testid="agreement-row"]')].slice(0, 3).every((r) => r.dataset.verdict === "agree"),
          undefined,
          { timeout: 30_000 },
        );
        expect(await text(page, "agreement")).toContain(`applied upgrades ${NAME}@${height}`);
      } finally {
        await record();
        await shot(page, `${sc.tag}-4-raw`);
      }
      expect(raw.errors).toEqual([]);
    }, 120_000);
  });
