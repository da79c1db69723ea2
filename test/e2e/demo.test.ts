/**
 * `npm run demo` end to end: examples/demo.mjs drives the real CLI (the transpiled copy, as
 * dist/apps/cli/main.js would be) and real devnet processes through the whole lifecycle, with a shorter block
 * time and gov periods than its defaults. And it leaves nothing behind: not on success, not on Ctrl-C (the
 * terminal's SIGINT to the process group), not on a SIGTERM to the demo alone, not when a step fails.
 */
import { afterAll, describe, expect, it } from "vitest";
import { waitUntil } from "../apps/devnet/helpers.js";
import { demoDir, expectDemoLeftNothing, runDemo } from "../support/demo.js";
import { builtCliMain, processesMentioning, removeTempDirs } from "./helpers.js";

afterAll(removeTempDirs);

/** examples/demo.mjs with a shorter block time and gov periods (and `env`). */
const runLifecycleDemo = (env: Record<string, string> = {}) =>
  runDemo("demo.mjs", { XUPGRADE_CLI: builtCliMain(), XUPGRADE_DEMO_BLOCK_MS: "100", XUPGRADE_DEMO_PERIOD_S: "5", ...env });
const expectNoTrace = (out: string) => expectDemoLeftNothing(out, "HOME_DIR", /xupgrade-demo-/, 5000);

describe("npm run demo (examples/demo.mjs)", () => {
  it("runs the whole lifecycle through the CLI and devnet processes and cleans up", { timeout: 120_000 }, async () => {
    const demo = runLifecycleDemo();
    const code = await demo.exited;
    const out = demo.output();
    expect(code, out).toBe(0);
    const H = /Propose the upgrade: "v2" at height (\d+)/.exec(out)?.[1];
    expect(H, out).toMatch(/^\d+$/);
    for (const text of [
      "[1] Create a devnet: 4 validators, 5s voting and deposit periods, a block every 100ms, free loopback ports",
      "$ xupgrade devnet init --home $HOME_DIR --validators 4 --voting-period 5s --deposit-period 5s --block-time 100ms",
      "initialised devnet xupgrade-devnet-1 in ",
      "node v1 │ serving: rpc http://127.0.0.1:",
      "node v1 │ light client: http://127.0.0.1:",
      "alice      cosmos1",
      `$ xupgrade tx upgrade software-upgrade v2 --title 'Upgrade to v2'`,
      '"proposal_id":"1"',
      "$ xupgrade tx gov vote 1 yes --from validator3 … → {",
      "node v1 │ proposal 1 tallied: PROPOSAL_STATUS_PASSED",
      `height: "${H}"\n    info: '{"binaries":{"any":"http://127.0.0.1:`, // single-quoted, as go-yaml writes it
      "status PROPOSAL_STATUS_PASSED",
      `node v1 │ waiting for upgrade "v2": height `,
      `node v1 │ UPGRADE "v2" NEEDED at height: ${H}: {"binaries":{"any":"http://127.0.0.1:`,
      "node v1 exited with code 20 (UPGRADE NEEDED)",
      `$HOME_DIR/data/upgrade-info.json: {"name":"v2","time":"0001-01-01T00:00:00Z","height":${H},"info":`,
      `node v2 │ store loader applied the store upgrades of "v2" for height ${H}`,
      "node v2 │ migrating module counter from version 1 to version 2",
      "node v2 │ migrating module notes from version 1 to version 2",
      "node v2 │ notes: migrated ",
      "node v2 │ adding a new module: tags",
      `node v2 │ upgrade applied at height ${H}`,
      `node v2 │ committed block ${Number(H) + 2} `,
      `"height": "${H}",`,
      '- name: counter\n      version: "2"',
      '- name: tags\n      version: "1"',
      "Error: no upgrade scheduled",
      "exit code 0",
      "Done in ",
    ]) {
      expect(out).toContain(text);
    }
    expect(out).not.toMatch(/warning|demo failed/);
    await expectNoTrace(out);
  });

  it("Ctrl-C (SIGINT to the process group) stops every process and removes the home; exit 130", { timeout: 60_000 }, async () => {
    const demo = runLifecycleDemo();
    await waitUntil(() => demo.output().includes("node v1 │ serving"), 30_000, "the v1 node");
    process.kill(-demo.pid, "SIGINT");
    expect(await demo.exited).toBe(130);
    expect(demo.output()).toContain("SIGINT: stopping the demo's processes and removing ");
    await expectNoTrace(demo.output());
  });

  it("SIGTERM to the demo alone: it stops the node it started itself", { timeout: 60_000 }, async () => {
    const demo = runLifecycleDemo();
    await waitUntil(() => demo.output().includes("[4] Propose the upgrade"), 30_000, "the proposal step");
    process.kill(demo.pid, "SIGTERM");
    expect(await demo.exited).toBe(130);
    expect(demo.output()).toMatch(/node v1 │ stopped at height \d+, exit code 0/);
    await expectNoTrace(demo.output());
  });

  it("a failing step (the node killed under it) ends the demo with exit 1, a one-line reason and nothing left", { timeout: 60_000 }, async () => {
    const demo = runLifecycleDemo();
    await waitUntil(() => demo.output().includes("node v1 │ serving"), 30_000, "the v1 node");
    const home = demoDir(demo.output(), "HOME_DIR")!;
    const nodePids = processesMentioning(home).filter((pid) => pid !== demo.pid);
    expect(nodePids.length).toBeGreaterThan(0);
    for (const pid of nodePids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* a CLI process that already ended */
      }
    }
    expect(await demo.exited).toBe(1);
    expect(demo.output()).toMatch(/\ndemo failed after [0-9.]+s: .+/);
    await expectNoTrace(demo.output());
  });
});
