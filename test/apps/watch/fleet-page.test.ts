/**
 * The fleet view (examples/light-client/fleet.html) in real Chromium, served by `Watch` over three synthetic SDK
 * chains: each row verified with its height and ETA band; beta amber (its trust began on first use); then gamma's
 * node lies and only gamma's row turns red with the failed check. The same page as a static page with a config URL
 * follows the chains itself. Screenshots: test-output/light-client/fleet-*.png (docs/watch-fleet*.png when missing or
 * with XUPGRADE_UPDATE_SCREENSHOT=1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright";
import { loadCore } from "../../../bindings/core/index.js";
import { parseWatchConfig } from "../../../bindings/apps/watch/config.js";
import { Watch } from "../../../bindings/apps/watch/watch.js";
import { lyingNode, type LyingNode } from "../../support/light/proxy.js";
import { serveJsonRpc } from "../../support/light/rpc-server.js";
import { hexOf, syntheticSdkNode, type SdkNode } from "../../support/light/synthetic-sdk.js";
import { httpServer, type TestServer } from "../../support/http.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";
import { builtPage, launchChromium, openPage, shot, staticUi } from "../../examples/light-client/helpers.js";

const S = 1_000_000_000n;
let browser: Browser;
const servers: { close(): Promise<void> }[] = [];
let nodes: Record<"alpha" | "beta" | "gamma", SdkNode>;
let witnesses: Record<string, TestServer>;
let gammaProxy: LyingNode;

beforeAll(async () => {
  browser = await launchChromium();
  const genesisNs = BigInt(Date.now() - 600_000) * 1_000_000n;
  const core = await loadCore("js");
  const make = (chainId: string, plan?: bigint) =>
    syntheticSdkNode({
      chain: { chainId, validators: 4, genesisNs, intervalNs: 2n * S, latest: 250n },
      state: plan ? { plan: { name: "v2", height: plan, info: "" } } : {},
    });
  nodes = { alpha: await make("alpha-1", 1500n), beta: await make("beta-1", 2000n), gamma: await make("gamma-1") };
  void core;
  witnesses = Object.fromEntries(
    await Promise.all(Object.entries(nodes).map(async ([k, n]) => [k, await serveJsonRpc((m, p) => n.chain.handle(m, p))] as const)),
  );
  gammaProxy = await lyingNode(nodes.gamma.url, { mode: "none" });
  servers.push(...Object.values(witnesses), gammaProxy, ...Object.values(nodes));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const s of servers) await s.close();
  removeTempDirs();
});

const chains = () => [
  {
    name: "alpha",
    chain_id: "alpha-1",
    rpc: nodes.alpha.url,
    witnesses: [witnesses.alpha.url],
    trust_height: 200,
    trust_hash: hexOf(nodes.alpha.chain.hash(200n)),
  },
  { name: "beta", rpc: nodes.beta.url, witnesses: [witnesses.beta.url], trust_on_first_use: true },
  {
    name: "gamma",
    chain_id: "gamma-1",
    rpc: gammaProxy.url,
    witnesses: [witnesses.gamma.url],
    trust_height: 200,
    trust_hash: hexOf(nodes.gamma.chain.hash(200n)),
  },
];

const rowOf = (page: import("playwright").Page, chain: string) => page.locator(`tr[data-chain="${chain}"]`);

describe("the fleet view", { timeout: 120_000 }, () => {
  it("served by watch: verified rows with ETA bands, beta amber, then gamma red with the failed check", async () => {
    const config = parseWatchConfig({ poll: "300ms", max_age: "0s", chains: chains() });
    const watch = await Watch.start({ config, stateDir: tempDir("xupgrade-fleet-"), listen: "127.0.0.1:0", uiDir: builtPage() });
    const { page, context, errors } = await openPage(browser, `${watch.url}/`);
    try {
      await page.waitForFunction(() => document.querySelectorAll('tr[data-status="verified"]').length === 3, undefined, { timeout: 60_000 });
      await page.waitForFunction(
        () => [...document.querySelectorAll("tr[data-chain] td:nth-child(4)")].filter((td) => td.textContent?.includes("stretches")).length === 2,
        undefined,
        { timeout: 60_000 },
      );
      expect(await rowOf(page, "alpha").locator('[data-testid="badge"]').innerText()).toBe("verified");
      expect(await rowOf(page, "beta").locator('[data-testid="badge"]').innerText()).toBe("verified · unconfirmed root");
      expect(await rowOf(page, "alpha").innerText()).toMatch(/v2 at 1500[\s\S]*stretches/);
      expect(await rowOf(page, "gamma").innerText()).toMatch(/none scheduled \(proven\)/);
      expect(await rowOf(page, "alpha").locator('[data-testid="page"]').getAttribute("href")).toMatch(/index\.html\?rpc=.*trust_height=200/);
      await shot(page, "fleet-honest", "watch-fleet.png");

      gammaProxy.options.above = nodes.gamma.chain.latest;
      gammaProxy.options.mode = "forge-signature";
      for (const n of Object.values(nodes)) await n.advance();
      await page.waitForFunction(() => document.querySelector('tr[data-chain="gamma"]')?.getAttribute("data-status") === "failed", undefined, {
        timeout: 60_000,
      });
      expect(await rowOf(page, "gamma").locator('[data-testid="badge"]').innerText()).toBe("failed: signature");
      expect(await rowOf(page, "gamma").locator('[data-testid="check"]').innerText()).toMatch(/signature/);
      expect(await rowOf(page, "alpha").getAttribute("data-status")).toBe("verified");
      expect(await rowOf(page, "beta").getAttribute("data-status")).toBe("verified");
      await shot(page, "fleet-lying", "watch-fleet-lying.png");
      expect(errors).toEqual([]);
    } finally {
      gammaProxy.options.mode = "none";
      await context.close();
      await watch.stop();
    }
  });

  it("as a static page with a config URL: the browser follows the chains itself", async () => {
    const ui = await staticUi();
    const cfg = await httpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
      res.end(JSON.stringify({ poll: "1s", max_age: "0s", chains: chains() }));
    });
    const { page, context, errors } = await openPage(browser, `${ui.url}/fleet.html?config=${encodeURIComponent(`${cfg.url}/fleet-config.json`)}`);
    try {
      await page.waitForFunction(() => document.querySelectorAll('tr[data-status="verified"]').length === 3, undefined, { timeout: 60_000 });
      expect(await page.locator('[data-testid="source"]').innerText()).toMatch(/following the chains of .* in this browser/);
      expect(await rowOf(page, "beta").locator('[data-testid="badge"]').innerText()).toBe("verified · unconfirmed root");
      expect(await page.locator('[data-testid="footer"]').innerText()).toMatch(/alerts are sent by xupgrade watch only/);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await ui.close();
      await cfg.close();
    }
  });
});
