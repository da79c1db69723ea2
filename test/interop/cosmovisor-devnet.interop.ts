/**
 * The real cosmovisor v1.5.0 supervising the xupgrade devnet through its upgrade (live only;
 * docs/spec/interop.md §10): the node binary `xupgraded` is a wrapper around `xupgrade devnet start --app
 * examples/apps/v1|v2` (as examples/demo-visor.mjs makes it), v2 is a tarball on loopback named in Plan.Info.
 * The devnet's keeper writes upgrade-info.json at the halt and exits 20; cosmovisor must read the file, back
 * up, download and verify v2, run its pre-upgrade, switch and restart it; v2 applies the upgrade and the chain
 * goes on. Our file and layout are the only contract between the two.
 *
 * cosmovisor learns of the upgrade in one of two ways (its process.go, WaitForUpgradeOrExit): its poller
 * (every DAEMON_POLL_INTERVAL, fileWatcher.CheckUpdate) sees the file while the node runs and kills it, or the
 * node exits first and the exit path calls CheckUpdate once more. Each test fixes one interleaving, so each
 * has one right answer:
 *
 * - the node stays up after the halt (as simd does: its CometBFT stops consensus, not the process) → the
 *   poller sees the file: the upgrade;
 * - the node exits 20 while the poller is inside CheckUpdate → cosmovisor v1.5.0 MISSES the upgrade and exits
 *   with `exit status 20`: the poller and the exit path share the fileWatcher's fields without a lock, and
 *   the exit path finds the plan already recorded as seen. Started again with no poll in the way, the node
 *   halts again on the replayed block, exits 20, and the exit path alone finds the file: the upgrade.
 *
 * The interleaving is made with the node's `status` command, which cosmovisor runs inside CheckUpdate
 * (checkHeight) after it has parsed the file and before it records the plan: the wrapper holds the poller's
 * probe until the exit path's own probe has started. Nothing is timed but one margin: the exit path's probe
 * returns 2 s after the poller's, for the poller's goroutine to run its few lines of Go.
 *
 * (cosmovisor v1.5.0 has no `prepare-upgrade`, the command of v1.7 that reads the plan over gRPC
 * CurrentPlan; v1.6 and v1.7 are not served by this machine's module proxy. See test/peers/README.md.)
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runCli, stageCli, tempDir, type CliResult } from "../apps/cli/helpers.js";
import { spawnCollected, type CollectedChild } from "../support/child.js";
import { processesMentioning } from "../support/processes.js";
import { interopPeers } from "./support/peers.js";
import { serveRelease, type Release } from "./support/release.js";
import { childLines, devnetStartCommand, shellQuote, STAY_UP_AFTER_HALT } from "./support/node-wrapper.js";
import { parseLog, runOk, stopChild, track, type SimdLog } from "./support/simd.js";

const peers = interopPeers();
const DAEMON = "xupgraded";
const releases: Release[] = [];
const homes: string[] = [];

afterAll(async () => {
  for (const r of releases) await r.close();
  for (const pid of homes.flatMap((h) => processesMentioning(h))) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  removeTempDirs();
});

function ok(r: CliResult): CliResult {
  if (r.code !== 0) throw new Error(`xupgrade exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** How the v1 node's wrapper behaves at the halt (the devnet itself always exits 20 right after writing the file). */
type Halt =
  /** the wrapper stays up after the devnet's exit 20 until cosmovisor stops it, as a halted simd does */
  | "stay-up"
  /** while `<probes>/armed` exists: the wrapper exits 20 once cosmovisor's poller is inside CheckUpdate, and
   * holds that probe until the exit path's probe has started; without it, exit 20 at once */
  | "exit-during-poll";

const q = shellQuote;

/** The node binary of one app version: the devnet with examples/apps/<version> (demo-visor's wrapper). */
function nodeBinary(dir: string, version: string, o: { halt?: Halt; home?: string; probes?: string } = {}): string {
  const path = join(dir, `${DAEMON}-${version}`);
  const start = devnetStartCommand(version);
  const probes = o.probes ?? "";
  const info = o.home ? join(o.home, "data/upgrade-info.json") : "";
  const status =
    o.halt === "exit-during-poll"
      ? [
          "  status)",
          // cosmovisor runs `<daemon> status` inside CheckUpdate, after parsing the file and before recording the
          // plan; an error skips its height check. The first probe that finds the file is the poller's (the node
          // has not exited yet): it is held until the exit path's probe starts, then returns at once; the exit
          // path's returns 2 s later, when the poller has recorded the plan.
          `    if [ -e ${q(`${probes}/armed`)} ] && [ -e ${q(info)} ]; then`,
          `      if mkdir ${q(`${probes}/poller`)} 2>/dev/null; then`,
          `        until [ -e ${q(`${probes}/exit-path`)} ]; do sleep 0.05; done`,
          `        touch ${q(`${probes}/poller-returned`)}`,
          "      else",
          `        mkdir -p ${q(`${probes}/exit-path`)}`,
          `        until [ -e ${q(`${probes}/poller-returned`)} ]; do sleep 0.05; done`,
          "        sleep 2",
          "      fi",
          "    fi",
          "    exit 1 ;;",
        ]
      : [
          // Without this it would start the whole CLI only to be told "unknown command" (~250 ms inside cosmovisor's check).
          "  status) exit 1 ;;",
        ];
  const run =
    o.halt === undefined
      ? [`exec ${start}`]
      : childLines(
          start,
          o.halt === "stay-up"
            ? [STAY_UP_AFTER_HALT]
            : [`if [ "$code" = 20 ] && [ -e ${q(`${probes}/armed`)} ]; then until [ -e ${q(`${probes}/poller`)} ]; do sleep 0.05; done; fi`],
        );
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# ${DAEMON} ${version}: the xupgrade devnet running examples/apps/${version}`,
      'case "$1" in',
      `  pre-upgrade) echo "${DAEMON} ${version}: pre-upgrade: nothing to do"; exit 0 ;;`,
      `  version) echo "${DAEMON} ${version}"; exit 0 ;;`,
      ...status,
      "esac",
      ...run,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return path;
}

interface Chain {
  work: string;
  home: string;
  probes: string;
  release: Release;
  env: Record<string, string>;
  kr: string[];
}

/** A one-validator devnet under `cosmovisor init`, with v2 served as a tarball. */
async function setUp(label: string, halt: Halt): Promise<Chain> {
  const work = tempDir(`xupgrade-interop-cv-${label}-`);
  const home = join(work, "node");
  const probes = join(work, "probes");
  mkdirSync(probes);
  homes.push(home);
  const env = {
    DAEMON_HOME: home,
    DAEMON_NAME: DAEMON,
    DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
    DAEMON_RESTART_AFTER_UPGRADE: "true",
    DAEMON_POLL_INTERVAL: "300ms",
    UNSAFE_SKIP_BACKUP: "false",
    COSMOVISOR_COLOR_LOGS: "false",
  };
  const kr = ["--keyring-backend", "test", "--home", home];
  ok(
    await runCli([
      "devnet",
      "init",
      "--home",
      home,
      "--validators",
      "1",
      "--voting-period",
      "4s",
      "--deposit-period",
      "4s",
      "--block-time",
      "100ms",
      "--rpc",
      "127.0.0.1:0",
      "--rest",
      "127.0.0.1:0",
      "--grpc",
      "127.0.0.1:0",
    ]),
  );
  ok(await runCli(["keys", "import-genesis", ...kr]));
  const v1 = nodeBinary(work, "v1", { halt, home, probes });
  const release = await serveRelease(nodeBinary(work, "v2"), { name: DAEMON, label: `${DAEMON}-v2`, cache: false });
  releases.push(release);
  await runOk(peers.cosmovisor, ["init", v1], { env });
  return { work, home, probes, release, env, kr };
}

function startCosmovisor(c: Chain, env: Record<string, string> = {}): CollectedChild<SimdLog> {
  return track(
    spawnCollected<SimdLog>("sh", ["-c", 'exec "$0" "$@" 2>&1', peers.cosmovisor, "run", "--home", c.home], {
      env: { ...c.env, ...env },
      parse: parseLog,
      echo: process.env.XUPGRADE_TEST_LOGS === "1" ? "cosmovisor" : undefined,
    }),
  );
}

/**
 * Schedules `v2` through gov on the node cosmovisor runs; resolves with the plan's height once the v1 node halted
 * there, and how often the tarball had been fetched by then (the CLI fetches it to check Plan.Info's checksum).
 */
async function upgradeToHalt(c: Chain, cv: CollectedChild<SimdLog>): Promise<{ height: number; halt: SimdLog; fetched: number }> {
  const serving = await cv.waitFor((r) => r.message === "serving", 60_000);
  const rpc = String(serving.rpc);
  // The vote is staged before the proposal exists (stageCli): the 4 s voting period holds its broadcast only.
  const ballot = stageCli(["tx", "gov", "vote", "1", "yes", "--from", "validator0", ...c.kr, "--node", rpc, "-o", "json"]);
  await ballot.ready;
  const status = (await (await fetch(`${rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
  // At 100 ms blocks: the submission (a CLI start, seconds on a busy machine), 4 s of voting, and room.
  const height = Number(status.result.sync_info.latest_block_height) + 150;
  const submit = await runCli([
    "tx",
    "upgrade",
    "software-upgrade",
    "v2",
    "--upgrade-height",
    String(height),
    "--upgrade-info",
    c.release.info,
    "--daemon-name",
    DAEMON,
    "--title",
    "v2",
    "--summary",
    "under cosmovisor",
    "--deposit",
    "10000000stake",
    "--from",
    "alice",
    ...c.kr,
    "--node",
    rpc,
    "-y",
    "-o",
    "json",
  ]);
  if (submit.code !== 0) await ballot.cancel();
  expect((JSON.parse(ok(submit).stdout) as { proposal_id: string }).proposal_id).toBe("1");
  const fetched = c.release.downloads();
  ok(await ballot.confirm());
  const halt = await cv.waitFor((r) => r.message.startsWith(`UPGRADE "v2" NEEDED at height: ${height}: `), 120_000);
  const info = readFileSync(join(c.home, "data/upgrade-info.json"), "utf8");
  expect(JSON.parse(info)).toEqual({ name: "v2", time: "0001-01-01T00:00:00Z", height, info: c.release.info });
  return { height, halt, fetched };
}

/** After the halt at `height` (logged at `since`): cosmovisor backed up, downloaded, switched, and v2 applied the upgrade. */
async function expectUpgraded(c: Chain, cv: CollectedChild<SimdLog>, height: number, since: number, fetched: number): Promise<void> {
  const applied = await cv.waitFor((r) => r.at > since && r.message === "upgrade applied", 120_000);
  const relaunch = cv.records.find((r) => r.at > since && r.message.includes("upgrade detected, relaunching"));
  expect(relaunch, "cosmovisor's relaunch line").toBeDefined();
  const served = await cv.waitFor((r) => r.at > since && r.message === "serving", 60_000);
  expect(Number(applied.height)).toBe(height);

  const query = ok(await runCli(["query", "upgrade", "applied", "v2", "--node", String(served.rpc)]));
  expect(JSON.parse(query.stdout).header.height).toBe(String(height));
  expect(readlinkSync(join(c.home, "cosmovisor/current"))).toBe(join(c.home, "cosmovisor/upgrades/v2"));
  expect(readdirSync(c.home).filter((n) => n.startsWith("data-backup-"))).toHaveLength(1);
  expect(c.release.downloads()).toBeGreaterThan(fetched);
  console.log(
    "cosmovisor over the devnet: " +
      cv.records
        .filter((r) => r.at >= since && /cosmovisor/.test(r.message))
        .map((r) => `+${Math.round(r.at - since)} ms ${r.message.replace(/^\S+ /, "").slice(0, 120)}`)
        .join("\n  "),
  );
}

const text = (cv: CollectedChild<SimdLog>) => cv.records.map((r) => r.message).join("\n");

describe("cosmovisor v1.5.0 supervising the xupgrade devnet through v1 → v2", () => {
  it("the node stays up after the halt: cosmovisor's poller sees upgrade-info.json, stops it, backs up, downloads, runs pre-upgrade, switches; v2 applies the upgrade", async () => {
    const c = await setUp("poll", "stay-up");
    // A grace period, so cosmovisor interrupts the wrapper (which waits for the devnet) instead of killing it.
    const cv = startCosmovisor(c, { DAEMON_SHUTDOWN_GRACE: "10s" });
    try {
      const { height, halt, fetched } = await upgradeToHalt(c, cv);
      await expectUpgraded(c, cv, height, halt.at, fetched);
      // The poller's path: cosmovisor stopped the node itself, it did not see it exit.
      expect(text(cv)).toContain("daemon shutting down in an attempt to restart");
      expect(text(cv)).not.toMatch(/exit status/);
    } finally {
      await stopChild(cv, 10_000);
    }
  }, 400_000);

  it("the node exits 20 while cosmovisor's poller checks the file: cosmovisor v1.5.0 misses the upgrade (exit status 20); started again, the exit path alone finds the file and upgrades", async () => {
    const c = await setUp("race", "exit-during-poll");
    let fetchedBefore: number;
    writeFileSync(join(c.probes, "armed"), "");
    const cv = startCosmovisor(c);
    try {
      const { height, fetched } = await upgradeToHalt(c, cv);
      fetchedBefore = fetched;
      // cosmovisor gives up: the node's status as its error, exit 1, nothing of the upgrade done.
      expect(await cv.exited).toBe(1);
      const out = text(cv);
      expect(out).toMatch(/exit status 20/);
      expect(out).not.toContain("daemon shutting down in an attempt to restart");
      expect(out).not.toContain("starting to take backup");
      // Both probes ran, in the order that makes the miss: the poller's held until the exit path's had started.
      expect(["poller", "exit-path", "poller-returned"].map((m) => existsSync(join(c.probes, m)))).toEqual([true, true, true]);
      expect(readlinkSync(join(c.home, "cosmovisor/current"))).toBe(join(c.home, "cosmovisor/genesis"));
      expect(readdirSync(c.home).filter((n) => n.startsWith("data-backup-"))).toEqual([]);
      expect(c.release.downloads()).toBe(fetched);
      expect(JSON.parse(readFileSync(join(c.home, "data/upgrade-info.json"), "utf8")).height).toBe(height);
    } finally {
      await stopChild(cv, 10_000);
    }

    // The operator starts it again. v1 replays to the height, halts and exits 20 at once; with no poll tick in
    // the way (a 1 h interval), cosmovisor's exit path re-checks the file and carries the upgrade out.
    rmSync(join(c.probes, "armed"));
    const again = startCosmovisor(c, { DAEMON_POLL_INTERVAL: "1h" });
    try {
      const halt = await again.waitFor((r) => r.message.startsWith(`UPGRADE "v2" NEEDED at height: `), 60_000);
      const height = Number(/at height: (\d+)/.exec(halt.message)![1]);
      await expectUpgraded(c, again, height, halt.at, fetchedBefore);
      expect(text(again)).not.toContain("daemon shutting down in an attempt to restart");
    } finally {
      await stopChild(again, 10_000);
    }
  }, 400_000);
});
