/**
 * `npm run demo:visor` end to end (docs/spec/sidecar.md §10.8): examples/demo-visor.mjs drives the real CLI (the
 * transpiled copy) — a devnet node under `xupgrade visor run`, the upgrade scheduled through the CLI with
 * the v2 binary as a tar.gz on a loopback HTTP server and its sha256 in Plan.Info — and the visor does the
 * halt, backup, download, verification, pre-upgrade, switch and restart hands-off. Nothing is left behind,
 * also when the demo is interrupted.
 *
 * The halt reaches the visor in one of two orders, both correct (docs/spec/sidecar.md §5): the v1 node exits 20
 * before the visor's next watch tick ("the node exited exit_code=20", then the re-check finds the file), or
 * the tick sees `upgrade-info.json` first ("upgrade "v2" needed at height H") and the visor stops the node.
 * The checks below hold in both; each process's lines are compared only with its own (the node's stdout and
 * the visor's stderr are two pipes, so the demo may interleave them either way).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, builtCliMain, removeTempDirs } from "../cli/helpers.js";
import { expectDemoLeftNothing, runDemo } from "../../support/demo.js";
import { waitUntil } from "./helpers.js";

afterAll(removeTempDirs);

const runVisorDemo = () => runDemo("demo-visor.mjs", { XUPGRADE_CLI: builtCliMain() });
const expectNoTrace = (out: string) => expectDemoLeftNothing(out, "WORK", /xupgrade-demo-visor-/, 5000);

/** The lines one process printed through the demo, in its own order: "visor", "node v1" or "node v2". */
function linesOf(out: string, who: "visor" | "node v1" | "node v2"): string[] {
  const lines: string[] = [];
  for (const m of out.matchAll(/^ {2}(visor|node v\d) *│ (.*)$/gm)) if (m[1] === who) lines.push(m[2]);
  return lines;
}

/** Each pattern matches a line after the previous pattern's line; returns the matched lines' indices. */
function expectInOrder(lines: string[], patterns: (string | RegExp)[], who: string): number[] {
  const at: number[] = [];
  let from = 0;
  for (const p of patterns) {
    const i = lines.findIndex((l, j) => j >= from && (typeof p === "string" ? l.includes(p) : p.test(l)));
    expect(i, `${who}: ${String(p)} after line ${from} of:\n${lines.join("\n")}`).toBeGreaterThanOrEqual(0);
    at.push(i);
    from = i + 1;
  }
  return at;
}

/**
 * What must hold from the halt at height `h` to the stop, in every interleaving: the v1 node halted at h (its
 * `UPGRADE … NEEDED` comes after writing the file, and nothing of block h was committed); the visor noticed it
 * exactly once, by the node's exit 20 or by the file, then ran the pipeline in its order and started v2; v2
 * applied the upgrade at h and the chain resumed; SIGTERM stopped both with 0.
 */
function expectUpgradeAt(out: string, h: number): void {
  const v1 = linesOf(out, "node v1");
  expectInOrder(v1, [`UPGRADE "v2" NEEDED at height: ${h}: {"binaries":{`], "node v1");
  for (const l of v1.filter((l) => l.startsWith("stopped at height"))) expect(l).toBe(`stopped at height ${h - 1}, exit code 20`);

  const visor = linesOf(out, "visor");
  const exited = visor.filter((l) => l.includes("the node exited exit_code=20"));
  const watched = visor.filter((l) => l.includes(`upgrade "v2" needed at height ${h}`));
  expect(exited.length + watched.length, `the visor notices the halt once, by the exit or by the file:\n${visor.join("\n")}`).toBe(1);
  expect(visor.join("\n")).not.toMatch(/the node exited exit_code=(?!20\b)/);
  expectInOrder(
    visor,
    [
      "starting the node bin=$DAEMON_HOME/cosmovisor/genesis/bin/xupgraded",
      exited.length === 1 ? "the node exited exit_code=20" : `upgrade "v2" needed at height ${h}`,
      `upgrading to "v2" height=${h}`,
      "no upgrade binary found, beginning to download it",
      "checksum verified algo=sha256",
      "starting to take backup of data directory",
      "backup saved at $DAEMON_HOME/data-backup-",
      "pre-upgrade result attempt=1 exit_code=0",
      "pre-upgrade successful. continuing the upgrade.",
      `current now points to upgrades/v2 upgrade=v2 height=${h}`,
      "upgrade detected, relaunching app=xupgraded",
      "starting the node bin=$DAEMON_HOME/cosmovisor/upgrades/v2/bin/xupgraded",
      "received SIGTERM, forwarding it to the child process",
      "the node stopped after a forwarded signal exit_code=0",
    ],
    "visor",
  );

  const v2 = linesOf(out, "node v2");
  expectInOrder(
    v2,
    [
      `applying upgrade "v2" at height: ${h}`,
      `upgrade applied at height ${h}`,
      `committed block ${h} `,
      `committed block ${h + 1} `,
      `committed block ${h + 2} `,
      /^stopped at height \d+, exit code 0$/,
    ],
    "node v2",
  );
  const stoppedAt = Number(/^stopped at height (\d+)/.exec(v2.at(-1) ?? "")?.[1]);
  expect(stoppedAt).toBeGreaterThanOrEqual(h + 2);
}

describe("the demo's halt checks", () => {
  // Real transcripts (the processes' lines of steps 4–9), one of each order (the second recorded with the v1 node's exit delayed by 1.5 s).
  for (const [order, file] of [
    ["the node exits 20 before the visor's tick sees the file", "demo-halt-exit.txt"],
    ["the visor's tick sees the file and stops the node", "demo-halt-watch.txt"],
  ]) {
    it(`accept ${order}`, () => {
      const out = readFileSync(join(ROOT, "test/apps/visor/fixtures", file), "utf8");
      const h = Number(/UPGRADE "v2" NEEDED at height: (\d+)/.exec(out)?.[1]);
      expectUpgradeAt(out, h);
      expect(() => expectUpgradeAt(out, h + 1)).toThrow();
    });
  }

  it("refuse a transcript where the visor never noticed the halt", () => {
    const out = readFileSync(join(ROOT, "test/apps/visor/fixtures/demo-halt-exit.txt"), "utf8");
    expect(() => expectUpgradeAt(out.replace(/^.*the node exited exit_code=20.*\n/m, ""), 122)).toThrow(/notices the halt once/);
  });
});

describe("npm run demo:visor (examples/demo-visor.mjs)", () => {
  it("upgrades a devnet node hands-off under the visor and cleans up", { timeout: 120_000 }, async () => {
    const demo = runVisorDemo();
    const code = await demo.exited;
    const out = demo.output();
    expect(code, out).toBe(0);
    const H = /Propose the upgrade "v2" at height (\d+)/.exec(out)?.[1];
    expect(H, out).toMatch(/^\d+$/);
    for (const text of [
      "$ xupgrade visor init $WORK/release/v1/xupgraded",
      'the current symlink points to: "$DAEMON_HOME/cosmovisor/genesis/bin/xupgraded"',
      "node v1 │ serving: rpc http://127.0.0.1:",
      "$ xupgrade visor show-upgrade-info",
      "ready:    yes (downloaded binaries[",
      `"height": "${H}",`,
      "upgrades/v2",
      "the visor exited with code 0",
      "Done in ",
    ]) {
      expect(out).toContain(text);
    }
    expectUpgradeAt(out, Number(H));
    expect(out).not.toMatch(/demo failed| ERR |warning/);
    await expectNoTrace(out);
  });

  it("Ctrl-C (SIGINT to the process group) stops the visor and its node and removes everything; exit 130", { timeout: 60_000 }, async () => {
    const demo = runVisorDemo();
    await waitUntil(() => demo.output().includes("node v1 │ serving"), 40_000, "the node under the visor");
    process.kill(-demo.pid, "SIGINT");
    expect(await demo.exited).toBe(130);
    await expectNoTrace(demo.output());
  });
});
