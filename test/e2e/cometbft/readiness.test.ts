/**
 * Upgrade readiness on a real four-validator CometBFT testnet (docs/spec/readiness.md): four `cometbft` and
 * four `xupgrade devnet start --engine cometbft` processes on loopback, vote extensions on from genesis.
 *   - three validators attest through `<home>/data/upgrade-readiness.json`; their real CometBFTs sign the
 *     extensions, the proposers inject them, every validator checks them: the tally reaches 75 %;
 *   - the fourth validator's ABCI answers go through a proxy that replaces its vote extension, at alternate
 *     heights, by garbage and by an oversized one: the others' VerifyVoteExtension refuses each (logged with
 *     the reason), the chain goes on with 3 of 4, and the fourth is never counted;
 *   - a validator stopped and restarted keeps its attestation in the tally (the same first height) and
 *     attaches it again;
 *   - the readiness query answers the same tally on all four nodes at every height sampled, and the app
 *     hashes agree at every height;
 *   - the upgrade at H still halts all four (exit 20) and resumes on v2; the tally of v2 stays queryable;
 *   - the light-client page in Chromium shows the same: the bar, who is not ready, the warning at 50 %.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Response } from "cosmjs-types/tendermint/abci/types";
import type { Browser, Page } from "playwright";
import { afterAll, expect, it } from "vitest";
import { builtPage, launchChromium, openPage, rewritingRpcProxy, shot, trustFirstUse, waitText } from "../../examples/light-client/helpers.js";
import {
  attestationToJson,
  decodeReadinessResponse,
  encodeReadinessRequest,
  READINESS_QUERY_PATH,
  type ReadinessAttestation,
  type ReadinessTally,
} from "../../../bindings/module/readiness/index.js";
import { writeReadinessFile, readinessFilePath } from "../../../bindings/module/readiness/file.js";
import { encodeTally } from "../../../bindings/module/readiness/store.js";
import { cometbftWrapper, startAbciProxy, type AbciProxy } from "../../support/abci-proxy.js";
import { V1, V2, removeTempDirs } from "../helpers.js";
import {
  COMETBFT,
  allAt,
  blockFacts,
  blockMs,
  describeCometbft,
  exitWithin,
  initTestnet,
  killNodes,
  planOf,
  proposeUpgrade,
  records,
  rpc,
  rpcHeight,
  runCli,
  startValidator,
  tempDir,
  waitUntil,
  type Testnet,
  type Validator,
} from "./helpers.js";

const VOTING_S = 6;
/** The nodes serve the page this run builds (the CLI the tests run is a transpiled copy elsewhere). */
const UI = { XUPGRADE_UI_DIR: builtPage() };
let proxy: AbciProxy | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await killNodes();
  await proxy?.close();
  removeTempDirs();
});

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function attestation(H: number, over: Partial<ReadinessAttestation> = {}): ReadinessAttestation {
  return {
    planName: "v2",
    planHeight: BigInt(H),
    platform: "linux/amd64",
    binarySha256: new Uint8Array(32).fill(0xab),
    preflightOk: true,
    rehearsal: "passed",
    rehearsalExitCode: 0,
    appHash: new Uint8Array(32).fill(0x5e),
    snapshotHeight: 7n,
    binaryVersion: "example-v2 2.0.0",
    ...over,
  };
}

/** The readiness query through CometBFT's RPC, as the CLI asks it: the tally and the height it was read at. */
async function readiness(url: string, name = ""): Promise<{ height: number; tally?: ReadinessTally }> {
  const r = await rpc<{ response: { code?: number; value?: string; height: string; log?: string } }>(url, "abci_query", {
    path: JSON.stringify(READINESS_QUERY_PATH),
    data: `0x${hex(encodeReadinessRequest({ name, height: 0n }))}`,
  });
  if (r.response.code) throw new Error(`readiness query failed: ${r.response.log}`);
  const value = r.response.value ? new Uint8Array(Buffer.from(r.response.value, "base64")) : new Uint8Array(0);
  return { height: Number(r.response.height), tally: decodeReadinessResponse(value).tally };
}

describeCometbft("readiness on a four-validator CometBFT testnet", { timeout: 300_000 }, () => {
  let net: Testnet;
  const vals: Validator[] = [];
  let H = 0;
  const urls = () => net.nodes.map((n) => n.rpc);
  /** Every readiness answer sampled: node, height, the tally's bytes. */
  const samples: { node: number; height: number; tally: string }[] = [];
  let sampling = true;
  let sampler: Promise<void> | undefined;
  let page: Page;

  /** Waits until every node's tally shows `ready` power ready (a node that does not answer yet is asked again). */
  const everyNode = (ready: bigint, what: string) =>
    waitUntil(
      async () => (await Promise.all(urls().map((u) => readiness(u).catch(() => undefined)))).every((r) => r?.tally?.readyPower === ready),
      120_000,
      what,
    );

  it("vote extensions are on from genesis; three attesting validators make the tally 75 % on every node", async () => {
    net = await initTestnet({ votingS: VOTING_S, depositS: 4 });
    // node3 runs its CometBFT through a proxy that spoils its vote extensions.
    let spoil = 0;
    proxy = await startAbciProxy({
      listen: join(tempDir("xupgrade-abci-proxy-"), "p.sock"),
      upstream: join(net.nodes[3].home, "abci.sock"),
      rewrite: (r: Response) => {
        if (!r.extendVote) return undefined;
        spoil++;
        const ext = spoil % 2 === 0 ? new Uint8Array(2000).fill(0x0a) : new TextEncoder().encode("not a vote extension");
        return Response.fromPartial({ extendVote: { voteExtension: ext } });
      },
    });
    const wrapper = cometbftWrapper(join(tempDir("xupgrade-cometbft-wrapper-"), "cometbft"), COMETBFT!, proxy.address);
    vals.push(...(await Promise.all(net.nodes.map((n, i) => startValidator(n, V1, i === 3 ? { args: ["--cometbft", wrapper], env: UI } : { env: UI })))));
    await allAt(urls(), 3, 120_000);

    const now = (await rpcHeight(urls()[0]))!;
    const ms = await blockMs(urls()[0]);
    // The vote, then room for the tests below (each waits for a few blocks) before the upgrade.
    H = now + Math.ceil(((VOTING_S + 120) * 1000) / ms);
    await proposeUpgrade(net, "v2", H);
    await waitUntil(async () => (await planOf(urls()[0]))?.height === String(H), (VOTING_S + 60) * 1000, "the plan");

    // The sampler: the readiness answer of every node, again and again, until the upgrade.
    sampler = (async () => {
      while (sampling) {
        await Promise.all(
          urls().map(async (u, node) => {
            try {
              const r = await readiness(u);
              if (r.tally) samples.push({ node, height: r.height, tally: hex(encodeTally(r.tally)) });
            } catch {
              /* a node restarting or halted */
            }
          }),
        );
        await new Promise((r) => setTimeout(r, 150));
      }
    })();

    for (const i of [0, 1, 2]) await writeReadinessFile(net.nodes[i].home, attestationToJson(attestation(H)));
    await everyNode(300n, "75 % ready on every node");
    const t = (await readiness(urls()[1])).tally!;
    expect(t).toMatchObject({ planName: "v2", planHeight: BigInt(H), totalPower: 400n, readyPower: 300n, noAttestationPower: 100n, appHashesDisagree: false });
    expect(t.appHashGroups).toHaveLength(1);
    const node3 = t.validators.find((v) => v.name === "validator3")!;
    expect(node3.status).toBe("no_attestation");
    for (const i of [0, 1, 2])
      expect(
        vals[i].records.some((r) => typeof r.msg === "string" && r.msg.startsWith(`vote extensions now carry the readiness attestation of "v2" at ${H}`)),
      ).toBe(true);

    // The light-client page, served by node0: the same tally, read from REST and from the raw store.
    browser = await launchChromium();
    page = (await openPage(browser, `${vals[0].rest}/ui?poll=500&mode=rest`)).page;
    await waitText(page, "readiness", "75.0% of the voting power (300 of 400)", 60_000); // the whole card, to see what it says otherwise
    expect(await page.locator('[data-testid="readiness-bar"]').getAttribute("data-ready")).toBe("75.0");
    expect(
      await page.locator('[data-testid="not-ready"]').evaluateAll((els) => els.map((e) => [e.getAttribute("data-name"), e.getAttribute("data-status")])),
    ).toEqual([["validator3", "no_attestation"]]);
    expect(await page.locator('[data-testid="hash-group"]').count()).toBe(1);
    expect(await page.locator('[data-testid="readiness-warning"]').count()).toBe(0);
    await page.check('input[name="mode"][value="raw"]');
    await waitText(page, "readiness", "raw store · readiness");
    await waitText(page, "readiness-percent", "75.0%");
    await shot(page, "cometbft-readiness");
    await page.check('input[name="mode"][value="rest"]');
  });

  it("the tally is proven against verified headers: the CLI's --verify and the page's verified mode; a node that lies about it is refused", async () => {
    const home = tempDir("xupgrade-verify-home-");
    const cli = await runCli([
      "query",
      "upgrade",
      "readiness",
      "--verify",
      "--trust-on-first-use",
      "--node",
      urls()[2],
      "--witness",
      urls()[1],
      "--home",
      home,
      "-o",
      "json",
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).tally.ready_power).toBe("300");
    expect(JSON.parse(cli.stdout).verification.trust_root).toMatchObject({ source: "first-use", confirmed: false });
    expect(cli.stderr).toMatch(
      new RegExp(
        `^verified: the readiness tally of "v2" at ${H} at height \\d+, against the app hash [0-9A-F]{64} of header \\d+ \\([0-9A-F]{64}, xupgrade-devnet-1, \\S+, \\d+ s old\\), 2 store proofs, confirmed by 1 witness, UNCONFIRMED trust root$`,
        "m",
      ),
    );

    // The page in verified mode (a devnet under CometBFT is proven as a cosmos-sdk chain).
    // No root for the chain in this browser: the node's latest header, chosen unverified — proven, but amber.
    const verified = (await openPage(browser!, `${vals[0].rest}/ui?mode=verified&chain=cosmos-sdk&poll=500`)).page;
    await trustFirstUse(verified);
    await waitText(verified, "readiness", "75.0% of the voting power (300 of 400)", 60_000);
    await waitText(verified, "readiness-proven", /^⚠ verified against an unconfirmed root Proven at height \d+ against the app hash of verified header \d+/);
    await shot(verified, "cometbft-readiness-verified");
    await verified.context().close();

    // A node whose answer puts another tally under the key: the proof does not hold, nothing is shown as verified.
    const forged = encodeTally({ ...(await readiness(urls()[0])).tally!, readyPower: 400n });
    const liar = await rewritingRpcProxy(urls()[0], (path, data) => (path === "/store/readiness/key" && data.startsWith("01") ? forged : undefined));
    try {
      const lied = (
        await openPage(
          browser!,
          `${vals[0].rest}/ui?mode=verified&chain=cosmos-sdk&poll=500&rpc=${encodeURIComponent(liar.url)}&rest=${encodeURIComponent(vals[0].rest)}`,
        )
      ).page;
      await trustFirstUse(lied);
      await lied.waitForFunction(() => document.body.dataset.state === "refused", undefined, { timeout: 60_000 });
      expect(await lied.locator('[data-testid="readiness-percent"]').count()).toBe(0);
      expect(await lied.locator('[data-testid="readiness-not-verified"]').count()).toBe(1);
      await lied.context().close();
    } finally {
      await liar.close();
    }
  });

  it("the misbehaving validator's garbage and oversized extensions are refused by VerifyVoteExtension, and the chain goes on", async () => {
    const addr = net.nodes[3].validator_address;
    await waitUntil(
      () =>
        [0, 1, 2].every((i) => {
          const refused = records(vals[i], "refused a vote extension").filter((r) => r.validator === addr);
          return refused.some((r) => String(r.err).includes("more than 1024")) && refused.some((r) => String(r.err).startsWith("vote extension:"));
        }),
      60_000,
      "both refusals on the three others",
    );
    expect(proxy!.rewritten()).toBeGreaterThan(2);
    const from = (await rpcHeight(urls()[0]))!;
    await allAt(urls().slice(0, 3), from + 5, 60_000);
    // node3 commits too (its own precommit counts for itself, the others' for it) and is never counted ready.
    await allAt([urls()[3]], from + 5, 60_000);
    expect((await readiness(urls()[3])).tally!.validators.find((v) => v.name === "validator3")!.status).toBe("no_attestation");
    // Its precommits count for nobody else: with one more validator down the chain would stop (2 of 4). It is
    // restarted without the proxy before the next test stops a validator.
    vals[3].proc.kill("SIGTERM");
    expect(await exitWithin(vals[3], 30_000)).toBe(0);
    vals[3] = await startValidator(net.nodes[3], V1, { env: UI });
    const back = (await rpcHeight(urls()[0]))!;
    await allAt(urls(), back + 3, 90_000);
    await waitUntil(
      () => vals[3].records.some((r) => typeof r.msg === "string" && r.msg === "vote extensions now carry nothing"),
      60_000,
      "node3 to extend well-formed (empty) votes",
    );
  });

  it("a validator stopped and restarted keeps its attestation in the tally, and attaches it again", async () => {
    const before = (await readiness(urls()[0])).tally!.validators.find((v) => v.name === "validator1")!;
    expect(before.status).toBe("ready");
    vals[1].proc.kill("SIGTERM");
    expect(await exitWithin(vals[1], 30_000)).toBe(0);
    const down = (await rpcHeight(urls()[0]))!;
    await allAt([urls()[0], urls()[2], urls()[3]], down + 4, 60_000);
    // Absent votes tell the tally nothing: the attestation stands while the validator is down.
    expect((await readiness(urls()[0])).tally!.validators.find((v) => v.name === "validator1")).toEqual(before);
    vals[1] = await startValidator(net.nodes[1], V1, { env: UI });
    await allAt(urls(), down + 8, 90_000);
    await waitUntil(
      () => vals[1].records.some((r) => typeof r.msg === "string" && r.msg.startsWith(`vote extensions now carry the readiness attestation of "v2" at ${H}`)),
      60_000,
      "the restarted node to attach its attestation",
    );
    const h = (await rpcHeight(urls()[1]))!;
    await allAt(urls(), h + 3, 60_000);
    // The same attestation, recorded when it first arrived: nothing was lost or re-recorded.
    expect((await readiness(urls()[1])).tally!.validators.find((v) => v.name === "validator1")).toEqual(before);
  });

  it("a withdrawn attestation leaves the tally once the validator's own vote says so", async () => {
    rmSync(readinessFilePath(net.nodes[2].home));
    await everyNode(200n, "50 % on every node");
    // Within 1000 blocks of the height, with only half the power ready: the page warns, as the CLI does.
    await waitText(page, "readiness-warning", /is \d+ blocks away and only 50\.0% of the voting power \(200 of 400\) is ready/, 30_000);
    const cli = await runCli(["query", "upgrade", "readiness", "--node", urls()[2]]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^ready: {7}\[█{12}░{12}\] 50\.0% of the voting power \(200 of 400\)$/m);
    expect(cli.stderr).toMatch(/^warning: upgrade "v2" at height \d+ is \d+ blocks away and only 50\.0% of the voting power \(200 of 400\) is ready/);
    await writeReadinessFile(net.nodes[2].home, attestationToJson(attestation(H)));
    await everyNode(300n, "75 % again");
  });

  it("the upgrade at H still halts all four with 20, and v2 resumes the chain; every sampled tally and app hash agreed", async () => {
    await Promise.all(vals.map((v) => v.waitFor((r) => r.msg === "halting the node", 600_000)));
    expect(await Promise.all(vals.map((v) => exitWithin(v, 60_000)))).toEqual([20, 20, 20, 20]);
    sampling = false;
    await sampler;
    vals.splice(0, 4, ...(await Promise.all(net.nodes.map((n) => startValidator(n, V2, { env: UI })))));
    await allAt(urls(), H + 3, 120_000);
    for (const v of vals) expect(records(v, "upgrade applied")).toHaveLength(1);

    // The tally of v2 as it stood at the halt, on every node.
    const after = await Promise.all(urls().map((u) => readiness(u, "v2")));
    for (const r of after) expect(hex(encodeTally(r.tally!))).toBe(hex(encodeTally(after[0].tally!)));
    expect(after[0].tally!.readyPower).toBe(300n);
    const cli = await runCli(["query", "upgrade", "readiness", "v2", "--node", urls()[3], "-o", "json"]);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).tally.ready_power).toBe("300");

    // Every height answered by more than one node: the same tally bytes.
    const byHeight = new Map<number, Set<string>>();
    for (const s of samples) byHeight.set(s.height, (byHeight.get(s.height) ?? new Set()).add(s.tally));
    const shared = [...byHeight].filter(([h]) => new Set(samples.filter((s) => s.height === h).map((s) => s.node)).size > 1);
    expect(shared.length).toBeGreaterThan(20);
    for (const [h, tallies] of shared) expect([h, tallies.size]).toEqual([h, 1]);
    // And the app hash — which covers the readiness store — at every height of the run.
    for (let h = 2; h <= H + 2; h += Math.max(1, Math.floor(H / 40))) {
      const facts = await Promise.all(urls().map((u) => blockFacts(u, h)));
      expect(new Set(facts.map((f) => f.appHashAfter)).size).toBe(1);
    }
  });
});
