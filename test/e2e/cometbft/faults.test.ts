/**
 * Faults on a real four-validator CometBFT testnet (four `cometbft` and four `xupgrade devnet start
 * --engine cometbft` processes on loopback), the upgrade scheduled through the CLI:
 *   - the four validators commit the same blocks with identical app hashes;
 *   - one validator started with v2 before the height halts with 21 (refused at start-up when its stores
 *     differ, in FinalizeBlock when only its handler does) while the three others keep committing; back
 *     on v1 it catches up;
 *   - at the height all four halt with 20 and the same upgrade-info.json; v1 restarted halts again on
 *     CometBFT's replay of the halting block;
 *   - three validators on v2 apply the upgrade and go on (3 of 4 voting power); the fourth, SIGKILLed
 *     while its upgrade handler runs, commits nothing and its CometBFT stops by itself; restarted with v2 it
 *     replays the upgrade block, migrates exactly once and catches up to the same app hash.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, expect, it } from "vitest";
import { V1, V2, committedState, fixtureApp, removeTempDirs } from "../helpers.js";
import {
  alive,
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
  rpcHeight,
  spawnValidator,
  startValidator,
  waitUntil,
  type Testnet,
  type Validator,
} from "./helpers.js";

const VOTING_S = 8;

afterAll(async () => {
  await killNodes();
  removeTempDirs();
});

describeCometbft("faults on a four-validator CometBFT testnet", { timeout: 240_000 }, () => {
  let net: Testnet;
  const vals: Validator[] = [];
  let H = 0;
  const urls = () => net.nodes.map((n) => n.rpc);
  const upgradeInfo = (i: number) => readFileSync(join(net.nodes[i].home, "data", "upgrade-info.json"), "utf8");

  /** Every node's facts about block h are the same; returns them. */
  async function agree(nodes: number[], h: number) {
    const facts = await Promise.all(nodes.map((i) => blockFacts(net.nodes[i].rpc, h)));
    expect(new Set(facts.map((f) => f.hash)).size, JSON.stringify(facts)).toBe(1);
    expect(new Set(facts.map((f) => f.appHashAfter)).size, JSON.stringify(facts)).toBe(1);
    return facts[0];
  }

  it("four validators commit the same blocks with identical app hashes", async () => {
    net = await initTestnet({ votingS: VOTING_S, depositS: 4 });
    vals.push(...(await Promise.all(net.nodes.map((n) => startValidator(n, V1)))));
    await allAt(urls(), 5);
    for (const h of [2, 3, 4, 5]) {
      const f = await agree([0, 1, 2, 3], h);
      // The app logged the app hash CometBFT stored for the block.
      for (const v of vals) expect(records(v, "committed block").find((r) => Number(r.height) === h)?.app_hash).toBe(f.appHashAfter);
    }
  });

  it("a validator started with v2 before the height halts with 21 while the three others keep committing; on v1 it catches up", async () => {
    const now = (await rpcHeight(urls()[0]))!;
    const ms = await blockMs(urls()[0]);
    // The vote (one voting period), then room for this test's restarts, then the upgrade.
    H = now + Math.ceil(((VOTING_S + 45) * 1000) / ms);
    await proposeUpgrade(net, "v2", H);
    await waitUntil(async () => (await planOf(urls()[0]))?.height === String(H), (VOTING_S + 30) * 1000, "the plan");

    vals[3].proc.kill("SIGTERM");
    expect(await exitWithin(vals[3], 20_000)).toBe(0);
    // v2 adds and renames stores: refused before it loads them, in the keeper's words.
    const early = spawnValidator(net.nodes[3], V2);
    expect(await exitWithin(early, 60_000), early.stderr()).toBe(21);
    expect(early.stderr()).toMatch(/^Error: BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain/m);
    // A binary with only the handler loads, and halts in its first FinalizeBlock.
    const handlerOnly = spawnValidator(net.nodes[3], fixtureApp("v2-handler-only"));
    expect(await exitWithin(handlerOnly, 90_000), handlerOnly.stderr()).toBe(21);
    expect(records(handlerOnly, "halting the node")[0]).toMatchObject({ exit_code: 21, err: expect.stringMatching(/^BINARY UPDATED BEFORE TRIGGER!/) });
    expect((await committedState(net.nodes[3].home)).height).toBeLessThan(BigInt(H));

    // The other three never stopped: 3 of 4 voting power is enough.
    const from = (await rpcHeight(urls()[0]))!;
    await allAt(urls().slice(0, 3), from + 3);
    vals[3] = await startValidator(net.nodes[3], V1);
    const top = (await rpcHeight(urls()[0]))!;
    await allAt(urls(), top + 1);
    await agree([0, 1, 2, 3], top);
    expect(top).toBeLessThan(H);
  });

  it("at the height every validator halts with 20 and writes the same upgrade-info.json; v1 restarted halts again on the replay", async () => {
    const codes = await Promise.all(vals.map((v) => exitWithin(v, 180_000)));
    expect(codes).toEqual([20, 20, 20, 20]);
    for (const [i, v] of vals.entries()) {
      expect(records(v, "halting the node")[0], `node${i}`).toMatchObject({ height: String(H), exit_code: 20, err: `UPGRADE "v2" NEEDED at height: ${H}: ` });
      expect(records(v, "stopped")[0]).toMatchObject({ height: String(H - 1), exit_code: 20 });
      expect(upgradeInfo(i)).toBe(`{"name":"v2","time":"0001-01-01T00:00:00Z","height":${H}}`);
      expect((await committedState(net.nodes[i].home)).height).toBe(BigInt(H - 1));
    }

    const again = spawnValidator(net.nodes[0], V1);
    expect(await exitWithin(again, 60_000), again.stderr()).toBe(20);
    expect(again.records.some((r) => r.msg === "Replay last block using real app")).toBe(true);
    expect(records(again, "halting the node")[0]).toMatchObject({ height: String(H), exit_code: 20 });
    expect(upgradeInfo(0)).toBe(`{"name":"v2","time":"0001-01-01T00:00:00Z","height":${H}}`);
    expect((await committedState(net.nodes[0].home)).height).toBe(BigInt(H - 1));
  });

  it("three validators on v2 go on; the fourth, SIGKILLed in its upgrade block, commits nothing and its CometBFT stops too", async () => {
    const slow = spawnValidator(net.nodes[3], fixtureApp("v2-slow"), { env: { XUPGRADE_SLOW_HANDLER_MS: "300000" } });
    const cometPid = Number((await slow.waitFor((r) => r.msg === "started CometBFT", 60_000)).pid);
    await slow.waitFor((r) => r.msg.startsWith("v2-slow: migrations done"), 90_000);
    slow.proc.kill("SIGKILL");
    expect(await exitWithin(slow, 10_000)).toBe("SIGKILL");
    await waitUntil(() => !alive(cometPid), 30_000, "the killed node's CometBFT to stop by itself");
    const s = await committedState(net.nodes[3].home);
    expect(s.height).toBe(BigInt(H - 1));
    expect(s.stores).toContain("notes");
    expect(s.stores).not.toContain("memos");
    expect(s.get("counter", "migrations/1-2")).toBeUndefined();

    for (const i of [0, 1, 2]) vals[i] = await startValidator(net.nodes[i], V2);
    await allAt(urls().slice(0, 3), H + 3);
    await agree([0, 1, 2], H + 2);
    for (const i of [0, 1, 2]) expect(records(vals[i], "upgrade applied")[0]).toMatchObject({ height: String(H), app_version: "1" });
  });

  it("the killed validator restarts with v2: it replays the upgrade block, migrates once, and reaches the same app hash", async () => {
    vals[3] = await startValidator(net.nodes[3], V2);
    expect(vals[3].records.some((r) => r.msg === "Replay last block using real app")).toBe(true);
    const top = (await rpcHeight(urls()[0]))!;
    await allAt(urls(), top + 2);
    await agree([0, 1, 2, 3], top + 1);
    const header = (await blockFacts(urls()[3], H + 1)).hash;
    expect(header).toBe((await blockFacts(urls()[0], H + 1)).hash);

    const stopped = await Promise.all(vals.map((v) => (v.proc.kill("SIGTERM"), exitWithin(v, 30_000))));
    expect(stopped).toEqual([0, 0, 0, 0]);
    for (const [i, v] of vals.entries()) {
      expect(records(v, "migrating module counter from version 1 to version 2"), `node${i}`).toHaveLength(1);
      const s = await committedState(net.nodes[i].home);
      expect(s.get("counter", "migrations/1-2")).toBe("1");
      expect(s.get("memos", "migrations/1-2")).toBe("1");
      expect(s.get("tags", "tag/first")).toBe(`created at height ${H}`);
    }
  });
});

afterEach(async (ctx) => {
  // A failed step leaves its nodes running: stop them so the next steps fail fast instead of hanging.
  if (ctx.task.result?.state === "fail") await killNodes();
});
