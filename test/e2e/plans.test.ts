/**
 * End to end, real processes: the CLI schedules, cancels and overwrites upgrade plans through gov on a
 * running `xupgrade devnet start` (v1), and `--unsafe-skip-upgrades` gets a halted chain past its height.
 *   cancel before the height → the plan is removed and the node runs past the height;
 *   a second plan overwrites the first → the node runs past the old height and halts (20) at the new one;
 *   restarted v1 halts again (20); with `--unsafe-skip-upgrades H` it skips the upgrade and goes on.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BLOCK_MS,
  PROPOSAL_S,
  V1,
  cli,
  committedHeight,
  errorLine,
  exitWithin,
  height,
  initHome,
  killNodes,
  passProposal,
  queryPlan,
  removeTempDirs,
  runCli,
  startNode,
  stopNode,
  waitForPlan,
  type Node,
} from "./helpers.js";

afterAll(async () => {
  await killNodes();
  removeTempDirs();
});

describe.sequential("plans through gov on a devnet process: cancel, overwrite, skip", { timeout: 180_000 }, () => {
  let home: string;
  let node: Node;
  let H: number;

  it("cancel before the height: the plan is removed and the node runs past the height", async () => {
    home = await initHome();
    node = await startNode(home, V1);
    const H1 = (await height(node)) + Math.round(((2 * PROPOSAL_S + 5) * 1000) / BLOCK_MS); // two proposals must pass first
    await passProposal(node, ["software-upgrade", "v2", "--upgrade-height", String(H1), "--no-validate"]);
    expect(await waitForPlan(node, (p) => p !== undefined, "the plan")).toMatchObject({ name: "v2", height: String(H1) });

    await passProposal(node, ["cancel-software-upgrade"]);
    expect(await waitForPlan(node, (p) => p === undefined, "the plan to be removed")).toBeUndefined();
    expect(node.records.filter((r) => r.msg === "upgrade plan cleared")).toHaveLength(1);
    expect(await height(node)).toBeLessThan(H1);

    await committedHeight(node, H1 + 2, 90_000);
    expect(node.proc.exitCode).toBeNull();
    expect(node.records.some((r) => /NEEDED/.test(r.msg))).toBe(false);
    expect(errorLine(await cli(node, ["query", "upgrade", "applied", "v2"]))).toBe("no upgrade found");
    expect(existsSync(join(home, "data", "upgrade-info.json"))).toBe(false);
  });

  it("a new plan overwrites the scheduled one: the node runs past the old height and halts (20) at the new one", async () => {
    const H2 = (await height(node)) + Math.round(((2 * PROPOSAL_S + 4) * 1000) / BLOCK_MS); // two proposals must pass first
    H = H2 + 20;
    await passProposal(node, ["software-upgrade", "v2", "--upgrade-height", String(H2), "--no-validate"]);
    await waitForPlan(node, (p) => p?.height === String(H2), `the plan at ${H2}`);
    await passProposal(node, ["software-upgrade", "v2", "--upgrade-height", String(H), "--upgrade-info", '{"binaries":{}}', "--no-validate"]);
    expect(await waitForPlan(node, (p) => p?.height === String(H), `the plan at ${H}`)).toEqual({
      name: "v2",
      time: "0001-01-01T00:00:00Z",
      height: String(H),
      info: '{"binaries":{}}',
      upgraded_client_state: null,
    });
    expect(await height(node)).toBeLessThan(H2);

    expect(await exitWithin(node, 90_000)).toBe(20);
    const last = node.records.filter((r) => r.msg === "committed block").at(-1)!;
    expect(Number(last.height)).toBe(H - 1);
    expect(node.records.filter((r) => r.level === "error" && r.module === "x/upgrade").map((r) => r.msg)).toEqual([
      `UPGRADE "v2" NEEDED at height: ${H}: {"binaries":{}}`,
    ]);
    expect(JSON.parse(readFileSync(join(home, "data", "upgrade-info.json"), "utf8"))).toEqual({
      name: "v2",
      time: "0001-01-01T00:00:00Z",
      height: H,
      info: '{"binaries":{}}',
    });
  });

  it("v1 restarted halts again (20); with --unsafe-skip-upgrades H it skips the upgrade and the chain goes on", async () => {
    const again = await startNode(home, V1).catch((e) => e as Error);
    // It may halt before or right after serving: either way it exits 20 without committing H.
    if (!(again instanceof Error)) expect(await exitWithin(again, 15_000)).toBe(20);

    node = await startNode(home, V1, { args: ["--unsafe-skip-upgrades", String(H)] });
    expect(node.records.find((r) => r.msg === "starting devnet")?.skip_upgrade_heights).toEqual([String(H)]);
    await committedHeight(node, H + 2);
    expect(node.records.some((r) => r.msg === `UPGRADE "v2" SKIPPED at ${H}: {"binaries":{}}`)).toBe(true);
    expect(await queryPlan(node)).toBeUndefined();
    // A skipped upgrade is not applied.
    expect(errorLine(await cli(node, ["query", "upgrade", "applied", "v2"]))).toBe("no upgrade found");
    const versions = JSON.parse((await cli(node, ["query", "upgrade", "module_versions", "-o", "json"])).stdout).module_versions;
    expect(versions).toContainEqual({ name: "counter", version: "1" });
    expect(await stopNode(node)).toBe(0);
  });

  it("rejects a malformed --unsafe-skip-upgrades", async () => {
    for (const bad of ["abc", "0", "1.5"]) {
      const r = await runCli(["devnet", "start", "--home", home, "--unsafe-skip-upgrades", `10,${bad}`]);
      expect(errorLine(r)).toBe(`invalid --unsafe-skip-upgrades "${bad}": must be a positive integer`);
    }
  });
});
