/**
 * `npm run demo:testnet` end to end: examples/demo-testnet.mjs drives the real CLI (the transpiled copy) —
 * four CometBFT validators under four visors through the whole upgrade — and prints a table per validator
 * at each step. Nothing is left behind, on success and on Ctrl-C.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ROOT } from "../../support/paths.js";
import { builtCliMain, processesMentioning, removeTempDirs } from "../helpers.js";
import { COMETBFT, describeCometbft, waitUntil } from "./helpers.js";

afterAll(removeTempDirs);

function runDemo() {
  const child = spawn(process.execPath, [join(ROOT, "examples/demo-testnet.mjs")], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, XUPGRADE_CLI: builtCliMain(), XUPGRADE_COMETBFT: COMETBFT ?? "", XUPGRADE_DEMO_VOTING_S: "8" },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | string>((r) => child.on("close", (code, signal) => r(code ?? signal ?? -1)));
  return { pid: child.pid!, output: () => out, exited };
}

async function expectNoTrace(out: string): Promise<void> {
  const work = /^\$WORK = (.+)$/m.exec(out)?.[1];
  expect(work, out).toMatch(/xupgrade-demo-testnet-/);
  expect(existsSync(work!)).toBe(false);
  await waitUntil(() => processesMentioning(work!).length === 0, 15_000, "no process of the demo");
}

describeCometbft("npm run demo:testnet (examples/demo-testnet.mjs)", { timeout: 240_000 }, () => {
  it("four validators under four visors: the proposal, four votes, the same halt height, v2 everywhere; nothing left", async () => {
    const demo = runDemo();
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
    // The halt table: every validator at H-1 with exit 20 on the genesis binary.
    const halted = out.slice(out.indexOf(`The validators when they halted at ${H}`)).split("\n").slice(2, 6);
    for (const row of halted) expect(row).toMatch(new RegExp(`^\\s+node\\d\\s+${Number(H) - 1}\\s+[0-9A-F]{8}…[0-9A-F]{4}\\s+20\\s+genesis/bin/xupgraded \\(example-v1\\)$`));
    expect(out).not.toMatch(/demo failed|NOT identical|NOT the same/);
    await expectNoTrace(out);
  });

  it("Ctrl-C (SIGINT to the process group) stops every visor, node and CometBFT and removes everything; exit 130", async () => {
    const demo = runDemo();
    await waitUntil(() => demo.output().includes("→ app hashes at height 3"), 120_000, "the validators");
    process.kill(-demo.pid, "SIGINT");
    expect(await demo.exited).toBe(130);
    expect(demo.output()).toContain("SIGINT: stopping the demo's processes and removing ");
    await expectNoTrace(demo.output());
  });
});
