/**
 * `npm run demo:visor` end to end (docs/spec/sidecar.md §10.8): examples/demo-visor.mjs drives the real CLI (the
 * transpiled copy) — a devnet node under `xupgrade visor run`, the upgrade scheduled through the CLI with
 * the v2 binary as a tar.gz on a loopback HTTP server and its sha256 in Plan.Info — and the visor does the
 * halt, backup, download, verification, pre-upgrade, switch and restart hands-off. Nothing is left behind,
 * also when the demo is interrupted.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, builtCliMain, removeTempDirs } from "../cli/helpers.js";
import { processesMentioning, waitUntil } from "./helpers.js";

afterAll(removeTempDirs);

function runDemo() {
  const child = spawn(process.execPath, [join(ROOT, "examples/demo-visor.mjs")], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, XUPGRADE_CLI: builtCliMain() },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | string>((r) => child.on("close", (code, signal) => r(code ?? signal ?? -1)));
  return { pid: child.pid!, output: () => out, exited };
}

async function expectNoTrace(out: string): Promise<void> {
  const work = /^\$WORK = (.+)$/m.exec(out)?.[1];
  expect(work, out).toMatch(/xupgrade-demo-visor-/);
  expect(existsSync(work!)).toBe(false);
  await waitUntil(() => processesMentioning(work!).length === 0, 5000, "no process of the demo");
}

describe("npm run demo:visor (examples/demo-visor.mjs)", () => {
  it("upgrades a devnet node hands-off under the visor and cleans up", { timeout: 120_000 }, async () => {
    const demo = runDemo();
    const code = await demo.exited;
    const out = demo.output();
    expect(code, out).toBe(0);
    const H = /Propose the upgrade "v2" at height (\d+)/.exec(out)?.[1];
    expect(H, out).toMatch(/^\d+$/);
    for (const text of [
      "$ xupgrade visor init $WORK/release/v1/xupgraded",
      'the current symlink points to: "$DAEMON_HOME/cosmovisor/genesis/bin/xupgraded"',
      "visor   │ ",
      "node v1 │ serving: rpc http://127.0.0.1:",
      "$ xupgrade visor show-upgrade-info",
      "ready:    yes (downloaded binaries[",
      `node v1 │ UPGRADE "v2" NEEDED at height: ${H}: {"binaries":{`,
      "the node exited exit_code=20",
      "starting to take backup of data directory",
      "backup saved at $DAEMON_HOME/data-backup-",
      "no upgrade binary found, beginning to download it",
      "checksum verified algo=sha256",
      "pre-upgrade result attempt=1 exit_code=0",
      "pre-upgrade successful. continuing the upgrade.",
      `current now points to upgrades/v2 upgrade=v2 height=${H}`,
      "upgrade detected, relaunching app=xupgraded",
      `node v2 │ upgrade applied at height ${H}`,
      `"height": "${H}",`,
      "upgrades/v2",
      "received SIGTERM, forwarding it to the child process",
      "the visor exited with code 0",
      "Done in ",
    ]) {
      expect(out).toContain(text);
    }
    expect(out).not.toMatch(/demo failed| ERR |warning/);
    await expectNoTrace(out);
  });

  it("Ctrl-C (SIGINT to the process group) stops the visor and its node and removes everything; exit 130", { timeout: 60_000 }, async () => {
    const demo = runDemo();
    await waitUntil(() => demo.output().includes("node v1 │ serving"), 40_000, "the node under the visor");
    process.kill(-demo.pid, "SIGINT");
    expect(await demo.exited).toBe(130);
    await expectNoTrace(demo.output());
  });
});
