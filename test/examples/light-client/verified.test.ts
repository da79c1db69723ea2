/**
 * The page's verified mode in Chromium (docs/spec/light-client.md §9.3), against synthetic SDK nodes: forty
 * validators signing every header, a real commit multistore behind the app hash (test/support/light/
 * synthetic-sdk.ts). Every state of its trust: no root (an amber panel, nothing verified), trust on first use
 * chosen explicitly (amber badges, never green, no full hash to copy), a root confirmed with the hash from the
 * user's source (green, kept by the browser) or refused with another, a root from the link (amber until confirmed),
 * a confirmed root that a link tries to replace (red, the pinned root used, replaced only with the source's hash);
 * the header's age and the freshness bound (a stale latest header refused, a chain halted for its upgrade said);
 * witnesses; the block record's transactions proven by data_hash; the ETA's error band and the late-vote warning;
 * a lying node turned into one red message naming the check and the height. Runs in `npm test` (no Go); the same
 * against real simd validators is in test/interop/light-verified.interop.ts.
 */
import type { Browser, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCore } from "../../../bindings/core/index.js";
import type { TestServer } from "../../support/http.js";
import { forgedRangeNode } from "../../support/light/forged-range.js";
import { lyingNode, type Tampering } from "../../support/light/proxy.js";
import { syntheticSdkNode, type SdkNode } from "../../support/light/synthetic-sdk.js";
import { removeTempDirs } from "../../support/temp.js";
import {
  badges,
  blockTxsRpcProxy,
  giveRoot,
  launchChromium,
  openPage,
  pasteHash,
  shot,
  staticUi,
  text,
  trustFirstUse,
  waitText,
  type OpenPage,
} from "./helpers.js";

let browser: Browser;
let site: TestServer;
/** A live chain at height 50: a plan, an applied upgrade, a proposal in its voting period. */
let node: SdkNode;
/** Its latest header two hours old, a plan far ahead: a node serving an old state as its latest. */
let stale: SdkNode;
/** Its latest header two hours old at the very height of its plan: a chain halted for the upgrade. */
let halted: SdkNode;
const servers: TestServer[] = [];
const opened: OpenPage[] = [];
const TWO_HOURS_AGO_NS = () => BigInt(Date.now() - 2 * 3600_000) * 1_000_000n;

beforeAll(async () => {
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
  stale = await syntheticSdkNode({
    chain: { chainId: "page-stale-1", validators: 4, latest: 30n, genesisNs: TWO_HOURS_AGO_NS() },
    state: { plan: { name: "v2", height: 80n, info: "" } },
  });
  halted = await syntheticSdkNode({
    chain: { chainId: "page-halted-1", validators: 4, latest: 30n, genesisNs: TWO_HOURS_AGO_NS() },
    state: { plan: { name: "v9", height: 30n, info: "" } },
  });
}, 120_000);

afterAll(async () => {
  for (const o of opened) await o.context.close().catch(() => undefined);
  await browser?.close();
  await site?.close();
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all([node, stale, halted].map((n) => n?.close()));
  removeTempDirs();
}, 60_000);

const url = (rpc: string, extra: Record<string, string> = {}) =>
  `${site.url}/index.html?${new URLSearchParams({ rpc, rest: "http://127.0.0.1:9", poll: "500", ...extra })}`;
/**
 * The live node's page: its latest header stays where the node was made, so a bound of a day keeps it fresh however
 * long the suite runs (the default bound of 10 min is tested by the test that runs right after it is made).
 */
const live = (rpc: string, extra: Record<string, string> = {}) => url(rpc, { max_age: "24h", ...extra });
const hashOf = (n: SdkNode, height: bigint) => Buffer.from(n.chain.hash(height)).toString("hex").toUpperCase();
const link = (n: SdkNode, height: bigint) => ({ trust_height: height.toString(), trust_hash: hashOf(n, height) });

async function open(u: string): Promise<OpenPage> {
  const o = await openPage(browser, u);
  opened.push(o);
  return o;
}

function state(page: Page, s: string, root?: "confirmed" | "unconfirmed"): Promise<unknown> {
  return page.waitForFunction(
    ([s, root]) => document.body.dataset.state === s && (root === undefined || document.body.dataset.root === root),
    [s, root] as const,
    { timeout: 60_000 },
  );
}

/** Every badge of verified mode is amber: none says "✓ verified". */
async function expectAllAmber(page: Page, count: number): Promise<void> {
  const all = await badges(page);
  expect(all).toHaveLength(count);
  for (const b of all) {
    expect(b.confirmed).toBe(false);
    expect(b.text).toMatch(/^⚠ verified against an unconfirmed root /);
  }
}

async function expectAllGreen(page: Page, count: number): Promise<void> {
  const all = await badges(page);
  expect(all).toHaveLength(count);
  for (const b of all) {
    expect(b.confirmed).toBe(true);
    expect(b.text).toMatch(/^✓ verified /);
  }
}

/** Waits until the page has made `n` more polls (each re-renders every card). */
async function morePolls(page: Page, n: number): Promise<void> {
  const from = Number(await page.locator("#footer").getAttribute("data-polls"));
  await page.waitForFunction((m) => Number(document.querySelector("#footer")?.getAttribute("data-polls")) >= m, from + n, { timeout: 30_000 });
}

describe("the page's trust root", { timeout: 120_000 }, () => {
  it("with none given or saved: an amber panel that says how to get one, nothing verified", async () => {
    const { page, errors } = await open(live(node.url));
    await state(page, "no-root");
    expect(await text(page, "trust-headline")).toBe("No trust root for page-synthetic-1");
    const panel = await text(page, "trust-panel");
    expect(panel).toContain("the height and hash of a recent block of page-synthetic-1 from a source you trust");
    expect(panel).toContain("/commit?height=H");
    expect(await page.locator('[data-testid="trust-panel"]').getAttribute("class")).toBe("trust-panel amber");
    expect(await page.locator('[data-testid="root-form"]').count()).toBe(1);
    expect(await text(page, "trust-first-use")).toBe("Trust this node's latest header, unverified");
    await morePolls(page, 2);
    expect(await badges(page)).toEqual([]);
    expect(await page.locator('[data-testid="not-verified"]').count()).toBe(4);
    expect(await page.locator('[data-testid="plan-name"]').count()).toBe(0);
    // A root that is not one is refused in the form, before anything is asked of the node.
    await giveRoot(page, 3, "abcd");
    await waitText(page, "trust-form-error", /^Trust hash must be 32 bytes \(64 hex digits\), got 2 bytes\.$/);
    await shot(page, "13-no-root");
    expect(errors).toEqual([]);
  });

  it("trust on first use, chosen: amber everywhere and never green, no full hash to copy; the node's hash from the user's source confirms it (green, kept)", async () => {
    // The node's RPC behind a proxy that gives its blocks (the synthetic node does not), another as witness.
    const primary = await blockTxsRpcProxy(node.url, (h) => (h === 30n ? [] : undefined));
    servers.push(primary);
    const { page, errors } = await open(url(primary.url, { witness: node.url }));
    await trustFirstUse(page);
    await state(page, "verified", "unconfirmed");
    expect(await page.locator('input[name="mode"][value="verified"]').isChecked()).toBe(true);
    expect(await text(page, "plan-name")).toBe("v2");
    const amber = await badges(page);
    expect(amber.map((b) => b.text)).toContain("⚠ verified against an unconfirmed root plan “v2” at height 49, against the app hash of header 50");
    expect(amber.map((b) => b.text)).toContain(
      "⚠ verified against an unconfirmed root v1@30, the whole Done range at height 49, against the app hash of header 50",
    );
    await expectAllAmber(page, 4); // chain, plan, applied, versions (this chain keeps no readiness store)
    expect(await text(page, "trust-headline")).toBe("Unconfirmed trust root for page-synthetic-1");
    expect(await text(page, "unconfirmed-warning")).toMatch(
      /^UNCONFIRMED TRUST ROOT: trust began on first use: the node http:\/\/127\.0\.0\.1:\d+'s own header at height 50 \([0-9A-F]{12}…[0-9A-F]{6}\) was taken unverified, so everything here is verified only against that node's word\./,
    );
    expect(await text(page, "confirm-height")).toBe("50");
    expect(await text(page, "trust-root")).toMatch(
      /^this node's own latest header, taken unverified on first use \(height 50, hash [0-9A-F]{12}…[0-9A-F]{6}, with .*\) — NOT CONFIRMED$/,
    );
    expect(await text(page, "trust-summary")).toMatch(
      /^Everything below is verified against this node's own latest header, taken unverified on first use \(height 50, hash [0-9A-F]{12}…[0-9A-F]{6}, /,
    );
    expect(await text(page, "witnesses")).toBe(`confirmed by ${node.url}`);
    expect(await text(page, "applied-height")).toBe("30");
    expect(await text(page, "done-layout")).toBe("Done records: SDK layout (height in the key)");
    // The block record: its transactions proven by the header's data_hash; its size is not provable.
    expect(await text(page, "block-txs")).toBe("0 (proven: they hash to the header's data_hash)");
    expect(await text(page, "block-size")).toBe("— (unverified: no header field commits to it)");
    await waitText(page, "eta", /between .* and .* \(±2σ of 19 verified block times\)/);
    expect(await text(page, "vote-warning")).toMatch(
      /^⚠ Voting ends after the estimated upgrade time \(by .*\): if the proposal passes then, height 60 will already be behind the chain/,
    );
    // The header's time and its age by this computer's clock, ticking between polls.
    expect(await text(page, "freshness")).toMatch(
      /^(\d+ min )?\d+ s ago by this computer's clock; a latest header older than 10 min is refused \(&max_age=\)$/,
    );
    const age = await text(page, "header-age");
    await page.waitForFunction((was) => document.querySelector('[data-testid="header-age"]')?.textContent !== was, age, { timeout: 5000 });
    expect(await text(page, "header-age")).toMatch(/^(\d+ min )?\d+ s ago$|^\d+ min ago$/);
    // Stays amber poll after poll; the full hash of the root (header 50) appears nowhere on the page.
    await morePolls(page, 3);
    await expectAllAmber(page, 4);
    expect(await page.content()).not.toContain(hashOf(node, 50n));
    expect(await text(page, "block-hash")).toMatch(/^[0-9A-F]{12}…[0-9A-F]{6}$/);
    await shot(page, "13-unconfirmed", "light-client-unconfirmed.png");

    // The user's source gives the same hash (pasted in lower case, with spaces around): confirmed.
    await pasteHash(page, "confirm-form", ` ${hashOf(node, 50n).toLowerCase()}\n`);
    await state(page, "verified", "confirmed");
    await morePolls(page, 1);
    await expectAllGreen(page, 4);
    expect(await page.locator('[data-testid="trust-panel"]').innerText()).toBe("");
    expect(await text(page, "trust-root")).toMatch(/^the root you gave \(height 50, hash [0-9A-F]{64}, with .*\) — confirmed$/);
    expect(await text(page, "verified-header-hash")).toBe(hashOf(node, 50n));
    expect(await text(page, "block-hash")).toBe(hashOf(node, 30n));
    expect(await page.locator('[data-testid="unconfirmed-warning"]').count()).toBe(0);
    await shot(page, "14-verified", "light-client-verified.png");

    // The browser keeps the confirmed root: a reload starts from it, green at once.
    await page.reload();
    await state(page, "verified", "confirmed");
    await expectAllGreen(page, 4);
    expect(await text(page, "trust-root")).toMatch(
      /^the header verified last time, trusted since the root you gave \(height 50, hash [0-9A-F]{64}, .*\) — confirmed$/,
    );
    expect(errors).toEqual([]);
  });

  it("another hash from the user's source is refused: red, nothing verified — until the right one is pasted", async () => {
    const { page, errors } = await open(live(node.url));
    await trustFirstUse(page);
    await state(page, "verified", "unconfirmed");
    expect(await text(page, "witnesses")).toMatch(/^no witness: verified against this node alone/);
    // The synthetic node gives no blocks: no transaction count is claimed.
    expect(await text(page, "block-txs")).toBe("— (unverified: the node did not give the block's transactions)");
    await pasteHash(page, "confirm-form", hashOf(node, 49n));
    await state(page, "root-refused");
    expect(await text(page, "refused-headline")).toBe(
      "Refused: your source gives another hash for block 50 — this node's chain is not the one your source knows.",
    );
    expect(await text(page, "trust-headline")).toBe("Refused: this node's chain is not the one your source knows");
    expect(await text(page, "root-refused")).toMatch(
      /^Your source gives [0-9A-F]{12}…[0-9A-F]{6} as the hash of block 50; the root this page verified from has [0-9A-F]{12}…[0-9A-F]{6} there/,
    );
    expect(await page.locator('[data-testid="trust-panel"]').getAttribute("class")).toBe("trust-panel red");
    await morePolls(page, 2);
    expect(await badges(page)).toEqual([]);
    expect(await page.locator('[data-testid="not-verified"]').count()).toBe(4);
    await shot(page, "15-root-refused");
    // A mistake (the hash of another block): pasting block 50's confirms.
    await pasteHash(page, "confirm-form", hashOf(node, 50n));
    await state(page, "verified", "confirmed");
    await expectAllGreen(page, 4);
    expect(errors).toEqual([]);
  });

  it("a root from the link: said so and amber until confirmed with the hash of its height; the same link later is that confirmed root", async () => {
    const { page, errors } = await open(live(node.url, { ...link(node, 3n), witness: node.url }));
    await state(page, "verified", "unconfirmed");
    expect(await text(page, "trust-root")).toMatch(
      /^the root in the link, not yet confirmed by you \(height 3, hash [0-9A-F]{12}…[0-9A-F]{6}, with .*\) — NOT CONFIRMED$/,
    );
    expect(await text(page, "unconfirmed-warning")).toMatch(
      /^UNCONFIRMED TRUST ROOT: trust began with a root from a link \(height 3, [0-9A-F]{12}…[0-9A-F]{6}\) that was never confirmed/,
    );
    expect(await text(page, "confirm-height")).toBe("3");
    expect(await text(page, "witnesses")).toBe(`confirmed by ${node.url}`);
    expect(await text(page, "refresh-cost")).toMatch(/^\d+ signatures, \d+ store proofs, \d+ ms$/);
    await expectAllAmber(page, 4);
    await pasteHash(page, "confirm-form", hashOf(node, 3n));
    await state(page, "verified", "confirmed");
    await expectAllGreen(page, 4);
    // Opened again with the same link: it names the root the user confirmed — green, nothing set aside.
    await page.reload();
    await state(page, "verified", "confirmed");
    await morePolls(page, 1);
    await expectAllGreen(page, 4);
    expect(await page.locator('[data-testid="trust-panel"]').innerText()).toBe("");
    expect(errors).toEqual([]);
  });

  it("a link that tries to replace a confirmed root: a red warning, the pinned root used; replaced only when the user's source gives the link's hash", async () => {
    const { page, errors } = await open(live(node.url));
    await state(page, "no-root");
    await giveRoot(page, 3, hashOf(node, 3n));
    await state(page, "verified", "confirmed");
    expect(await text(page, "trust-root")).toMatch(/^the root you gave \(height 3, hash [0-9A-F]{64}, .*\) — confirmed$/);

    // A link naming another block 3 (another chain's, or nobody's): set aside, the confirmed root kept.
    const forged = "AB".repeat(32);
    await page.goto(live(node.url, { trust_height: "3", trust_hash: forged }));
    await state(page, "verified", "confirmed");
    expect(await text(page, "trust-headline")).toBe("This link tries to replace the trust root you confirmed for page-synthetic-1 — it was not applied");
    expect(await page.locator('[data-testid="trust-panel"]').getAttribute("class")).toBe("trust-panel red");
    expect(await text(page, "set-aside")).toMatch(
      /^The link names block 3, hash ABABABABABAB…ABABAB\. A link can come from anyone; the page keeps verifying against the header verified last time, trusted since the root you gave \(height 3, /,
    );
    await expectAllGreen(page, 4);
    await shot(page, "16-link-set-aside");
    // The user's source gives the real block 3's hash, not the link's: refused, the root kept.
    await pasteHash(page, "replace-form", hashOf(node, 3n));
    await waitText(
      page,
      "replace-refused",
      /^Your source gives [0-9A-F]{12}…[0-9A-F]{6} as the hash of block 3, not the link's ABABABABABAB…ABABAB: the link's root is not of your chain\. Your root is kept\.$/,
    );
    await morePolls(page, 1);
    await expectAllGreen(page, 4);

    // A link naming block 4 of the same chain: set aside too, until the user's source gives its hash.
    await page.goto(live(node.url, link(node, 4n)));
    await state(page, "verified", "confirmed");
    await waitText(page, "set-aside", /^The link names block 4, /);
    await pasteHash(page, "replace-form", hashOf(node, 4n));
    await waitText(page, "trust-root", /^the root you gave \(height 4, hash [0-9A-F]{64}, .*\) — confirmed$/);
    await state(page, "verified", "confirmed");
    expect(await page.locator('[data-testid="trust-panel"]').innerText()).toBe("");
    expect(errors).toEqual([]);
  });
});

describe("freshness", { timeout: 90_000 }, () => {
  it("a latest header older than the bound is refused (check freshness): red, nothing verified", async () => {
    const { page, errors } = await open(url(stale.url, link(stale, 3n)));
    await state(page, "refused");
    const err = page.locator('[data-testid="verify-error"]');
    expect(await err.getAttribute("data-check")).toBe("freshness");
    expect(await err.getAttribute("data-height")).toBe("30");
    expect(await err.innerText()).toMatch(
      /^check “freshness” at height 30: the node's latest header is from \S+, \d+ h( \d+ min)? ago, older than the freshness bound \(10 min\)/,
    );
    expect(await badges(page)).toEqual([]);
    expect(await page.locator('[data-testid="not-verified"]').count()).toBe(4);
    await shot(page, "17-stale");
    expect(errors).toEqual([]);
  });

  it("a wider bound (&max_age=3h) verifies it, its age said; a bound that is not a duration is refused", async () => {
    const { page } = await open(url(stale.url, { ...link(stale, 3n), max_age: "3h" }));
    await state(page, "verified", "unconfirmed");
    expect(await text(page, "freshness")).toMatch(/^\d+ h( \d+ min)? ago by this computer's clock; a latest header older than 3 h is refused \(&max_age=\)$/);
    const bad = await open(url(stale.url, { ...link(stale, 3n), max_age: "soon" }));
    await state(bad.page, "refused");
    expect(await bad.page.locator('[data-testid="verify-error"]').innerText()).toBe(
      'check “trust-options”: invalid maximum age "soon": time: invalid duration "soon"',
    );
  });

  it("a chain halted for its upgrade is said from verified data — no block since …, halted at H for upgrade Y — never failed", async () => {
    const { page, errors } = await open(url(halted.url, link(halted, 3n)));
    await state(page, "halted", "unconfirmed");
    expect(await text(page, "banner-headline")).toBe("Halted at height 30, waiting for v9.");
    expect(await text(page, "banner")).toMatch(/No block since \S+ \(\d+ h( \d+ min)? ago\): halted at 30 for upgrade “v9” — proven: header 30 is verified/);
    expect(await text(page, "halted-for")).toBe("halted at 30 for upgrade “v9”");
    expect(await text(page, "freshness")).toMatch(
      /ago by this computer's clock; a latest header older than 10 min is refused \(&max_age=\) — halted at 30 for upgrade “v9”$/,
    );
    expect(await text(page, "blocks-left")).toBe("0 — halted here");
    expect(await page.locator('[data-testid="verify-error"]').count()).toBe(0);
    await expectAllAmber(page, 4);
    await shot(page, "18-halted");
    expect(errors).toEqual([]);
  });
});

describe("the block record of an applied upgrade (its transactions proven: above)", { timeout: 90_000 }, () => {
  it("a node that hands over other transactions is refused (check proof at that height)", async () => {
    const proxy = await blockTxsRpcProxy(node.url, () => ["dHgtbm90LWluLXRoZS1ibG9jaw=="]);
    servers.push(proxy);
    const { page } = await open(live(proxy.url, link(node, 3n)));
    await state(page, "refused");
    const err = page.locator('[data-testid="verify-error"]');
    expect(await err.getAttribute("data-check")).toBe("proof");
    expect(await err.innerText()).toMatch(
      /^check “proof” at height 30: the 1 transactions the node gave hash to [0-9A-F]{64}, not the verified header's data_hash [0-9A-F]{64}$/,
    );
    expect(await badges(page)).toEqual([]);
  });
});

describe("a lying node", { timeout: 90_000 }, () => {
  const lies: [Tampering, string][] = [
    ["forge-signature", "signature"],
    ["drop-signatures", "voting-power"],
    ["plan-value", "proof"],
    ["proof-byte", "proof"],
    ["strip-prove", "proof-missing"],
  ];
  for (const [mode, check] of lies) {
    it(`(${mode}) is one red message — check ${check} and its height — and nothing verified`, async () => {
      const core = await loadCore("js");
      const liar = await lyingNode(node.url, { mode, above: 3n, fakePlan: (p) => core.encodePlan({ ...core.decodePlan(p!), height: 79n }) });
      servers.push(liar);
      const { page, errors } = await open(live(liar.url, link(node, 3n)));
      await state(page, "refused");
      const err = page.locator('[data-testid="verify-error"]');
      expect(await err.getAttribute("data-check")).toBe(check);
      expect(await err.getAttribute("data-height")).toBe("50");
      expect(await err.innerText()).toMatch(new RegExp(`^check “${check}” at height 50: `));
      expect(await badges(page)).toEqual([]);
      expect(await page.locator('[data-testid="not-verified"]').count()).toBe(4);
      if (mode === "forge-signature") await shot(page, "19-refused");
      expect(errors).toEqual([]);
    });
  }

  it("(forged range) an invented neighbour stacked on the genuine absence proof is refused — check proof — and no module version shown", async () => {
    const evil = { key: Uint8Array.of(0x02, ...new TextEncoder().encode("evil")), value: Uint8Array.of(0, 0, 0, 0, 0, 0, 3, 231) };
    const liar = await forgedRangeNode(node.url, { prefix: Uint8Array.of(0x02), invented: [evil] });
    servers.push(liar);
    const { page, errors } = await open(live(liar.url, link(node, 3n)));
    await state(page, "refused");
    const err = page.locator('[data-testid="verify-error"]');
    expect(await err.getAttribute("data-check")).toBe("proof");
    expect(await err.innerText()).toMatch(
      /^check “proof” at height 50: the proof of upgrade key 0x02 \(absent\) does not hold against the verified app hash: proof op 0 \(ics23:iavl\): the proof is not canonically encoded: CommitmentProof holds two proofs/,
    );
    expect(liar.forged).toBeGreaterThan(0);
    expect(await badges(page)).toEqual([]);
    expect(await page.getByText("evil").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("a root older than the trusting period is refused (trusting-period)", async () => {
    const { page } = await open(live(node.url, { ...link(node, 3n), trusting_period: "2s" }));
    await state(page, "refused");
    expect(await page.locator('[data-testid="verify-error"]').getAttribute("data-check")).toBe("trusting-period");
  });
});
