/**
 * Pieces of the light-client suite: building the page (Vite), the system Chromium through Playwright
 * (never a downloaded browser), screenshots, and small loopback servers that misbehave on purpose — a
 * proxy corrupting store values, one answering garbage, one without CORS headers — and a proxy showing a
 * devnet's done records in the Cosmos SDK's layout.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { extname, join, normalize } from "node:path";
// `playwright` is playwright-core's API (it re-exports it) and the declared devDependency.
import { chromium, type Browser, type BrowserContext, type Page } from "playwright";
import { httpServer as listen, type TestServer } from "../../support/http.js";
import { cachedBuild, filesUnder } from "../../support/build-cache.js";
import { ROOT } from "../../support/paths.js";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../support/chromium.js";
import { decodePairs } from "../../../examples/light-client/src/raw.js";

export { listen, type TestServer };

export const SHOTS = join(ROOT, "test-output/light-client");
export const DOCS_SHOT = join(ROOT, "docs/light-client.png");

let page: string | undefined;

/**
 * The page as `vite build` makes it from examples/light-client and the package's sources: built once per content
 * of those sources and shared by every test process (support/build-cache.ts), so a fresh clone tests its current
 * sources and suites running at the same time never serve a build another one is replacing. Returns its directory.
 */
export function builtPage(): string {
  // Once per process: the fault net asks for it at every node it starts, and hashing the sources reads ~400 files.
  if (page) return page;
  const sources = [join(ROOT, "package.json"), ...filesUnder(join(ROOT, "examples/light-client")), ...filesUnder(join(ROOT, "bindings"))];
  page = cachedBuild("xupgrade-ui-test", sources, "index.html", (out) => {
    const vite = join(ROOT, "node_modules/vite/bin/vite.js");
    execFileSync(process.execPath, [vite, "build", "--config", join(ROOT, "examples/light-client/vite.config.ts"), "--outDir", out, "--emptyOutDir"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
  });
  return page;
}

export function launchChromium(): Promise<Browser> {
  const executablePath = CHROMIUM_PATH;
  if (!existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: run \`node scripts/ensure-chromium.mjs\` (npm test does) or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

export interface OpenPage {
  page: Page;
  context: BrowserContext;
  /** Uncaught exceptions and unhandled rejections in the page. */
  errors: string[];
}

/** A fresh context (empty localStorage) and page at `url`. */
export async function openPage(browser: Browser, url: string): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.stack ?? e.message));
  await page.goto(url);
  return { page, context, errors };
}

/** The text of `[data-testid=<id>]` (the first one). */
export function text(page: Page, testid: string): Promise<string> {
  return page.locator(`[data-testid="${testid}"]`).first().innerText({ timeout: 20_000 });
}

/**
 * The innerText of every element `selector` matches, read in one evaluation. The page rebuilds its cards on each
 * poll, and Playwright's allInnerTexts() reads the elements it found a moment before: detached by then, they have
 * no layout, and innerText loses its tabs and line breaks.
 */
export function innerTexts(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((s) => [...document.querySelectorAll<HTMLElement>(s)].map((e) => e.innerText), selector);
}

/** Waits until `[data-testid=<id>]` contains `expected`. */
export async function waitText(page: Page, testid: string, expected: string | RegExp, timeoutMs = 20_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    const loc = page.locator(`[data-testid="${testid}"]`).first();
    last = (await loc.count()) ? await loc.innerText().catch(() => "") : "(absent)";
    if (typeof expected === "string" ? last.includes(expected) : expected.test(last)) return last;
    if (Date.now() > end) throw new Error(`timed out waiting for [data-testid=${testid}] to show ${String(expected)}; it shows: ${last}`);
    await page.waitForTimeout(50);
  }
}

/** Waits until the page's body has `data-state=<state>`. */
export async function waitState(page: Page, state: string, timeoutMs = 20_000): Promise<void> {
  await page.waitForFunction((s) => document.body.dataset.state === s, state, { timeout: timeoutMs });
}

/** How many polls the page has made (the footer's counter). */
export async function polls(page: Page): Promise<number> {
  return Number(await page.locator("#footer").getAttribute("data-polls"));
}

/** Writes test-output/light-client/<name>.png (and docs/light-client.png, or the docs/ file `docs` names, when asked to). */
export async function shot(page: Page, name: string, docs: boolean | string = false): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  // The committed screenshots change only on purpose: when missing, or with XUPGRADE_UPDATE_SCREENSHOT=1.
  const target = typeof docs === "string" ? join(ROOT, "docs", docs) : docs ? DOCS_SHOT : undefined;
  if (target && (!existsSync(target) || process.env.XUPGRADE_UPDATE_SCREENSHOT === "1")) {
    mkdirSync(join(ROOT, "docs"), { recursive: true });
    copyFileSync(path, target);
  }
}

/**
 * Verified mode with no trust root: chooses the panel's secondary button, the node's own latest header, unverified
 * (every badge then amber). For suites that need the page verifying a node they started and have no root for.
 */
export async function trustFirstUse(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.locator('[data-testid="trust-first-use"]').click({ timeout: timeoutMs });
}

/** Pastes `hash` into one of the trust panel's hash forms (`confirm-form`, `replace-form`) and submits it. */
export async function pasteHash(page: Page, form: "confirm-form" | "replace-form", hash: string): Promise<void> {
  await page.locator(`[data-testid="${form}-hash"]`).fill(hash);
  await page.locator(`[data-testid="${form}-submit"]`).click();
}

/** Types a root into the trust panel's root form (the first one shown) and submits it. */
export async function giveRoot(page: Page, height: bigint | number, hash: string): Promise<void> {
  const form = page.locator('[data-testid="root-form"]').first();
  await form.locator('[data-testid="root-form-height"]').fill(String(height));
  await form.locator('[data-testid="root-form-hash"]').fill(hash);
  await form.locator('[data-testid="root-form-submit"]').click();
}

/** The badges of verified mode: their text and whether each is green (under a confirmed root). */
export async function badges(page: Page): Promise<{ text: string; confirmed: boolean }[]> {
  return page
    .locator('[data-testid="verified-badge"], [data-testid="readiness-proven"]')
    .evaluateAll((els) => els.map((e) => ({ text: (e as HTMLElement).innerText, confirmed: e.getAttribute("data-confirmed") === "true" })));
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** The built page (builtPage) from loopback, as any static web server would serve it (nothing of a devnet). */
export function staticUi(): Promise<TestServer> {
  const dir = builtPage();
  return listen((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? "/").split("?")[0])).replace(/^\/+/, "") || "index.html";
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not found");
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
}

// ---- misbehaving servers ----

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<string> {
  const s = await listen(() => undefined);
  await s.close();
  return s.url;
}

const CORS = { "Access-Control-Allow-Origin": "*" };

/** Answers every request with an HTML page (readable cross-origin): not a node at all. */
export function garbageServer(): Promise<TestServer> {
  return listen((_req, res) => {
    res.writeHead(200, { ...CORS, "Content-Type": "text/html" });
    res.end("<html><body>It works! (an ordinary web server)</body></html>");
  });
}

/** Answers node-like JSON, but without any CORS header: the browser refuses cross-origin reads. */
export function noCorsServer(): Promise<TestServer> {
  return listen((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end('{"jsonrpc":"2.0","id":-1,"result":{}}');
  });
}

/**
 * A proxy in front of a node's RPC that rewrites what `abci_query` answers for the upgrade store:
 * `rewrite(path, data, value)` gets the path and data the page asked for (`/store/upgrade/key`, `00`) and
 * the node's value, and returns the value to answer instead (undefined: the node's own).
 */
export function rewritingRpcProxy(upstream: string, rewrite: (path: string, data: string, value: Uint8Array) => Uint8Array | undefined): Promise<TestServer> {
  return listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy.local");
    const answer = await fetch(upstream + (req.url ?? "/"), { method: req.method === "OPTIONS" ? "OPTIONS" : "GET" });
    let body = await answer.text();
    if (url.pathname === "/abci_query") {
      const path = (url.searchParams.get("path") ?? "").replace(/^"|"$/g, "");
      const data = (url.searchParams.get("data") ?? "").replace(/^0x/, "");
      const json = JSON.parse(body) as { result?: { response: { value: string | null } } };
      if (json.result) {
        const replace = rewrite(path, data, Buffer.from(json.result.response.value ?? "", "base64"));
        if (replace) {
          json.result.response.value = Buffer.from(replace).toString("base64");
          body = JSON.stringify(json);
        }
      }
    }
    res.writeHead(answer.status, { ...CORS, "Content-Type": answer.headers.get("content-type") ?? "application/json" });
    res.end(body);
  });
}

/**
 * A proxy in front of a node's RPC that corrupts the upgrade store as `abci_query` shows it: the plan
 * (key 00) becomes truncated protobuf and the 0x01 range holds a done entry whose height has 2 bytes.
 */
export function corruptingRpcProxy(upstream: string): Promise<TestServer> {
  const CORRUPT_PLAN = Uint8Array.of(0x0a, 0x05, 0x76); // field 1, length 5, only 1 byte follows
  // Pairs { Pair { key 0x01 "v9", value 0x0001 } }
  const CORRUPT_DONE = Uint8Array.of(0x0a, 0x09, 0x0a, 0x03, 0x01, 0x76, 0x39, 0x12, 0x02, 0x00, 0x01);
  return rewritingRpcProxy(upstream, (path, data) =>
    path === "/store/upgrade/key" && data === "00" ? CORRUPT_PLAN : path === "/store/upgrade/subspace" && data === "01" ? CORRUPT_DONE : undefined,
  );
}

/**
 * A proxy in front of a devnet's RPC that shows its done records (range 0x01) in the Cosmos SDK's layout
 * (v0.46 and later), as a real SDK node stores them: `01 ‖ name → BE64(h)` becomes `01 ‖ BE64(h) ‖ name → 01`,
 * in the SDK's key order (height, then name).
 */
export function sdkLayoutRpcProxy(upstream: string): Promise<TestServer> {
  return rewritingRpcProxy(upstream, (path, data, value) => {
    if (path !== "/store/upgrade/subspace" || data !== "01") return undefined;
    const { keys, values } = decodePairs(value);
    const records = keys.map((k, i) => Uint8Array.from([0x01, ...values[i], ...k.subarray(1)]));
    records.sort((a, b) => Buffer.compare(a, b));
    return encodePairs(records.map((k) => [k, Uint8Array.of(1)]));
  });
}

/**
 * A proxy in front of a node's RPC that answers `block` itself with the transactions `txsAt(height)` gives (base64),
 * or CometBFT's error for a block it does not keep when that is undefined; everything else is the node's.
 */
export function blockTxsRpcProxy(upstream: string, txsAt: (height: bigint) => string[] | undefined): Promise<TestServer> {
  return listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy.local");
    if (url.pathname === "/block") {
      const height = BigInt((url.searchParams.get("height") ?? "0").replace(/"/g, ""));
      const txs = txsAt(height);
      const body = txs
        ? { jsonrpc: "2.0", id: -1, result: { block_id: {}, block: { header: {}, data: { txs }, evidence: { evidence: [] }, last_commit: null } } }
        : { jsonrpc: "2.0", id: -1, error: { code: -32603, message: "Internal error", data: `height ${height} is not available, lowest height is 40` } };
      res.writeHead(200, { ...CORS, "Content-Type": "application/json" });
      return res.end(JSON.stringify(body));
    }
    const answer = await fetch(upstream + (req.url ?? "/"), { method: req.method === "OPTIONS" ? "OPTIONS" : "GET" });
    res.writeHead(answer.status, { ...CORS, "Content-Type": answer.headers.get("content-type") ?? "application/json" });
    res.end(await answer.text());
  });
}

/** cosmos.base.kv.v1beta1.Pairs { repeated Pair pairs = 1 }, Pair { bytes key = 1; bytes value = 2 }. */
function encodePairs(pairs: [Uint8Array, Uint8Array][]): Uint8Array {
  const varint = (n: number) => {
    const out: number[] = [];
    for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
    return [...out, n];
  };
  const field = (no: number, bytes: Uint8Array | number[]) => [(no << 3) | 2, ...varint(bytes.length), ...bytes];
  return Uint8Array.from(pairs.flatMap(([k, v]) => field(1, [...field(1, k), ...field(2, v)])));
}
