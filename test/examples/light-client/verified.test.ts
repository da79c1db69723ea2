/**
 * The page's verified mode in Chromium (docs/spec/light-client.md §9.3), against a synthetic SDK node: forty
 * validators signing every header, a real commit multistore behind the app hash (test/support/light/
 * synthetic-sdk.ts). The badges and the trust root, the ETA's error band, the warning for a proposal whose
 * voting ends after its upgrade height is due; a lying node turned into one red message naming the check and
 * the height, with nothing shown as verified. Runs in `npm test` (no Go); the same against real simd
 * validators is in test/interop/light-verified.interop.ts.
 */
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCore } from "../../../bindings/core/index.js";
import type { TestServer } from "../../support/http.js";
import { lyingNode, type Tampering } from "../../support/light/proxy.js";
import { syntheticSdkNode, type SdkNode } from "../../support/light/synthetic-sdk.js";
import { removeTempDirs } from "../../support/temp.js";
import { buildPage, launchChromium, openPage, shot, staticUi, text, waitText, type OpenPage } from "./helpers.js";

let browser: Browser;
let site: TestServer;
let node: SdkNode;
const servers: TestServer[] = [];
const opened: OpenPage[] = [];

beforeAll(async () => {
  buildPage();
  site = await staticUi();
  browser = await launchChromium();
  node = await syntheticSdkNode({
    chain: { chainId: "page-synthetic-1", validators: 40, latest: 50n },
    state: {
      plan: { name: "v2", height: 80n, info: "" },
      done: [{ name: "v1", height: 30n }],
      protocolVersion: 1n,
      proposal: { id: 7n, plan: { name: "v3", height: 60n, info: "" }, votingEndNs: BigInt(Date.now() + 3_600_000) * 1_000_000n },
    },
  });
}, 120_000);

afterAll(async () => {
  for (const o of opened) await o.context.close().catch(() => undefined);
  await browser?.close();
  await site?.close();
  await Promise.all(servers.map((s) => s.close()));
  await node?.close();
  removeTempDirs();
});

const url = (rpc: string, extra: Record<string, string> = {}) => `${site.url}/index.html?${new URLSearchParams({ rpc, rest: "http://127.0.0.1:9", poll: "500", ...extra })}`;

async function open(u: string): Promise<OpenPage> {
  const o = await openPage(browser, u);
  opened.push(o);
  return o;
}

describe("the page's verified mode", { timeout: 90_000 }, () => {
  it("is the default: every fact with its badge, the trust root taken on first use and said so, the ETA band, the late-vote warning", async () => {
    const { page, errors } = await open(url(node.url));
    await page.waitForFunction(() => document.body.dataset.state === "verified", undefined, { timeout: 60_000 });
    expect(await page.locator('input[name="mode"][value="verified"]').isChecked()).toBe(true);
    expect(await text(page, "plan-name")).toBe("v2");
    const badges = await page.locator('[data-testid="verified-badge"]').allInnerTexts();
    expect(badges).toHaveLength(4);
    expect(badges[1]).toBe("✓ verified plan “v2” at height 49, against the app hash of header 50");
    expect(badges[2]).toBe("✓ verified v1@30, the whole Done range at height 49, against the app hash of header 50");
    expect(await text(page, "trust-root")).toMatch(/^height 50, hash [0-9A-F]{12}…[0-9A-F]{6} — trust on first use: the header http:\/\/127\.0\.0\.1:\d+ gave as its latest at .*, taken unverified/);
    expect(await text(page, "applied-height")).toBe("30");
    expect(await text(page, "done-layout")).toBe("Done records: SDK layout (height in the key)");
    await waitText(page, "eta", /between .* and .* \(±2σ of 19 verified block times\)/);
    expect(await text(page, "vote-warning")).toMatch(/^⚠ Voting ends after the estimated upgrade time \(by .*\): if the proposal passes then, height 60 will already be behind the chain/);
    await shot(page, "13-verified");
    expect(errors).toEqual([]);
  });

  it("from a trust root in the address, 40 validators' commit verified from it", async () => {
    const { page } = await open(url(node.url, { trust_height: "3", trust_hash: Buffer.from(node.chain.hash(3n)).toString("hex") }));
    await page.waitForFunction(() => document.body.dataset.state === "verified", undefined, { timeout: 60_000 });
    expect(await text(page, "trust-root")).toMatch(/^height 3, .* from the page address \(trust_height, trust_hash\)/);
    expect(await text(page, "refresh-cost")).toMatch(/^\d+ signatures, \d+ store proofs, \d+ ms$/);
  });

  const lies: [Tampering, string][] = [
    ["forge-signature", "signature"],
    ["drop-signatures", "voting-power"],
    ["plan-value", "proof"],
    ["proof-byte", "proof"],
    ["strip-prove", "proof-missing"],
  ];
  for (const [mode, check] of lies) {
    it(`a lying node (${mode}) is one red message — check ${check} and its height — and nothing verified`, async () => {
      const core = await loadCore("js");
      const liar = await lyingNode(node.url, { mode, above: 3n, fakePlan: (p) => core.encodePlan({ ...core.decodePlan(p!), height: 79n }) });
      servers.push(liar);
      const { page, errors } = await open(url(liar.url, { trust_height: "3", trust_hash: Buffer.from(node.chain.hash(3n)).toString("hex") }));
      await page.waitForFunction(() => document.body.dataset.state === "refused", undefined, { timeout: 60_000 });
      const err = page.locator('[data-testid="verify-error"]');
      expect(await err.getAttribute("data-check")).toBe(check);
      expect(await err.getAttribute("data-height")).toBe("50");
      expect(await err.innerText()).toMatch(new RegExp(`^check “${check}” at height 50: `));
      expect(await page.locator('[data-testid="verified-badge"]').count()).toBe(0);
      expect(await page.locator('[data-testid="not-verified"]').count()).toBe(4);
      if (mode === "forge-signature") await shot(page, "14-refused");
      expect(errors).toEqual([]);
    });
  }

  it("a root older than the trusting period is refused (trusting-period)", async () => {
    const { page } = await open(url(node.url, { trust_height: "3", trust_hash: Buffer.from(node.chain.hash(3n)).toString("hex"), trusting_period: "2s" }));
    await page.waitForFunction(() => document.body.dataset.state === "refused", undefined, { timeout: 60_000 });
    expect(await page.locator('[data-testid="verify-error"]').getAttribute("data-check")).toBe("trusting-period");
  });
});
