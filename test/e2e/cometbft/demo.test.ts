/**
 * `npm run demo:testnet` end to end: examples/demo-testnet.mjs drives the real CLI (the transpiled copy) —
 * four CometBFT validators under four visors through the whole upgrade — and prints a table per validator
 * at each step; before the height, `xupgrade query upgrade readiness` shows readiness rising from 0 % to
 * 100 % as the visors stage and rehearse v2, with a split app hash (and a warning) while one validator has
 * the nondeterministic v2 — and the light-client page, watched in Chromium meanwhile, shows the same. Nothing
 * is left behind, on success and on Ctrl-C.
 */
import { afterAll, expect, it } from "vitest";
import { builtPage, innerTexts, launchChromium, openPage, shot, trustFirstUse } from "../../examples/light-client/helpers.js";
import { expectDemoLeftNothing, runDemo, type Demo } from "../../support/demo.js";
import { builtCliMain, removeTempDirs } from "../helpers.js";
import { COMETBFT, describeCometbft, waitUntil } from "./helpers.js";

afterAll(removeTempDirs);

// The nodes serve the page this run builds (the CLI is a transpiled copy elsewhere).
const runTestnetDemo = () =>
  runDemo("demo-testnet.mjs", {
    XUPGRADE_CLI: builtCliMain(),
    XUPGRADE_COMETBFT: COMETBFT ?? "",
    XUPGRADE_DEMO_VOTING_S: "8",
    XUPGRADE_UI_DIR: builtPage(),
  });
const expectNoTrace = (out: string) => expectDemoLeftNothing(out, "WORK", /xupgrade-demo-testnet-/, 15_000);

/**
 * Watches the light-client page of the demo's node0 (the link it prints) until readiness reaches 100 % (or a node halts):
 * every readiness it showed, in order, and the most app-hash groups and warnings it showed at once.
 */
async function watchPage(demo: Demo): Promise<{ seen: string[]; groups: number; warned: boolean }> {
  await waitUntil(() => /node0 │ light client: (\S+)/.test(demo.output()), 120_000, "the page's link");
  const url = /node0 │ light client: (\S+)/.exec(demo.output())![1];
  const browser = await launchChromium();
  const seen: string[] = [];
  let groups = 0;
  let warned = false;
  try {
    const { page } = await openPage(browser, `${url}?poll=300`);
    await trustFirstUse(page); // no root for the demo's chain in a fresh browser: the node's own, unverified (amber)
    // Until the halt, not the demo's next step: the tally stays at 100 % for the blocks up to the height, and a
    // loaded machine may show it a few polls after the CLI did.
    for (const end = Date.now() + 300_000; Date.now() < end && !demo.output().includes("halting at height");) {
      const percent = await page
        .locator('[data-testid="readiness-bar"]')
        .getAttribute("data-ready", { timeout: 1000 })
        .catch(() => null);
      if (percent !== null && seen[seen.length - 1] !== percent) seen.push(percent);
      groups = Math.max(groups, await page.locator('[data-testid="hash-group"]').count());
      if (groups === 2 && !warned) {
        warned = (await innerTexts(page, '[data-testid="readiness-warning"]')).some((w) => w.includes("disagree on the app hash"));
        if (warned) await shot(page, "demo-testnet-readiness-split");
      }
      if (percent === "100.0") break;
      await page.waitForTimeout(150);
    }
  } finally {
    await browser.close();
  }
  return { seen, groups, warned };
}

describeCometbft("npm run demo:testnet (examples/demo-testnet.mjs)", { timeout: 420_000 }, () => {
  it("four validators under four visors: the proposal, four votes, readiness 0 → 100 % (CLI and page), the same halt height, v2 everywhere; nothing left", async () => {
    const demo = runTestnetDemo();
    const page = await watchPage(demo);
    const code = await demo.exited;
    const out = demo.output();
    expect(code, out).toBe(0);
    const H = /Propose the upgrade "v2" at height (\d+)/.exec(out)?.[1];
    expect(H, out).toMatch(/^\d+$/);
    for (const text of [
      "$ xupgrade devnet init --engine cometbft --validators 4 --home $WORK/testnet",
      "initialised testnet xupgrade-devnet-1 in $WORK/testnet: 4 CometBFT validators",
      "$ xupgrade visor add-upgrade v2 $WORK/release/v2/xupgraded",
      "node0 │ serving: CometBFT rpc http://127.0.0.1:",
      "→ app hashes at height 3: identical on all 4",
      "--from validator3 --node <node3 rpc> … → {",
      "node0 │ proposal 1 tallied: PROPOSAL_STATUS_PASSED (yes 400000000, no 0)",
      `node3 │ halting at height ${H}: UPGRADE "v2" NEEDED at height: ${H}:  (exit code 20)`,
      `upgrade-info.json: {"name":"v2","time":"0001-01-01T00:00:00Z","height":${H}}  (the same on all 4)`,
      `The validators when they halted at ${H}`,
      `→ app hashes at height ${Number(H) - 1}: identical on all 4`,
      `node2 │ visor: INF current now points to upgrades/v2 upgrade=v2 height=${H}`,
      "node0 │ Replay last block using real app",
      `node1 │ upgrade applied at height ${H}, app version 1`,
      `$ xupgrade query upgrade applied v2 --node <node3 rpc> → height ${H}; current → upgrades/v2`,
      "every visor exited with code 0",
      "Done in ",
    ]) {
      expect(out).toContain(text);
    }
    // Readiness, as the CLI printed it after each operator staged v2 (the fourth first with the nondeterministic build).
    const ready = [...out.matchAll(/^ {4}ready: +\[[█░]+\] ([\d.]+)% of the voting power/gm)].map((m) => m[1]);
    expect(ready.slice(0, 7)).toEqual(["0.0", "25.0", "50.0", "75.0", "75.0", "100.0", "100.0"]);
    expect(out).toMatch(/^ {4}app hashes: {2}DISAGREE$/m);
    expect(out).toMatch(
      /^ {4}warning: rehearsals of upgrade "v2" on the state of height \d+ disagree on the app hash \(2 groups: 75\.0% [0-9A-F]{8}…, 25\.0% [0-9A-F]{8}…\)/m,
    );
    expect(out).toMatch(/^ {4}warning: upgrade "v2" at height \d+ is \d+ blocks away and only 0\.0% of the voting power \(0 of 400\) is ready/m);
    // node0's visor served its attestation at /readiness on its loopback endpoint.
    expect(out).toMatch(
      /^ {2}\$ curl http:\/\/127\.0\.0\.1:\d+\/readiness {3}\(node0's visor, loopback only\)\n {4}\{"plan":\{"name":"v2","height":"\d+"\},"platform":"[a-z0-9]+\/[a-z0-9]+","binary":\{"sha256":"[0-9a-f]{16}…"\},"preflight":\{"ok":true\},"rehearsal":\{"verdict":"passed"/m,
    );
    expect(out).toMatch(/validator3 +[0-9A-F]{10}… +100 +different binary +linux\/amd64 [0-9A-F]{8}…, example-v2-nondeterministic 2\.0\.0/);
    // The page showed the same rise, the split and its warning.
    expect(page.seen[0]).toBe("0.0");
    expect(page.seen[page.seen.length - 1]).toBe("100.0");
    for (const p of ["25.0", "50.0", "75.0"]) expect(page.seen).toContain(p);
    expect(page.seen.map(Number)).toEqual([...page.seen.map(Number)].sort((a, b) => a - b));
    expect(page.groups).toBe(2);
    expect(page.warned).toBe(true);
    // The halt table: every validator at H-1 with exit 20 on the genesis binary.
    const halted = out
      .slice(out.indexOf(`The validators when they halted at ${H}`))
      .split("\n")
      .slice(2, 6);
    for (const row of halted)
      expect(row).toMatch(new RegExp(`^\\s+node\\d\\s+${Number(H) - 1}\\s+[0-9A-F]{8}…[0-9A-F]{4}\\s+20\\s+genesis/bin/xupgraded \\(example-v1\\)$`));
    expect(out).not.toMatch(/demo failed|NOT identical|NOT the same/);
    await expectNoTrace(out);
  });

  it("Ctrl-C (SIGINT to the process group) stops every visor, node and CometBFT and removes everything; exit 130", async () => {
    const demo = runTestnetDemo();
    await waitUntil(() => demo.output().includes("→ app hashes at height 3"), 120_000, "the validators");
    process.kill(-demo.pid, "SIGINT");
    expect(await demo.exited).toBe(130);
    expect(demo.output()).toContain("SIGINT: stopping the demo's processes and removing ");
    await expectNoTrace(demo.output());
  });
});
