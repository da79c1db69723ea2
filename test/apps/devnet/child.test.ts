/**
 * The devnet as real child processes: v1 halts with exit code 20 at the upgrade height; the v2 node is
 * SIGKILLed while its upgrade block runs (migrations done, block not committed); the restarted v2 applies
 * the upgrade again from the committed state — the migrations are committed exactly once — and stops
 * cleanly (exit code 0) on SIGTERM.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  V1,
  V2,
  clients,
  committedState as committed,
  fixtureApp,
  newHome,
  proposeAndPass,
  removeTempDirs,
  softwareUpgradeAny,
  startChild,
  type DevnetChild,
} from "./helpers.js";

const children: DevnetChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill();
});
afterAll(removeTempDirs);

function child(home: string, app: string, env?: Record<string, string>): DevnetChild {
  const c = startChild(home, app, env);
  children.push(c);
  return c;
}

describe("devnet child processes", { timeout: 120_000 }, () => {
  it("v1 exits 20 at the height; SIGKILL of v2 during the upgrade block; the restart migrates exactly once", async () => {
    // 200 ms blocks and 5 s of voting: the three votes, signed and sent after the proposal is in a block, miss a 1 s
    // voting period on a loaded machine (the proposal then fails, and v1 never halts); the plan 100 blocks ahead
    // leaves 20 s, past the voting period's end.
    const { home, keys } = await newHome({ blockTime: "200ms", votingPeriod: "5s" });

    const v1 = child(home, V1);
    const serving = await v1.waitFor((r) => r.msg === "serving");
    const c = await clients(serving.rpc as string);
    const target = BigInt((await c.comet.status()).syncInfo.latestBlockHeight) + 100n;
    await proposeAndPass(c, keys, [softwareUpgradeAny("v2", target)]);
    c.comet.disconnect();
    expect(await v1.exited).toBe(20);
    expect(v1.records.find((r) => r.level === "error" && r.module === "x/upgrade")?.msg).toBe(`UPGRADE "v2" NEEDED at height: ${target}: `);
    expect(existsSync(join(home, "data", "upgrade-info.json"))).toBe(true);

    // v2 whose handler waits after migrating: killed while the upgrade block is executed, before its commit.
    const slow = child(home, fixtureApp("v2-slow"), { XUPGRADE_SLOW_HANDLER_MS: "60000" });
    await slow.waitFor((r) => r.msg.startsWith("v2-slow: migrations done"));
    expect(slow.records.filter((r) => r.msg.startsWith("store loader applied"))).toHaveLength(1);
    expect(slow.records.filter((r) => r.msg === "migrating module counter from version 1 to version 2")).toHaveLength(1);
    await slow.kill();
    expect(slow.proc.signalCode).toBe("SIGKILL");
    let s = await committed(home);
    expect(s.height).toBe(target - 1n);
    expect(s.stores).toContain("notes");
    expect(s.stores).not.toContain("memos");
    expect(s.get("counter", "count")).toBe(String(target - 1n));
    expect(s.get("counter", "migrations/1-2")).toBeUndefined();

    // The restarted v2: the loader fires again (the height did not move), the upgrade is applied and committed.
    const v2 = child(home, V2);
    await v2.waitFor((r) => r.msg === "upgrade applied");
    await v2.waitFor((r) => r.msg === "committed block" && BigInt(r.height as string) >= target + 2n);
    v2.proc.kill("SIGTERM");
    expect(await v2.exited).toBe(0);
    expect(v2.records.filter((r) => r.msg.startsWith("store loader applied"))).toHaveLength(1);
    expect(v2.records.at(-1)).toMatchObject({ msg: "stopped", exit_code: 0 });

    s = await committed(home);
    expect(s.height).toBeGreaterThanOrEqual(target + 2n);
    expect(s.stores).toEqual(expect.arrayContaining(["memos", "tags"]));
    expect(s.stores).not.toContain("notes");
    expect(s.get("counter", "migrations/1-2")).toBe("1");
    expect(s.get("memos", "migrations/1-2")).toBe("1");
    expect(s.get("tags", "tag/first")).toBe(`created at height ${target}`);
  });
});
