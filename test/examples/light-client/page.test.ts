/**
 * The light-client page (examples/light-client) in the system Chromium against an in-process devnet on
 * loopback, served by the devnet itself at /ui: the empty chain; the plan, its binaries and a live countdown
 * once a proposal passes; the halt ("node unreachable", most likely halted for the upgrade); the applied
 * upgrade with its block record and module-version changes after the restart with the v2 app; REST and
 * raw-store modes agreeing, with the done records in the seed's layout and (through a proxy) in the Cosmos
 * SDK's; a corrupt store value, a closed port, garbage, a CORS refusal and a bad address,
 * each said in words while the page keeps polling and nothing throws. A screenshot of every state goes to
 * test-output/light-client/.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Browser } from "playwright";
import { startDevnet, type DevnetHandle, type GenesisKey } from "../../../bindings/apps/devnet/index.js";
import { EPHEMERAL, V1, V2, captureLogger, clients, newHome, proposeAndPass, removeTempDirs, softwareUpgradeAny } from "../../apps/devnet/helpers.js";
import {
  builtPage,
  closedPort,
  corruptingRpcProxy,
  garbageServer,
  innerTexts,
  launchChromium,
  noCorsServer,
  openPage,
  polls,
  sdkLayoutRpcProxy,
  shot,
  text,
  waitState,
  waitText,
  type OpenPage,
  type TestServer,
} from "./helpers.js";

const CHECKSUM = "aec070645fe53ee3b3763059376134f058cc337247c978add178b6ccdfb0019f";
const INFO = JSON.stringify({
  binaries: {
    "linux/amd64": `https://downloads.example/xupgrade-v2-linux-amd64.tar.gz?checksum=sha256:${CHECKSUM}`,
    any: "https://downloads.example/xupgrade-v2.zip",
  },
});
const POLL = "poll=300";

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}

/** Seconds left in a countdown text such as "in 5.3 s" or "in 1m 02s". */
function secondsLeft(countdown: string): number {
  const s = /^in (\d+\.\d) s$/.exec(countdown);
  if (s) return Number(s[1]);
  const m = /^in (\d+)m (\d+)s$/.exec(countdown);
  if (m) return Number(m[1]) * 60 + Number(m[2]);
  throw new Error(`not a running countdown: ${countdown}`);
}

describe("the light-client page against a devnet", { timeout: 60_000 }, () => {
  let browser: Browser;
  let node: DevnetHandle;
  let home: string;
  let keys: GenesisKey[];
  let addresses: { rpc: string; rest: string; grpc: string };
  let target: bigint;
  let main: OpenPage;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    vi.stubEnv("XUPGRADE_UI_DIR", builtPage()); // the page this run built, served by the devnet at /ui
    ({ home, keys } = await newHome({ blockTime: "100ms" }));
    node = await startDevnet({ home, app: V1, ...EPHEMERAL, logger: captureLogger("light-client v1") });
    addresses = { rpc: new URL(node.rpcUrl).host, rest: new URL(node.restUrl).host, grpc: node.grpcAddress };
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await node?.stop();
    await Promise.all(servers.map((s) => s.close()));
    removeTempDirs();
    vi.unstubAllEnvs();
  });

  it("the devnet serves the built page at /ui: redirect, files with their MIME types, config.json, nothing outside the page", async () => {
    const get = (path: string) => fetch(`${node.restUrl}${path}`, { redirect: "manual" });
    const ui = await get("/ui");
    expect([ui.status, ui.headers.get("location")]).toEqual([302, "/ui/index.html"]);
    expect((await get("/ui?mode=raw&poll=500")).headers.get("location")).toBe("/ui/index.html?mode=raw&poll=500");
    const index = await get("/ui/index.html");
    const html = await index.text();
    expect([index.status, index.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="\.\/(assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const js = await get(`/ui/${script}`);
    expect([js.status, js.headers.get("content-type"), js.headers.get("cache-control")]).toEqual([
      200,
      "text/javascript; charset=utf-8",
      "public, max-age=31536000, immutable",
    ]);
    // The .wasm core is inlined (base64 of "\0asm") in the page's script or a chunk it shares with the fleet view:
    // no .wasm file is fetched.
    const code = [await js.text()];
    for (const chunk of code[0].matchAll(/from"\.\/([^"]+\.js)"/g)) code.push(await (await get(`/ui/assets/${chunk[1]}`)).text());
    expect(code.some((c) => c.includes("AGFzbQ"))).toBe(true);
    expect(code.some((c) => /\.wasm["`]/.test(c))).toBe(false);
    expect((await get(`/ui/${style}`)).headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await (await get("/ui/config.json")).json()).toEqual({ chain_id: "xupgrade-devnet-1", rpc: node.rpcUrl, engine: "local" });
    for (const path of ["/ui/..%2Fpackage.json", "/ui/assets/..%2F..%2F..%2F..%2Fpackage.json", "/ui/.hidden", "/ui/missing.js", "/ui/assets/missing.js"]) {
      const res = await get(path);
      expect([path, res.status, res.headers.get("content-type")]).toEqual([path, 404, "text/plain; charset=utf-8"]);
    }
    expect(await (await get("/ui/../package.json")).text()).not.toContain('"name": "xupgrade"');
    // The module's own REST routes are untouched.
    expect(await (await get("/cosmos/upgrade/v1beta1/current_plan")).text()).toBe('{"plan":null}');
  });

  it("a fresh chain: chain id and height, a clear empty state, both modes agree", async () => {
    main = await openPage(browser, `${node.restUrl}/ui?${POLL}`);
    const { page } = main;
    await waitText(page, "chain-id", "xupgrade-devnet-1");
    // Defaults from the page's own origin (REST) and the devnet's config.json (RPC).
    expect(await page.inputValue("#rest-url")).toBe(node.restUrl);
    expect(await page.inputValue("#rpc-url")).toBe(node.rpcUrl);
    expect(Number(await text(page, "height"))).toBeGreaterThan(0);
    await waitText(page, "no-plan", "No upgrade scheduled.");
    expect(await text(page, "no-plan")).toContain("Nothing has happened here yet");
    await waitText(page, "no-applied", "No upgrade has been applied on this chain yet.");
    await waitText(page, "agreement-summary", "Both modes agree");
    await waitState(page, "ok");
    expect(await text(page, "footer")).toContain("core: wasm");
    await shot(page, "1-empty");
  });

  it("after a proposal passes: the plan, its binaries with checksums, an ETA and a live countdown; raw mode shows the same", async () => {
    const { page } = main;
    const c = await clients(node.rpcUrl);
    target = node.height() + 80n; // 8 s of 100 ms blocks: the vote passes after 1 s
    await proposeAndPass(c, keys, [softwareUpgradeAny("v2", target, INFO)]);
    c.comet.disconnect();

    await waitText(page, "plan-name", "v2", 15_000);
    expect(await text(page, "plan-height")).toBe(String(target));
    expect(await innerTexts(page, '[data-testid="binary"]')).toEqual([
      "any\thttps://downloads.example/xupgrade-v2.zip\tnone (not verifiable)",
      `linux/amd64\thttps://downloads.example/xupgrade-v2-linux-amd64.tar.gz\tsha256:${CHECKSUM}`,
    ]);
    // The ETA and the countdown as one render shows them: N blocks at the measured block time, counted down from
    // when the page saw the height — never more than N × that time, however slow a loaded machine makes the blocks.
    const [etaText, countdown] = await page.evaluate(() =>
      ["eta", "countdown"].map((id) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`)!.innerText),
    );
    const [, blocks, per, unit] = /^≈ .+ \((\d+) blocks × ([\d.]+) (ms|s)\)$/.exec(etaText) ?? [];
    expect(blocks, etaText).toBeDefined();
    const blockMs = unit === "s" ? Number(per) * 1000 + 5 : Number(per) + 0.5; // the shown time, rounded up
    const first = secondsLeft(countdown);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual((Number(blocks) * blockMs) / 1000 + 0.05);
    await page.waitForTimeout(700);
    expect(secondsLeft(await text(page, "countdown"))).toBeLessThan(first); // it ticks between polls
    await waitText(page, "agreement-summary", "Both modes agree");
    await shot(page, "2-plan-countdown");

    await page.check('input[name="mode"][value="raw"]');
    await waitText(page, "plan", "core.decodePlan");
    expect(await text(page, "plan-name")).toBe("v2");
    expect(await text(page, "plan-height")).toBe(String(target));
    expect(page.url()).toContain("mode=raw");
    // The raw entry the WASM core decoded: key 00, the Plan protobuf (field 1 "v2").
    expect(await page.locator('[data-testid="raw-entry"]').first().innerText()).toMatch(/^00\t0a027632/);
    const rows = page.locator('[data-testid="agreement-row"]');
    expect(await rows.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.verdict))).toEqual(["agree", "agree", "agree", "agree"]);
    await shot(page, "3-plan-raw-store");
    await page.check('input[name="mode"][value="rest"]');
  });

  it("the halt at the plan height: node unreachable, most likely halted for the upgrade; the page keeps polling", async () => {
    const { page } = main;
    expect(await within(node.done, 30_000, "the v1 node to halt")).toBe(20);
    await waitState(page, "unreachable", 15_000);
    const banner = await text(page, "banner");
    expect(banner).toContain("Node unreachable — still trying every 0.3 s.");
    expect(banner).toContain(`The node stopped just before height ${target}, where upgrade “v2” is scheduled: it has most likely halted for the upgrade.`);
    expect(banner).toContain("nothing answers there");
    // The countdown runs out (it counts from when the page first saw the last height; the node stopped there).
    await waitText(page, "countdown", /^due now: the node halts at this height until the new binary runs$/, 5000);
    const before = await polls(page);
    await page.waitForTimeout(900);
    expect(await polls(page)).toBeGreaterThan(before);
    await shot(page, "4-halted-unreachable");
  });

  it("after the restart with the v2 app: the applied upgrade, its block record, what changed in the version table; both modes agree", async () => {
    const { page } = main;
    node = await startDevnet({ home, app: V2, ...addresses, logger: captureLogger("light-client v2") });
    await waitText(page, "applied-upgrade", "v2", 20_000);
    expect(await text(page, "applied-height")).toBe(String(target));
    const res = await fetch(`${node.rpcUrl}/blockchain?minHeight=${target}&maxHeight=${target}`);
    const meta = ((await res.json()) as { result: { block_metas: { block_id: { hash: string } }[] } }).result.block_metas[0];
    await waitText(page, "block-hash", meta.block_id.hash);
    await waitText(page, "no-plan", "No upgrade scheduled.");
    const change = await waitText(page, "versions-change", "counter 1 → 2");
    expect(change).toContain(`At “v2” (height ${target}): counter 1 → 2, notes 1 → 2, tags added.`);
    expect(change).toContain(`Before: the node's state at height ${target - 1n}.`); // the devnet keeps past heights (docs/spec/store.md §3)
    await waitState(page, "ok");
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLElement>('[data-testid="agreement-row"]')].every((r) => r.dataset.verdict === "agree"));
    expect(await text(page, "agreement")).toContain("1 (store key 0x03 = RPC status)");
    await shot(page, "5-applied");

    await page.check('input[name="mode"][value="raw"]');
    await waitText(page, "applied", "core.decodeDoneEntriesAnyLayout");
    await page.waitForFunction((h) => Number(document.querySelector('[data-testid="height"]')?.textContent) > h + 2, Number(target));
    expect(await text(page, "applied-height")).toBe(String(target));
    // The devnet stores the seed's layout, and the page says so.
    expect(await text(page, "done-layout")).toBe("Done records: seed layout (height in the value) — 01 ‖ name → BE64(height), as xupgrade stores them.");
    expect(await text(page, "versions-change")).toContain("counter 1 → 2, notes 1 → 2, tags added");
    await waitText(page, "agreement-summary", "Both modes agree");
    await shot(page, "6-applied-raw-store", true);
    expect(main.errors).toEqual([]);
    await main.context.close();
  });

  it("done records in the SDK's layout (as simd stores them): raw mode reads them, says so, and agrees with REST", async () => {
    const proxy = await sdkLayoutRpcProxy(node.rpcUrl);
    servers.push(proxy);
    const q = new URLSearchParams({ rest: node.restUrl, rpc: proxy.url, mode: "raw", poll: "300" });
    const { page, context, errors } = await openPage(browser, `${node.restUrl}/ui/index.html?${q}`);
    await waitText(
      page,
      "done-layout",
      "Done records: SDK layout (height in the key) — 01 ‖ BE64(height) ‖ name → 01, as Cosmos SDK v0.46 and later store them.",
    );
    expect(await text(page, "applied-height")).toBe(String(target));
    // The raw entry the core decoded: 01 ‖ BE64(target) ‖ "v2" → 01.
    const key = `01${target.toString(16).padStart(16, "0")}7632`;
    expect(await innerTexts(page, '[data-testid="raw-entry"]')).toContain(`${key}\t01`);
    await waitText(page, "agreement-summary", "Both modes agree");
    await waitState(page, "ok");
    await shot(page, "6b-applied-raw-store-sdk-layout");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a corrupt store value: the raw mode says which value and why, REST still works, nothing throws, polling goes on", async () => {
    const proxy = await corruptingRpcProxy(node.rpcUrl);
    servers.push(proxy);
    const q = new URLSearchParams({ rest: node.restUrl, rpc: proxy.url, mode: "raw", poll: "300" });
    const { page, context, errors } = await openPage(browser, `${node.restUrl}/ui/index.html?${q}`);
    await waitState(page, "corrupt");
    expect(await text(page, "banner-headline")).toBe("Corrupt store value: the WASM core refuses to decode what the node stores.");
    const plan = await waitText(page, "plan", "corrupt");
    expect(plan).toContain("the plan (key 0x00) cannot be decoded — proto: field 1: length exceeds the remaining bytes: malformed protobuf. Raw bytes: 0a0576");
    expect(await text(page, "applied")).toContain(
      "done record at key 0x017639 with a 2-byte value fits neither layout (seed: an 8-byte height; sdk: the value 01 under a key of at least 10 bytes): corrupt store value",
    );
    expect(await text(page, "versions-table")).toContain("tags"); // the other ranges still decode
    const verdicts = await page.locator('[data-testid="agreement-row"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.verdict));
    expect(verdicts.slice(0, 2)).toEqual(["unknown", "unknown"]);
    expect(await text(page, "agreement")).toContain("scheduled plan cannot compare: the raw store could not be read (a corrupt store value)");
    expect(await text(page, "versions")).toContain("Which upgrade last changed them is unknown: the applied upgrades could not be read.");
    const before = await polls(page);
    await page.waitForTimeout(900);
    expect(await polls(page)).toBeGreaterThan(before);
    await shot(page, "7-corrupt-store-value");
    await page.check('input[name="mode"][value="rest"]');
    await waitText(page, "no-plan", "No upgrade scheduled.");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("bad input: a closed port, a server answering garbage, a CORS refusal, a bad address — said in words; then it recovers", async () => {
    const closed = await closedPort();
    const garbage = await garbageServer();
    const noCors = await noCorsServer();
    servers.push(garbage, noCors);
    const q = new URLSearchParams({ rest: closed, rpc: closed, poll: "300", mode: "rest" });
    const { page, context, errors } = await openPage(browser, `${node.restUrl}/ui/index.html?${q}`);
    const connect = async (rest: string, rpc: string) => {
      await page.fill("#rest-url", rest);
      await page.fill("#rpc-url", rpc);
      await page.click('button[type="submit"]');
    };

    await waitState(page, "unreachable");
    let banner = await text(page, "banner");
    expect(banner).toContain("Node unreachable");
    expect(banner).toContain(`cannot reach ${closed} — nothing answers there (the node is stopped or halted, or the address is wrong)`);
    expect(banner).toContain("The node has not answered since the page connected.");
    const before = await polls(page);
    await page.waitForTimeout(900);
    expect(await polls(page)).toBeGreaterThan(before);
    await shot(page, "8-unreachable");

    await connect(garbage.url, garbage.url);
    banner = await waitText(page, "banner", "not JSON");
    // One line per distinct failure, naming the requests it hit.
    expect(banner).toContain(
      `REST current_plan, REST module_versions: ${garbage.url} answered HTTP 200 with something that is not JSON (text/html): “<html><body>It works! (an ordinary web server)</body></html>”. Is this the node's REST address?`,
    );
    expect(banner).toContain(`RPC status, RPC abci_query: ${garbage.url} answered HTTP 200 with something that is not JSON`);
    expect(await page.locator("body").getAttribute("data-state")).toBe("degraded");
    await shot(page, "9-garbage");

    await connect(noCors.url, noCors.url);
    banner = await waitText(page, "banner", "refuses to let this page read");
    expect(await text(page, "banner-headline")).toBe("The node refuses cross-origin reads (CORS).");
    expect(banner).toContain(
      `${noCors.url} answers, but refuses to let this page read the answer (no CORS header Access-Control-Allow-Origin for ${node.restUrl})`,
    );
    await shot(page, "10-cors-refused");

    await connect("ftp://example.com", node.rpcUrl);
    await waitText(page, "banner", "The REST address “ftp://example.com” uses ftp: only http:// and https:// work in a browser.");
    await connect("http://127.0.0.1:99999", node.rpcUrl);
    await waitText(page, "banner", "The REST address “http://127.0.0.1:99999” is not a URL: expected something like http://127.0.0.1:1317.");
    expect(await page.locator("body").getAttribute("data-state")).toBe("error");
    await shot(page, "11-bad-address");

    await connect(node.restUrl, node.rpcUrl);
    await waitText(page, "chain-id", "xupgrade-devnet-1");
    await waitState(page, "ok");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the devnet cannot be verified yet, said plainly: its page opens on REST with a note, and verified mode explains why instead of failing", async () => {
    const { page, context, errors } = await openPage(browser, `${node.restUrl}/ui?${POLL}`);
    await waitText(page, "verify-note", "This devnet cannot be verified yet: its state is shown unverified.");
    expect(await page.locator('input[name="mode"][value="rest"]').isChecked()).toBe(true);
    await waitState(page, "ok");
    await page.check('input[name="mode"][value="verified"]');
    await waitState(page, "unprovable");
    expect(await text(page, "unprovable")).toBe("This chain cannot be verified yet.");
    expect(await text(page, "banner")).toContain("The single-process xupgrade devnet cannot be verified: its headers are not CometBFT's");
    expect(await page.locator('[data-testid="verified-badge"]').count()).toBe(0);
    await shot(page, "12-devnet-not-verifiable");
    await page.check('input[name="mode"][value="rest"]');
    await waitState(page, "ok");
    expect(errors).toEqual([]);
    await context.close();
  });
});
