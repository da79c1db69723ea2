/**
 * The promise of the module, on real CometBFT: four validators (four `cometbft` processes, each the child
 * of an `xupgrade devnet start --engine cometbft` node) run under four `xupgrade visor`s, which run a node
 * binary `xupgraded` (a wrapper script, v1 and v2 staged with `visor add-upgrade`). A software-upgrade
 * proposal goes through the CLI, each validator votes through its own node; every validator halts at the
 * same height with the same upgrade-info.json, its visor switches to v2, the chain resumes with identical
 * app hashes and `applied_plan` on all four, the migrations run once per node. cosmjs' connectComet +
 * QueryClient read the plan, the applied height and the module versions from a validator's real
 * CometBFT RPC, and the light-client page, served by the node's REST at /ui, works against it in Chromium.
 */
import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, expect, it } from "vitest";
import type { Browser } from "playwright";
import { spawnCollected, type CollectedChild } from "../../support/child.js";
import { builtPage, innerTexts, launchChromium, openPage, pasteHash, shot, text, waitState, waitText } from "../../examples/light-client/helpers.js";
import { V1, V2, clients, committedState, processesMentioning, removeTempDirs } from "../helpers.js";
import { Plan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import { appHashOf, checkJudgesOnVectors, confioVerifies, provenQuery } from "../../support/proofs.js";
import {
  COMETBFT,
  allAt,
  blockFacts,
  blockMs,
  cliArgs,
  describeCometbft,
  exitWithin,
  initTestnet,
  ok,
  planOf,
  proposeUpgrade,
  rpc,
  rpcHeight,
  runCli,
  waitUntil,
  type LogRecord,
  type RpcBlock,
  type Testnet,
} from "./helpers.js";

const VOTING_S = 8;
/** The CLI's light-client home (its trust file), and the trust root: validator 0's header at height 2. */
let lightHome = "";
let trustRoot: { height: number; hash: string } | undefined;
const trustFlags = () => ["--trust-height", String(trustRoot!.height), "--trust-hash", trustRoot!.hash];
const utf8 = (t: string) => new TextEncoder().encode(t);
const DAEMON = "xupgraded";

interface Visor extends CollectedChild<LogRecord> {
  index: number;
  /** The visor's own log lines (stderr). */
  lines(): string[];
}

const visors: Visor[] = [];
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await Promise.all(visors.map((v) => v.kill()));
  removeTempDirs();
});

/** A node binary as operators have one: `xupgraded start --home <node>` is a CometBFT validator of this app. */
function nodeBinary(path: string, version: "v1" | "v2"): string {
  const app = version === "v1" ? V1 : V2;
  const cli = cliArgs()
    .map((a) => `'${a}'`)
    .join(" ");
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# ${DAEMON} ${version}: a CometBFT validator running ${app}`,
      'case "$1" in',
      `  pre-upgrade) echo "${DAEMON} ${version}: nothing to do outside the chain state"; exit 0 ;;`,
      `  version) echo "${DAEMON} ${version}"; exit 0 ;;`,
      "  start) shift ;;",
      "esac",
      `exec '${process.execPath}' ${cli} devnet start --engine cometbft --cometbft '${COMETBFT}' --app '${app}' "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return path;
}

const visorEnv = (home: string) => ({
  DAEMON_HOME: home,
  DAEMON_NAME: DAEMON,
  DAEMON_POLL_INTERVAL: "200ms",
  DAEMON_SHUTDOWN_GRACE: "20s",
  UNSAFE_SKIP_BACKUP: "true",
  COSMOVISOR_COLOR_LOGS: "false",
  XUPGRADE_UI_DIR: builtPage(),
});

function startVisor(net: Testnet, index: number): Visor {
  const home = net.nodes[index].home;
  const parse = (line: string): LogRecord => {
    try {
      return JSON.parse(line) as LogRecord;
    } catch {
      return { level: "text", msg: line };
    }
  };
  const child = spawnCollected("node", [...cliArgs(), "visor", "run", "start", "--home", home], { env: visorEnv(home), parse });
  const v = Object.assign(child, {
    index,
    lines: () =>
      child
        .stderr()
        .split("\n")
        .filter((l) => l !== ""),
  });
  visors[index] = v;
  return v;
}

/** The `serving` record of the visor's n-th node start (1: genesis, 2: after the switch). */
async function servingOf(v: Visor, n: number): Promise<LogRecord> {
  await v.waitFor((r) => r.msg === "serving" && v.records.filter((x) => x.msg === "serving").length >= n, 120_000);
  return v.records.filter((r) => r.msg === "serving")[n - 1];
}

describeCometbft("four validators under four visors: an upgrade on CometBFT, end to end", { timeout: 300_000 }, () => {
  let net: Testnet;
  let H = 0;
  const urls = () => net.nodes.map((n) => n.rpc);
  let rest0 = "";

  it("four visors start four CometBFT validators that commit the same blocks", async () => {
    net = await initTestnet({ votingS: VOTING_S, depositS: 4 });
    const v1 = nodeBinary(join(net.dir, "release", "v1", DAEMON), "v1");
    const v2 = nodeBinary(join(net.dir, "release", "v2", DAEMON), "v2");
    for (const n of net.nodes) {
      ok(await runCli(["visor", "init", v1], { env: visorEnv(n.home) }));
      ok(await runCli(["visor", "add-upgrade", "v2", v2], { env: visorEnv(n.home) }));
    }
    for (const i of [0, 1, 2, 3]) startVisor(net, i);
    const serving = await Promise.all(visors.map((v) => servingOf(v, 1)));
    rest0 = serving[0].rest as string;
    expect(serving.map((s) => s.rpc)).toEqual(urls());
    await allAt(urls(), 4);
    for (const h of [2, 3]) {
      const facts = await Promise.all(urls().map((u) => blockFacts(u, h)));
      expect(new Set(facts.map((f) => f.hash)).size).toBe(1);
      expect(new Set(facts.map((f) => f.appHashAfter)).size).toBe(1);
    }
    for (const v of visors) expect(v.lines().some((l) => l.includes("starting the node") && l.includes("genesis/bin/xupgraded"))).toBe(true);
    trustRoot = { height: 2, hash: (await rpc<RpcBlock>(urls()[0], "block", { height: "2" })).block_id.hash };
    lightHome = join(net.dir, "light-home");
    mkdirSync(lightHome, { recursive: true });
  });

  it("cosmjs connectComet + QueryClient read a validator's real CometBFT RPC; the CLI proposes v2 and every validator votes through its own node", async () => {
    const c = await clients(urls()[1]);
    try {
      const status = await c.comet.status();
      expect(status.nodeInfo.network).toBe("xupgrade-devnet-1");
      expect(status.nodeInfo.version).toMatch(/^0\.38\./);
      expect(status.validatorInfo.votingPower).toBe(100n);
      expect((await c.comet.validators({})).validators).toHaveLength(4);
      expect((await c.upgrade.CurrentPlan({})).plan).toBeUndefined();
      expect((await c.upgrade.ModuleVersions({ moduleName: "" })).moduleVersions).toContainEqual({ name: "counter", version: 1n });

      const now = (await rpcHeight(urls()[0]))!;
      H = now + Math.ceil(((VOTING_S + 25) * 1000) / (await blockMs(urls()[0])));
      const id = await proposeUpgrade(net, "v2", H);
      for (const u of urls()) await waitUntil(async () => (await planOf(u))?.height === String(H), (VOTING_S + 30) * 1000, `the plan on ${u}`);
      expect((await c.upgrade.CurrentPlan({})).plan).toMatchObject({ name: "v2", height: BigInt(H) });
      const tally = (await c.gov.Proposal({ proposalId: BigInt(id) })).proposal!.finalTallyResult!;
      expect(tally.yesCount).toBe("400000000"); // four validators' power, from CometBFT's genesis
    } finally {
      c.comet.disconnect();
    }
  });

  it("a validator's CometBFT serves the SDK's proofs (docs/spec/store.md §5): the plan, module versions and app stores, present and absent, now and at a past height", async () => {
    await checkJudgesOnVectors();
    const c = await clients(urls()[3]);
    try {
      const plan = await provenQuery(c.comet, "upgrade", Uint8Array.of(0x00));
      expect(Plan.decode(plan.value!)).toMatchObject({ name: "v2", height: BigInt(H) });
      expect((await provenQuery(c.comet, "upgrade", Uint8Array.of(0x01, ...utf8("v2")))).value).toBeUndefined(); // not done yet
      const past = plan.height - 3;
      for (const height of [undefined, past]) {
        const counter = await provenQuery(c.comet, "upgrade", Uint8Array.of(0x02, ...utf8("counter")), height);
        expect(Buffer.from(counter.value!).readBigUInt64BE()).toBe(1n);
        expect((await provenQuery(c.comet, "upgrade", Uint8Array.of(0x02, ...utf8("tags")), height)).value).toBeUndefined();
        // The counter counts blocks: each height proves its own count.
        const count = await provenQuery(c.comet, "counter", utf8("count"), height);
        expect(new TextDecoder().decode(count.value)).toBe(String(count.height));
        const note = Math.floor(count.height / 5) * 5;
        expect(new TextDecoder().decode((await provenQuery(c.comet, "notes", utf8(`note/${note}`), height)).value)).toBe(`block ${note}`);
        expect((await provenQuery(c.comet, "notes", utf8(`note/${note + 1}`), height)).value).toBeUndefined();
      }
      // The verified light client (the CLI's --verify): the plan and every module version proven against a
      // header verified from a trust root at height 2, another validator as witness.
      const verified = await runCli([
        "query",
        "upgrade",
        "plan",
        "--verify",
        ...trustFlags(),
        "--node",
        urls()[3],
        "--witness",
        urls()[2],
        "--home",
        lightHome,
        "-o",
        "json",
      ]);
      expect(verified.code, verified.stderr).toBe(0);
      expect(JSON.parse(verified.stdout)).toMatchObject({ name: "v2", height: String(H) });
      expect(verified.stderr).toMatch(
        /^verified: plan "v2" at height \d+, against the app hash [0-9A-F]{64} of header \d+ \([0-9A-F]{64}, xupgrade-devnet-1, \S+, \d+ s old\), 1 store proof, confirmed by 1 witness$/m,
      );
      expect(JSON.parse(verified.stdout).verification).toMatchObject({ trust_root: { source: "given", confirmed: true }, warnings: [] });
      const mv = await runCli([
        "query",
        "upgrade",
        "module_versions",
        "--verify",
        ...trustFlags(),
        "--node",
        urls()[1],
        "--witness",
        urls()[0],
        "--home",
        lightHome,
        "-o",
        "json",
      ]);
      expect(mv.code, mv.stderr).toBe(0);
      expect(JSON.parse(mv.stdout).module_versions).toContainEqual({ name: "counter", version: "1" });
      // Every validator commits to the same state: another's header proves this one's answer.
      const other = await clients(urls()[0]);
      try {
        const res = await c.comet.abciQuery({ path: "/store/counter/key", data: utf8("count"), prove: true, height: past });
        expect(confioVerifies(await appHashOf(other.comet, past), res.proof!.ops, "counter", utf8("count"), res.value)).toBe(true);
      } finally {
        other.comet.disconnect();
      }
    } finally {
      c.comet.disconnect();
    }
  });

  it("every validator halts at the same height with the same upgrade-info.json, and its visor switches to v2", async () => {
    // Each node's CometBFT RPC, polled until it goes away: none goes beyond H.
    const last = await Promise.all(
      urls().map(async (u) => {
        let seen = 0;
        await waitUntil(
          async () => {
            const h = await rpcHeight(u);
            if (h === undefined) return seen > 0;
            seen = Math.max(seen, h);
            return false;
          },
          180_000,
          `${u} to halt`,
        );
        return seen;
      }),
    );
    for (const h of last) expect([H - 1, H]).toContain(h);
    const infos = net.nodes.map((n) => readFileSync(join(n.home, "data", "upgrade-info.json"), "utf8"));
    expect(new Set(infos)).toEqual(new Set([`{"name":"v2","time":"0001-01-01T00:00:00Z","height":${H}}`]));
    for (const v of visors) {
      await v.waitFor((r) => r.msg === "stopped" && r.exit_code === 20, 60_000);
      expect(v.records.find((r) => r.msg === "halting the node")).toMatchObject({ height: String(H), exit_code: 20 });
      expect(v.records.find((r) => r.msg === "stopped")).toMatchObject({ height: String(H - 1) });
      await servingOf(v, 2);
      expect(v.lines().some((l) => l.includes("starting the node") && l.includes("upgrades/v2/bin/xupgraded"))).toBe(true);
      expect(readlinkSync(join(net.nodes[v.index].home, "cosmovisor", "current"))).toBe("upgrades/v2");
    }
  });

  it("the chain resumes on v2: identical app hashes and applied_plan on all four, the migrations once per node", async () => {
    await allAt(urls(), H + 3);
    const facts = await Promise.all(urls().map((u) => blockFacts(u, H + 2)));
    expect(new Set(facts.map((f) => f.appHashAfter)).size).toBe(1);
    const atH = await Promise.all(urls().map((u) => blockFacts(u, H)));
    expect(new Set(atH.map((f) => f.appHashAfter)).size).toBe(1);
    for (const [i, v] of visors.entries()) {
      const applied = JSON.parse(ok(await runCli(["query", "upgrade", "applied", "v2", "--node", urls()[i]])).stdout);
      expect(applied.header.height).toBe(String(H));
      expect(v.records.filter((r) => r.msg === "upgrade applied")).toEqual([expect.objectContaining({ height: String(H) })]);
      expect(v.records.filter((r) => r.msg === "migrating module counter from version 1 to version 2")).toHaveLength(1);
      expect(v.records.some((r) => r.msg === "Replay last block using real app")).toBe(true);
    }
  });

  it("after the upgrade the proofs follow the store upgrades: v2 done, tags (added) and memos (renamed from notes) proven; notes is gone", async () => {
    const c = await clients(urls()[1]);
    try {
      for (const height of [undefined, H]) {
        const done = await provenQuery(c.comet, "upgrade", Uint8Array.of(0x01, ...utf8("v2")), height);
        expect(Buffer.from(done.value!).readBigUInt64BE()).toBe(BigInt(H));
        const tags = await provenQuery(c.comet, "upgrade", Uint8Array.of(0x02, ...utf8("tags")), height);
        expect(Buffer.from(tags.value!).readBigUInt64BE()).toBe(1n);
        expect(new TextDecoder().decode((await provenQuery(c.comet, "tags", utf8("tag/first"), height)).value)).toBe(`created at height ${H}`);
        const memo = new Uint8Array(8);
        new DataView(memo.buffer).setBigUint64(0, 5n);
        expect(JSON.parse(new TextDecoder().decode((await provenQuery(c.comet, "memos", memo, height)).value))).toEqual({ height: "5", text: "block 5" });
      }
      // Before the upgrade height the added store had no version: no proof, as the SDK answers.
      const before = await c.comet.abciQuery({ path: "/store/tags/key", data: utf8("tag/first"), prove: true, height: H - 1 });
      expect([before.code, before.log]).toEqual([18, "proof is unexpectedly empty; ensure height has not been pruned: invalid request"]);
      const gone = await c.comet.abciQuery({ path: "/store/notes/key", data: utf8("note/5"), prove: true });
      expect([gone.code, gone.log]).toEqual([6, "no such store: notes: unknown request"]);
      // The verified light client after the upgrade: v2 applied at H, the new module versions, proven.
      const applied = await runCli([
        "query",
        "upgrade",
        "applied",
        "v2",
        "--verify",
        ...trustFlags(),
        "--node",
        urls()[0],
        "--witness",
        urls()[1],
        "--home",
        lightHome,
        "-o",
        "json",
      ]);
      expect(applied.code, applied.stderr).toBe(0);
      expect(JSON.parse(applied.stdout).header.height).toBe(String(H));
      expect(applied.stderr).toMatch(
        new RegExp(
          `^verified: "v2" applied at height ${H} at height \\d+, against the app hash [0-9A-F]{64} of header \\d+ \\([0-9A-F]{64}, xupgrade-devnet-1, \\S+, \\d+ s old\\), 2 store proofs, confirmed by 1 witness$`,
          "m",
        ),
      );
      const mv = await runCli([
        "query",
        "upgrade",
        "module_versions",
        "--verify",
        ...trustFlags(),
        "--node",
        urls()[1],
        "--witness",
        urls()[0],
        "--home",
        lightHome,
        "-o",
        "json",
      ]);
      expect(mv.code, mv.stderr).toBe(0);
      expect(JSON.parse(mv.stdout).module_versions.map((m: { name: string; version: string }) => `${m.name}=${m.version}`)).toEqual([
        "auth=5",
        "bank=4",
        "counter=2",
        "gov=5",
        "notes=2",
        "staking=5",
        "tags=1",
        "upgrade=2",
      ]);
    } finally {
      c.comet.disconnect();
    }
  });

  it("cosmjs reads the applied height and the module versions; the light-client page shows the applied upgrade in Chromium", async () => {
    const c = await clients(urls()[2]);
    try {
      expect((await c.upgrade.AppliedPlan({ name: "v2" })).height).toBe(BigInt(H));
      expect((await c.upgrade.CurrentPlan({})).plan).toBeUndefined();
      const mv = (await c.upgrade.ModuleVersions({ moduleName: "" })).moduleVersions.map((m) => `${m.name}=${m.version}`);
      expect(mv).toEqual(["auth=5", "bank=4", "counter=2", "gov=5", "notes=2", "staking=5", "tags=1", "upgrade=2"]);
      expect((await c.comet.block(H + 1)).block.header.version.app).toBe(1); // the app version followed the upgrade
    } finally {
      c.comet.disconnect();
    }

    const rest = (await servingOf(visors[0], 2)).rest as string;
    expect(await (await fetch(`${rest}/ui/config.json`)).json()).toEqual({ chain_id: "xupgrade-devnet-1", rpc: urls()[0], engine: "cometbft" });
    browser = await launchChromium();

    // Verified mode, the page's default for a devnet under CometBFT: the light client verifies the headers from
    // the root in the link (amber until confirmed), confirmed with its hash, and proves every fact against them.
    const link = new URLSearchParams({ poll: "500", witness: urls()[1], trust_height: String(trustRoot!.height), trust_hash: trustRoot!.hash });
    const verified = await openPage(browser, `${rest}/ui?${link}`);
    await verified.page.waitForFunction(() => document.body.dataset.state === "verified" && document.body.dataset.root === "unconfirmed", undefined, {
      timeout: 60_000,
    });
    for (const b of await innerTexts(verified.page, '[data-testid="verified-badge"]')) expect(b).toMatch(/^⚠ verified against an unconfirmed root /);
    await pasteHash(verified.page, "confirm-form", trustRoot!.hash);
    await verified.page.waitForFunction(() => document.body.dataset.root === "confirmed", undefined, { timeout: 60_000 });
    const badges = await innerTexts(verified.page, '[data-testid="verified-badge"]');
    expect(badges.length).toBeGreaterThan(0);
    for (const b of badges) expect(b).toMatch(/^✓ verified /);
    expect(await verified.page.locator('[data-testid="module"]').count()).toBe(8);
    expect(await verified.page.locator('[data-testid="module"][data-name="tags"] td').nth(1).innerText()).toBe("1");
    expect(verified.errors).toEqual([]);
    await verified.context.close();

    const { page, errors, context } = await openPage(browser, `${rest}/ui?poll=500&mode=rest`);
    await waitText(page, "chain-id", "xupgrade-devnet-1");
    expect(await page.inputValue("#rpc-url")).toBe(urls()[0]);
    await waitText(page, "applied-upgrade", "v2", 30_000);
    expect(await text(page, "applied-height")).toBe(String(H));
    // The page did not watch the chain before the upgrade, but the node keeps past heights (docs/spec/store.md
    // §3): the page reads the versions at the height before and says what changed.
    await waitText(page, "versions-change", `At “v2” (height ${H}): counter 1 → 2, notes 1 → 2, tags added. Before: the node's state at height ${H - 1}.`);
    expect(await page.locator('[data-testid="module"][data-name="counter"] td').nth(1).innerText()).toBe("2");
    expect(await page.locator('[data-testid="module"][data-name="tags"] td').nth(1).innerText()).toBe("1");
    await waitState(page, "ok");
    await page.check('input[name="mode"][value="raw"]'); // abci_query through CometBFT to the app's store
    await waitText(page, "applied", "core.decodeDoneEntries");
    await waitText(page, "agreement-summary", "Both modes agree");
    await shot(page, "cometbft-applied");
    expect(errors).toEqual([]);
    await context.close();
    expect(rest0).not.toBe("");
  });

  it("SIGTERM to the visors stops every node and its CometBFT: exit 0, no process left", async () => {
    for (const v of visors) v.proc.kill("SIGTERM");
    expect(await Promise.all(visors.map((v) => exitWithin(v, 60_000)))).toEqual([0, 0, 0, 0]);
    await waitUntil(() => processesMentioning(net.dir).length === 0, 15_000, "no process of the testnet");
    for (const n of net.nodes) expect((await committedState(n.home)).get("counter", "migrations/1-2")).toBe("1");
  });
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") await Promise.all(visors.map((v) => v.kill()));
});
