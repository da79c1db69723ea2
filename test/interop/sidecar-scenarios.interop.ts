/**
 * cosmovisor's open bugs as scenarios, side by side (docs/spec/interop.md §12, support/scenarios.ts): each
 * scenario puts the same devnet node (a copy of the same snapshot: support/scenario-chain.ts) in the same
 * situation under cosmovisor v1.5.0 and under `xupgrade visor`, and records what each did. The visor must end
 * on the right binary at the right height with the data intact in every one: `current` → `upgrades/v2`, the
 * plan's own binary (its sha256) running, `upgrade applied` at the plan's height and the blocks after it.
 *
 * Nothing is timed: the node binaries wait on files the test removes (a binary held at its start, a custom
 * pre-upgrade held until the supervisor is killed), and v1 stays up after its halt as a Go chain does, so
 * each supervisor meets one interleaving only. SC-6's cosmovisor half is cosmovisor-devnet.interop.ts's
 * second test (the exit driven into cosmovisor's poll).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, readlinkSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtCliMain, removeTempDirs, runCli, tempDir } from "../apps/cli/helpers.js";
import { httpServer, type TestServer } from "../support/http.js";
import { spawnCollected, type CollectedChild } from "../support/child.js";
import { processesMentioning } from "../support/processes.js";
import { waitUntil } from "../support/wait.js";
import { interopPeers } from "./support/peers.js";
import { GOARCH, GOOS } from "./support/release.js";
import { copyHome, DAEMON, makeScenarioChain, nodeBinary, starts, type ScenarioChain } from "./support/scenario-chain.js";
import { SCENARIOS } from "./support/scenarios.js";
import { parseLog, runOk, stopChild, track, type SimdLog } from "./support/simd.js";

const peers = interopPeers();
type Sup = "cosmovisor" | "visor";
const SUPS: Sup[] = ["cosmovisor", "visor"];

let chain: ScenarioChain;
let server: TestServer;
const bins: Record<string, string> = {};
let v2Sha = "";
/** What each supervisor did in each scenario, printed at the end (the docs' table is written from it). */
const observed: Record<string, Partial<Record<Sup, unknown>>> = {};

function kill(home: string): void {
  for (const pid of processesMentioning(home)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

beforeAll(async () => {
  const dir = tempDir("xupgrade-scenario-bins-");
  bins.v1 = nodeBinary(dir, "v1");
  bins.v1exit = nodeBinary(dir, "v1", { label: "v1", stayUp: false });
  bins.v2 = nodeBinary(dir, "v2");
  bins.v2rc = nodeBinary(dir, "v2", { label: "v2-rc1" });
  const v2bytes = readFileSync(bins.v2);
  v2Sha = createHash("sha256").update(v2bytes).digest("hex");
  server = await httpServer((req, res) => {
    if ((req.url ?? "").split("?")[0] !== `/${DAEMON}-v2`) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { "content-length": v2bytes.length });
    res.end(req.method === "HEAD" ? undefined : v2bytes);
  });
  const info = JSON.stringify({ binaries: { [`${GOOS}/${GOARCH}`]: `${server.url}/${DAEMON}-v2?checksum=sha256:${v2Sha}` } });
  chain = await makeScenarioChain(info);
}, 600_000);

afterAll(async () => {
  await server?.close();
  console.log(`sidecar scenarios (plan v2 at ${chain?.height}):\n${JSON.stringify(observed, null, 2)}`);
  removeTempDirs();
});

const env = (home: string, ctl: string, extra: Record<string, string> = {}): Record<string, string> => ({
  DAEMON_HOME: home,
  DAEMON_NAME: DAEMON,
  DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
  DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
  DAEMON_RESTART_AFTER_UPGRADE: "true",
  DAEMON_POLL_INTERVAL: "300ms",
  DAEMON_SHUTDOWN_GRACE: "10s",
  UNSAFE_SKIP_BACKUP: "false",
  COSMOVISOR_COLOR_LOGS: "false",
  XUPGRADED_CTL: ctl,
  ...extra,
});

async function setup(sup: Sup, e: Record<string, string>, steps: string[][]): Promise<void> {
  for (const args of steps) {
    if (sup === "visor") {
      const r = await runCli(["visor", ...args], { env: e });
      if (r.code !== 0) throw new Error(`xupgrade visor ${args[0]} failed: ${r.stderr}`);
    } else await runOk(peers.cosmovisor, args, { env: e });
  }
}

function start(sup: Sup, home: string, e: Record<string, string>): CollectedChild<SimdLog> {
  // The node's arguments: the wrapper is `xupgrade devnet start --app … "$@"`.
  const cmd = sup === "visor" ? [process.execPath, builtCliMain(), "visor", "run", "--home", home] : [peers.cosmovisor, "run", "--home", home];
  return track(
    spawnCollected<SimdLog>("sh", ["-c", 'exec "$0" "$@" 2>&1', ...cmd], {
      env: e,
      parse: parseLog,
      echo: process.env.XUPGRADE_TEST_LOGS === "1" ? sup : undefined,
    }),
  );
}

/** `current` relative to the root (cosmovisor writes absolute links). */
const current = (home: string): string => relative(join(home, "cosmovisor"), resolve(join(home, "cosmovisor"), readlinkSync(join(home, "cosmovisor/current"))));
const backups = (home: string): number => readdirSync(home).filter((n) => n.startsWith("data-backup-")).length;
const text = (c: CollectedChild<SimdLog>) => c.records.map((r) => r.message).join("\n");

/** The new binary applied the plan at its height and committed the block after: the right height, the data intact. */
async function appliedAtHeight(c: CollectedChild<SimdLog>, since = 0): Promise<void> {
  const applied = await c.waitFor((r) => r.at > since && r.message === "upgrade applied", 120_000);
  expect(Number(applied.height)).toBe(chain.height);
  expect(applied.module_versions).toMatchObject({ counter: "2", notes: "2", tags: "1" });
  await c.waitFor((r) => r.at > applied.at && r.message === "committed block" && Number(r.height) === chain.height + 1, 60_000);
}

/** The visor's common end: the plan's own binary behind `current`, applied at H. */
function expectRightBinary(home: string): void {
  expect(current(home)).toBe("upgrades/v2");
  expect(
    createHash("sha256")
      .update(readFileSync(join(home, "cosmovisor/upgrades/v2/bin", DAEMON)))
      .digest("hex"),
  ).toBe(v2Sha);
}

const scenario = (key: string) => SCENARIOS.find((s) => s.key === key)!;

describe("cosmovisor's open bugs, side by side (docs/spec/interop.md §12)", () => {
  it(`SC-1 ${scenario("SC-1").situation}`, async () => {
    for (const sup of SUPS) {
      const { home, ctl } = copyHome(chain.halted, `sc1-${sup}`);
      const e = env(home, ctl);
      await setup(sup, e, [
        ["init", bins.v1],
        ["add-upgrade", "v2", bins.v2],
      ]);
      writeFileSync(
        join(home, "cosmovisor/hold.sh"),
        `#!/bin/sh\ntouch "$XUPGRADED_CTL/holding-custom"\nwhile [ -e "$XUPGRADED_CTL/hold-custom" ]; do sleep 0.05; done\n`,
        { mode: 0o755 },
      );
      writeFileSync(join(ctl, "hold-custom"), "");
      const first = start(sup, home, { ...e, COSMOVISOR_CUSTOM_PREUPGRADE: "hold.sh" });
      try {
        await waitUntil(() => existsSync(join(ctl, "holding-custom")), 120_000, `${sup}: the custom pre-upgrade`);
        kill(home); // the sidecar and everything it started, at once
        await first.exited;
      } finally {
        kill(home);
      }
      expect(current(home)).toBe("genesis");
      const mark = starts(ctl).length;
      const again = start(sup, home, e);
      try {
        await appliedAtHeight(again);
        const after = starts(ctl).slice(mark);
        observed["SC-1"] = { ...observed["SC-1"], [sup]: { startsAfterRestart: after, backups: backups(home) } };
        if (sup === "cosmovisor") expect(after).toEqual(["v1", "pre-upgrade v2", "v2"]);
        else {
          expect(after).toEqual(["pre-upgrade v2", "v2"]);
          expect(text(again)).toContain('pending upgrade "v2" at height');
          expectRightBinary(home);
        }
      } finally {
        await stopChild(again, 15_000);
        kill(home);
      }
    }
  }, 600_000);

  it(`SC-2 ${scenario("SC-2").situation}`, async () => {
    for (const sup of SUPS) {
      const { home, ctl } = copyHome(chain.halted, `sc2-${sup}`);
      const e = env(home, ctl);
      await setup(sup, e, [
        ["init", bins.v1],
        ["add-upgrade", "v2", bins.v2],
      ]);
      writeFileSync(join(ctl, "hold-v2"), "");
      const first = start(sup, home, e);
      let exit: number | string;
      try {
        await waitUntil(() => existsSync(join(ctl, "holding-v2")), 120_000, `${sup}: v2 started`);
        const node = processesMentioning(join(home, "cosmovisor/upgrades/v2/bin", DAEMON)); // this home's, not another suite's
        expect(node.length).toBeGreaterThan(0);
        for (const pid of node) process.kill(pid, "SIGKILL");
        exit = await first.exited;
      } finally {
        await stopChild(first, 5000);
      }
      expect(current(home)).toBe("upgrades/v2");
      rmSync(join(ctl, "hold-v2"));
      const mark = starts(ctl).length;
      const again = start(sup, home, e);
      try {
        await appliedAtHeight(again);
        const after = starts(ctl).slice(mark);
        observed["SC-2"] = { ...observed["SC-2"], [sup]: { exitWhenTheNodeWasKilled: exit, startsAfterRestart: after, backups: backups(home) } };
        expect(exit).toBe(sup === "cosmovisor" ? 1 : 137);
        expect(after).toEqual(["v2"]);
        expect(backups(home)).toBe(1);
        if (sup === "visor") expectRightBinary(home);
      } finally {
        await stopChild(again, 15_000);
        kill(home);
      }
    }
  }, 600_000);

  it(`SC-3 ${scenario("SC-3").situation}`, async () => {
    for (const sup of SUPS) {
      const { home, ctl } = copyHome(chain.halted, `sc3-${sup}`);
      const e = env(home, ctl);
      await setup(sup, e, [
        ["init", bins.v1],
        ["add-upgrade", "v2", bins.v2],
      ]);
      const file = join(home, "data/upgrade-info.json");
      truncateSync(file, Math.floor(readFileSync(file).length / 2));
      writeFileSync(join(ctl, "hold-v1"), ""); // the old binary cannot rewrite the file yet
      if (sup === "cosmovisor") {
        // v1 is held, so the only reader is cosmovisor's poller (unheld, v1 could not start either: its keeper reads the file at start).
        const exits: (number | string)[] = [];
        for (let i = 0; i < 2; i++) {
          const c = start(sup, home, e);
          exits.push(await c.exited);
          expect(text(c)).toContain("failed to parse upgrade info file: unexpected end of JSON input");
          kill(home);
        }
        expect(exits).toEqual([2, 2]);
        expect(current(home)).toBe("genesis");
        observed["SC-3"] = { ...observed["SC-3"], cosmovisor: { exits, current: current(home) } };
        continue;
      }
      const c = start(sup, home, e);
      try {
        await c.waitFor((r) => r.message.includes("the unreadable upgrade-info.json was moved to"), 120_000);
        expect(existsSync(join(home, "cosmovisor/upgrade-info.json.unreadable"))).toBe(true);
        await waitUntil(() => existsSync(join(ctl, "holding-v1")), 60_000, "v1 held");
        rmSync(join(ctl, "hold-v1"));
        await appliedAtHeight(c);
        expect(starts(ctl)).toEqual(["v1", "pre-upgrade v2", "v2"]);
        expectRightBinary(home);
        observed["SC-3"] = { ...observed["SC-3"], visor: { starts: starts(ctl) } };
      } finally {
        await stopChild(c, 15_000);
        kill(home);
      }
    }
  }, 600_000);

  it(`SC-4 ${scenario("SC-4").situation}`, async () => {
    for (const sup of SUPS) {
      const { home, ctl } = copyHome(chain.halted, `sc4-${sup}`);
      const e = env(home, ctl);
      await setup(sup, e, [
        ["init", bins.v1],
        ["add-upgrade", "v2", bins.v2rc],
      ]);
      const c = start(sup, home, e);
      try {
        await appliedAtHeight(c);
        observed["SC-4"] = { ...observed["SC-4"], [sup]: { starts: starts(ctl) } };
        if (sup === "cosmovisor") expect(starts(ctl)).toEqual(["v1", "pre-upgrade v2-rc1", "v2-rc1"]);
        else {
          expect(starts(ctl)).toEqual(["pre-upgrade v2", "v2"]);
          expect(text(c)).toMatch(/is not the one the plan's info names for .*: it was staged for another plan; moved aside, downloading the plan's own/);
          expectRightBinary(home);
        }
      } finally {
        await stopChild(c, 15_000);
        kill(home);
      }
    }
  }, 600_000);

  it(`SC-5 ${scenario("SC-5").situation}`, async () => {
    for (const sup of SUPS) {
      const { home, ctl } = copyHome(chain.upgraded, `sc5-${sup}`);
      const e = env(home, ctl);
      await setup(sup, e, [
        ["init", bins.v1],
        ["add-upgrade", "v2", bins.v2],
      ]);
      const c = start(sup, home, e);
      try {
        // v2 goes on from the snapshot (it applied the plan before the snapshot was taken).
        await c.waitFor((r) => r.message === "committed block" && Number(r.height) > chain.height + 4, 120_000);
        observed["SC-5"] = { ...observed["SC-5"], [sup]: { starts: starts(ctl), backups: backups(home) } };
        expect(current(home)).toBe("upgrades/v2");
        if (sup === "cosmovisor") {
          expect(starts(ctl)).toEqual(["v1", "pre-upgrade v2", "v2"]);
          expect(backups(home)).toBe(1);
        } else {
          expect(starts(ctl)).toEqual(["v2"]);
          expect(backups(home)).toBe(0);
          expect(text(c)).toMatch(
            /start: found upgrade-info\.json=v2@\d+ current=genesis switched=no done=no staged=yes committed=\d+; pointing current at "v2"/,
          );
          expectRightBinary(home);
        }
      } finally {
        await stopChild(c, 15_000);
        kill(home);
      }
    }
  }, 600_000);

  it(`SC-6 ${scenario("SC-6").situation} — the visor's half`, async () => {
    const { home, ctl } = copyHome(chain.before, "sc6-visor");
    const e = env(home, ctl);
    await setup("visor", e, [["init", bins.v1exit]]);
    const c = start("visor", home, e);
    try {
      await appliedAtHeight(c);
      expect(starts(ctl)).toEqual(["v1", "pre-upgrade v2", "v2"]);
      expectRightBinary(home); // downloaded: nothing was staged
      observed["SC-6"] = { visor: { starts: starts(ctl) } };
    } finally {
      await stopChild(c, 15_000);
      kill(home);
    }
  }, 600_000);
});
