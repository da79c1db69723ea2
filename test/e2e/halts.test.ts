/**
 * End to end, real processes: an upgrade scheduled with the CLI on a `xupgrade devnet start` process, and
 * every way the switch of binaries can go:
 *   cosmjs connectComet + QueryClientImpl against the devnet process;
 *   a binary with the handler started before the height halts with BINARY UPDATED BEFORE TRIGGER! (21);
 *   v1 halts at the height (20); a v2 whose handler throws halts (23) with nothing committed;
 *   a v2 SIGKILLed while its upgrade block runs commits nothing; the fixed v2 then applies the upgrade,
 *   its migrations committed exactly once, and the chain resumes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ProposalStatus } from "cosmjs-types/cosmos/gov/v1/gov";
import { readGenesisKeys } from "../../bindings/apps/devnet/index.js";
import {
  V1,
  V2,
  cli,
  clients,
  committedHeight,
  committedState,
  errorLine,
  exitWithin,
  fixtureApp,
  height,
  initHome,
  killNodes,
  ok,
  passProposal,
  removeTempDirs,
  spawnNode,
  startNode,
  stopNode,
  waitForPlan,
  type Node,
} from "./helpers.js";

const SLOW_BLOCK_MS = 500;

afterAll(async () => {
  await killNodes();
  removeTempDirs();
});

describe.sequential("halting and switching binaries, devnet processes driven by the CLI", { timeout: 180_000 }, () => {
  let home: string;
  let node: Node;
  let H: number;
  let proposal: string;

  it("cosmjs connectComet + QueryClientImpl against the devnet process; the CLI schedules v2", async () => {
    home = await initHome();
    // A block every 500 ms while the proposal runs: the height it must stay below is then a minute of CLI
    // processes away (seconds each on a busy machine), and the restart below, at BLOCK_MS, gets there in seconds.
    node = await startNode(home, V1, { args: ["--block-time", `${SLOW_BLOCK_MS}ms`] });
    const c = await clients(node.rpc);
    try {
      const status = await c.comet.status();
      expect(status.nodeInfo.network).toBe("xupgrade-devnet-1");
      expect(status.syncInfo.latestBlockHeight).toBeGreaterThanOrEqual(1);
      const block = await c.comet.block(1);
      expect(block.block.header.chainId).toBe("xupgrade-devnet-1");
      expect((await c.upgrade.ModuleVersions({ moduleName: "" })).moduleVersions).toContainEqual({ name: "counter", version: 1n });
      expect((await c.upgrade.CurrentPlan({})).plan).toBeUndefined();
      expect((await c.upgrade.Authority({})).address).toBe("cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn");
      const alice = (await readGenesisKeys(home)).keys.find((k) => k.name === "alice")!;
      expect(BigInt((await c.query.bank.balance(alice.address, "stake")).amount)).toBeGreaterThan(0n);
      expect((await c.auth.Account({ address: alice.address })).account?.typeUrl).toBe("/cosmos.auth.v1beta1.BaseAccount");

      H = (await height(node)) + Math.round(60_000 / SLOW_BLOCK_MS);
      proposal = await passProposal(node, ["software-upgrade", "v2", "--upgrade-height", String(H), "--no-validate"]);
      await waitForPlan(node, (p) => p?.height === String(H), "the plan");
      expect((await c.upgrade.CurrentPlan({})).plan).toMatchObject({ name: "v2", height: BigInt(H) });
      expect((await c.gov.Proposal({ proposalId: BigInt(proposal) })).proposal?.status).toBe(ProposalStatus.PROPOSAL_STATUS_PASSED);
    } finally {
      c.comet.disconnect();
    }
  });

  it("a binary started before the upgrade height halts with BINARY UPDATED BEFORE TRIGGER! (exit 21); v1 goes on", async () => {
    expect(await stopNode(node)).toBe(0);
    const before = (await committedState(home)).height;
    expect(Number(before)).toBeLessThan(H - 10);

    for (const app of [fixtureApp("v2-handler-only"), V2]) {
      const early = spawnNode(home, app);
      expect(await exitWithin(early, 20_000), early.stderr()).toBe(21);
      expect(
        early.records.some((r) => r.level === "error" && /^BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain/.test(r.msg)),
      ).toBe(true);
      expect((await committedState(home)).height).toBe(before);
    }

    node = await startNode(home, V1);
    await committedHeight(node, Number(before) + 1);
  });

  it("v1 halts at the height (exit 20) and writes upgrade-info.json", async () => {
    expect(await exitWithin(node, 60_000)).toBe(20); // up to 120 blocks of BLOCK_MS away, slower on a busy machine
    expect(node.records.find((r) => r.level === "error" && r.module === "x/upgrade")?.msg).toBe(`UPGRADE "v2" NEEDED at height: ${H}: `);
    expect(JSON.parse(readFileSync(join(home, "data", "upgrade-info.json"), "utf8"))).toEqual({ name: "v2", time: "0001-01-01T00:00:00Z", height: H }); // info is omitted when empty, as Go does
    expect((await committedState(home)).height).toBe(BigInt(H - 1));
  });

  it("a v2 whose upgrade handler throws halts (exit 23) with nothing from the upgrade committed", async () => {
    const broken = spawnNode(home, fixtureApp("v2-broken"));
    expect(await exitWithin(broken, 20_000), broken.stderr()).toBe(23);
    expect(
      broken.records
        .filter((r) => r.level === "error")
        .map((r) => `${r.msg} ${r.err ?? ""}`)
        .join("\n"),
    ).toMatch(/boom: the v2 handler failed after migrating/);
    // It ran the migrations before throwing: none of it is committed.
    expect(broken.records.filter((r) => r.msg === "migrating module counter from version 1 to version 2")).toHaveLength(1);
    const s = await committedState(home);
    expect(s.height).toBe(BigInt(H - 1));
    expect(s.stores).toContain("notes");
    expect(s.stores).not.toContain("memos");
    expect(s.stores).not.toContain("tags");
    expect(s.get("counter", "count")).toBe(String(H - 1));
    expect(s.get("counter", "migrations/1-2")).toBeUndefined();
  });

  it("SIGKILL of v2 during the upgrade block, then a restart: the migrations are committed exactly once", async () => {
    const slow = spawnNode(home, fixtureApp("v2-slow"), { env: { XUPGRADE_SLOW_HANDLER_MS: "60000" } });
    await slow.waitFor((r) => r.msg.startsWith("v2-slow: migrations done"), 20_000);
    expect(slow.records.filter((r) => r.msg.startsWith("store loader applied"))).toHaveLength(1);
    slow.proc.kill("SIGKILL");
    expect(await exitWithin(slow, 10_000)).toBe("SIGKILL");
    let s = await committedState(home);
    expect(s.height).toBe(BigInt(H - 1));
    expect(s.stores).not.toContain("memos");
    expect(s.get("counter", "migrations/1-2")).toBeUndefined();

    // The fixed binary: the store loader fires again (the height did not move), the upgrade is applied once.
    node = await startNode(home, V2);
    await node.waitFor((r) => r.msg === "upgrade applied", 20_000);
    await committedHeight(node, H + 3);
    expect(node.records.filter((r) => r.msg.startsWith("store loader applied"))).toHaveLength(1);
    expect(node.records.filter((r) => r.msg === "migrating module counter from version 1 to version 2")).toHaveLength(1);
    expect(node.records.filter((r) => r.msg === "migrating module notes from version 1 to version 2")).toHaveLength(1);

    const applied = JSON.parse(ok(await cli(node, ["query", "upgrade", "applied", "v2"])).stdout);
    expect(applied.header.height).toBe(String(H));
    const versions = JSON.parse(ok(await cli(node, ["query", "upgrade", "module_versions", "-o", "json"])).stdout).module_versions;
    expect(versions).toEqual(
      expect.arrayContaining([
        { name: "counter", version: "2" },
        { name: "notes", version: "2" },
        { name: "tags", version: "1" },
      ]),
    );
    expect(errorLine(await cli(node, ["query", "upgrade", "plan"]))).toBe("no upgrade scheduled");

    const c = await clients(node.rpc);
    try {
      expect((await c.upgrade.AppliedPlan({ name: "v2" })).height).toBe(BigInt(H));
      expect((await c.upgrade.CurrentPlan({})).plan).toBeUndefined();
      expect((await c.comet.block(H)).block.header.height).toBe(H);
    } finally {
      c.comet.disconnect();
    }

    expect(await stopNode(node)).toBe(0);
    s = await committedState(home);
    expect(s.height).toBeGreaterThanOrEqual(BigInt(H + 3));
    expect(s.stores).toEqual(expect.arrayContaining(["memos", "tags"]));
    expect(s.stores).not.toContain("notes");
    expect(s.get("counter", "migrations/1-2")).toBe("1");
    expect(s.get("memos", "migrations/1-2")).toBe("1");
    expect(s.get("tags", "tag/first")).toBe(`created at height ${H}`);
  });

  it("a restarted v2 neither reloads its stores nor migrates again", async () => {
    node = await startNode(home, V2);
    const h = await height(node);
    await committedHeight(node, h + 2);
    expect(node.records.some((r) => r.msg.startsWith("store loader applied") || r.msg.startsWith("migrating module"))).toBe(false);
    expect(await stopNode(node)).toBe(0);
    expect((await committedState(home)).get("counter", "migrations/1-2")).toBe("1");
  });
});

afterEach(async (ctx) => {
  // A failed step leaves its node running: stop it so the next steps fail fast instead of hanging.
  if (ctx.task.result?.state === "fail") await killNodes();
});
