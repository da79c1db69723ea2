/**
 * Case 12, the light client: verifying one commit of 4 and of 150 validators (synthetic ed25519
 * keys), in Node and in Chromium, with @noble/curves alone and with WebCrypto's Ed25519 first; in Chromium the
 * work of one verified refresh — a skipping step over the 150-validator commit plus the store proofs of the
 * plan, the protocol version and every module version — and the whole verified refresh of the status page
 * against a synthetic SDK node (network included). Writes results-light.json beside results.json and the table
 * between the `light` markers of bench/README.md.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import type { Browser } from "playwright";
import { verifyCommitLight } from "../bindings/light/commit.js";
import type { SignatureEngine } from "../bindings/light/signatures.js";
import { timestampFromNs } from "../bindings/light/types.js";
import { ValidatorSet } from "../bindings/light/validators.js";
import { lightBlock, verifyNonAdjacent } from "../bindings/light/verifier.js";
import { launchChromium, staticUi } from "../test/examples/light-client/helpers.js";
import { httpServer } from "../test/support/http.js";
import { SyntheticChain } from "../test/support/light/synthetic.js";
import { syntheticSdkNode, type SdkNode } from "../test/support/light/synthetic-sdk.js";
import { removeTempDirs } from "../test/support/temp.js";
import { QUICK } from "./config.js";
import type { Target } from "./report.js";

const ENGINES: SignatureEngine[] = ["noble", "webcrypto+noble"];
const SIZES = [4, 150];

export interface Stat {
  median: number;
  p90: number;
  runs: number;
}

const stat = (xs: number[]): Stat => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: +(s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2).toFixed(3), p90: +at(0.9).toFixed(3), runs: s.length };
};

export interface LightResults {
  node: { validators: number; engine: SignatureEngine; commitMs: Stat; skipMs: Stat }[];
  chromium: { validators: number; engine: SignatureEngine; webcrypto: boolean; commitMs: Stat; skipMs: Stat; proofsMs: Stat; totalMs: Stat; proofs: number }[];
  page: { validators: number; firstRefreshMs: number; refreshMs: Stat };
  chromiumVersion: string;
}

/** Node: one commit, and one skipping step over it, on fresh copies each run (no signature is cached). */
async function nodeRuns(runs: number): Promise<LightResults["node"]> {
  const out: LightResults["node"] = [];
  for (const n of SIZES) {
    const chain = new SyntheticChain({ chainId: `bench-${n}`, validators: n, latest: 20n });
    const block = (h: bigint) =>
      lightBlock({ header: chain.header(h), commit: chain.commit(h) }, new ValidatorSet(chain.valset(h).set.validators), chain.chainId);
    const root = block(1n);
    const now = timestampFromNs(chain.timeNs(20n) + 1_000_000_000n);
    const o = { trustingPeriodNs: 10n ** 15n, maxClockDriftNs: 10n ** 10n, now };
    for (const engine of ENGINES) {
      const commitMs: number[] = [];
      const skipMs: number[] = [];
      for (let i = 0; i < runs + 2; i++) {
        const t = block(20n);
        const fresh = { ...t, signedHeader: structuredClone(t.signedHeader) };
        const c = structuredClone(t.signedHeader.commit);
        const t0 = performance.now();
        await verifyCommitLight(chain.chainId, t.validatorSet, c.blockId, 20n, c, engine);
        const t1 = performance.now();
        await verifyNonAdjacent(root, fresh, { ...o, engine });
        const t2 = performance.now();
        if (i >= 2) {
          commitMs.push(t1 - t0);
          skipMs.push(t2 - t1);
        }
      }
      out.push({ validators: n, engine, commitMs: stat(commitMs), skipMs: stat(skipMs) });
    }
  }
  return out;
}

async function chromiumRuns(browser: Browser, nodes: Map<number, SdkNode>, runs: number): Promise<LightResults["chromium"]> {
  const bundle = await build({
    entryPoints: [new URL("./light/browser.ts", import.meta.url).pathname],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const js = bundle.outputFiles[0].text;
  const site = await httpServer((req, res) => {
    if (req.url?.startsWith("/bench.js")) {
      res.writeHead(200, { "content-type": "text/javascript" });
      return res.end(js);
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end('<!doctype html><meta charset="utf-8"><script type="module" src="/bench.js"></script>');
  });
  const out: LightResults["chromium"] = [];
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    await page.waitForFunction(() => typeof (globalThis as { lightBench?: unknown }).lightBench === "function");
    for (const n of SIZES) {
      for (const engine of ENGINES) {
        const r = (await page.evaluate(
          ([rpc, eng, k]) =>
            (globalThis as unknown as { lightBench: (a: string, b: number, c: string, d: number) => Promise<unknown> }).lightBench(rpc, 1, eng, k),
          [nodes.get(n)!.url, engine, runs] as const,
        )) as {
          validators: number;
          engine: SignatureEngine;
          webcrypto: boolean;
          commitMs: number[];
          skipMs: number[];
          proofsMs: number[];
          totalMs: number[];
          proofs: number;
        };
        out.push({
          validators: r.validators,
          engine: r.engine,
          webcrypto: r.webcrypto,
          commitMs: stat(r.commitMs),
          skipMs: stat(r.skipMs),
          proofsMs: stat(r.proofsMs),
          totalMs: stat(r.totalMs),
          proofs: r.proofs,
        });
      }
    }
  } finally {
    await context.close();
    await site.close();
  }
  return out;
}

/** The whole verified refresh of the page (its own measure: from the refresh's start to its facts ready), one new block per refresh. */
async function pageRuns(browser: Browser, node: SdkNode, refreshes: number): Promise<LightResults["page"]> {
  const site = await staticUi();
  await node.prepare(refreshes + 40);
  const context = await browser.newContext();
  let ticking = true;
  const ticker = (async () => {
    while (ticking) {
      await new Promise((r) => setTimeout(r, 1000));
      await node.advance();
    }
  })();
  try {
    const page = await context.newPage();
    const q = new URLSearchParams({
      rpc: node.url,
      rest: "http://127.0.0.1:9",
      poll: "1000",
      trust_height: "1",
      trust_hash: Buffer.from(node.chain.hash(1n)).toString("hex"),
    });
    await page.goto(`${site.url}/index.html?${q}`);
    const seen: { height: string; ms: number }[] = [];
    const end = Date.now() + 60_000 + refreshes * 3000;
    while (seen.length < refreshes + 1 && Date.now() < end) {
      const [h, ms, state] = await page.evaluate(() => [
        document.querySelector("#footer")?.getAttribute("data-verified-height"),
        document.querySelector("#footer")?.getAttribute("data-refresh-ms"),
        document.body.dataset.state,
      ]);
      if (state === "refused") throw new Error(`the page refused: ${await page.locator('[data-testid="verify-error"]').innerText()}`);
      if (h && ms && seen.at(-1)?.height !== h) seen.push({ height: h, ms: Number(ms) });
      await page.waitForTimeout(100);
    }
    if (seen.length < 2) throw new Error("the page made fewer than two verified refreshes");
    return { validators: node.chain.valset(1n).set.size, firstRefreshMs: seen[0].ms, refreshMs: stat(seen.slice(1).map((s) => s.ms)) };
  } finally {
    ticking = false;
    await ticker;
    await context.close();
    await site.close();
  }
}

const f = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function lightTable(r: LightResults): string {
  const lines = [
    "| where | validators | signatures by | one commit (2/3 of its own set) | one skipping step (1/3 of the trusted set, then 2/3) | + plan, protocol version, module versions proofs |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const x of r.node)
    lines.push(
      `| Node ${process.version} | ${x.validators} | ${x.engine} | ${f(x.commitMs.median)} ms (p90 ${f(x.commitMs.p90)}) | ${f(x.skipMs.median)} ms (p90 ${f(x.skipMs.p90)}) | |`,
    );
  for (const x of r.chromium) {
    lines.push(
      `| ${r.chromiumVersion} | ${x.validators} | ${x.engine}${x.engine !== "noble" && !x.webcrypto ? " (no Ed25519 in WebCrypto: noble)" : ""} | ${f(x.commitMs.median)} ms (p90 ${f(x.commitMs.p90)}) | ${f(x.skipMs.median)} ms (p90 ${f(x.skipMs.p90)}) | **${f(x.totalMs.median)} ms** (p90 ${f(x.totalMs.p90)}; ${x.proofs} proofs in ${f(x.proofsMs.median)} ms) |`,
    );
  }
  lines.push("");
  lines.push(
    `The whole verified refresh of the status page in ${r.chromiumVersion} against a synthetic SDK node of ${r.page.validators} validators on loopback (one new block per refresh: the skipping step, the proofs of the plan, the protocol version, every module version, the Done range, the gov proposals in voting, 20 headers back for the ETA; network included): **${f(r.page.refreshMs.median)} ms** median (p90 ${f(r.page.refreshMs.p90)}, ${r.page.refreshMs.runs} refreshes); the first refresh, which also verifies the trust root's commit, ${f(r.page.firstRefreshMs)} ms.`,
  );
  return lines.join("\n");
}

export function lightTargets(r: LightResults): Target[] {
  const best = r.chromium.filter((x) => x.validators === 150).sort((a, b) => a.totalMs.median - b.totalMs.median)[0];
  return [
    {
      target: "a 150-validator commit plus the plan, versions and protocol-version proofs in under 250 ms in Chromium (case 12)",
      met: best.totalMs.median < 250,
      detail: `${f(best.totalMs.median)} ms median with ${best.engine} (skipping step ${f(best.skipMs.median)} ms, ${best.proofs} proofs ${f(best.proofsMs.median)} ms)`,
    },
  ];
}

export async function runLight(log: (line: string) => void): Promise<{ results: LightResults; targets: Target[] }> {
  const runs = QUICK ? 3 : 15;
  log("the light client (case 12): Node …");
  const node = await nodeRuns(runs);
  for (const x of node) log(`  Node ${x.validators} validators, ${x.engine}: commit ${f(x.commitMs.median)} ms, skipping step ${f(x.skipMs.median)} ms`);
  const nodes = new Map<number, SdkNode>();
  let browser: Browser | undefined;
  try {
    for (const n of SIZES)
      nodes.set(
        n,
        await syntheticSdkNode({
          chain: { chainId: `bench-sdk-${n}`, validators: n, latest: 30n },
          state: { plan: { name: "v2", height: 1_000_000n, info: "" }, protocolVersion: 1n },
        }),
      );
    browser = await launchChromium();
    const chromiumVersion = `Chromium ${browser.version()}`;
    log(`  ${chromiumVersion} …`);
    const chromium = await chromiumRuns(browser, nodes, runs);
    for (const x of chromium) log(`  Chromium ${x.validators} validators, ${x.engine}: skipping step + ${x.proofs} proofs ${f(x.totalMs.median)} ms`);
    const page = await pageRuns(browser, nodes.get(150)!, QUICK ? 3 : 10);
    log(`  the page's verified refresh, 150 validators: ${f(page.refreshMs.median)} ms (first ${f(page.firstRefreshMs)} ms)`);
    const results = { node, chromium, page, chromiumVersion };
    return { results, targets: lightTargets(results) };
  } finally {
    await browser?.close();
    for (const n of nodes.values()) await n.close();
    removeTempDirs();
  }
}

export function writeLight(outDir: string, readme: string, meta: unknown, results: LightResults, targets: Target[]): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}results-light.json`, `${JSON.stringify({ meta, results, targets }, null, 2)}\n`);
  if (QUICK || !existsSync(readme)) return;
  const text = readFileSync(readme, "utf8");
  const table = lightTable(results);
  const next = /<!-- light:start -->/.test(text)
    ? text.replace(/(<!-- light:start -->\n)[\s\S]*?(\n<!-- light:end -->)/, `$1${table}$2`)
    : `${text.trimEnd()}\n\n## The light client (case 12)\n\n<!-- light:start -->\n${table}\n<!-- light:end -->\n`;
  writeFileSync(readme, next);
}
