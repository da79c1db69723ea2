/**
 * The real cosmovisor v1.5.0 supervising the xupgrade devnet through its upgrade (live only;
 * docs/spec/interop.md §9): the node binary `xupgraded` is a wrapper around `xupgrade devnet start --app
 * examples/apps/v1|v2` (as examples/demo-visor.mjs makes it), v2 is a tarball on loopback named in Plan.Info.
 * The devnet's keeper writes upgrade-info.json at the halt (exit 20), and cosmovisor must read it, back up,
 * download and verify v2, run its pre-upgrade, switch and restart it; v2 applies the upgrade and the chain
 * goes on. Our file and layout are the only contract between the two.
 *
 * (cosmovisor v1.5.0 has no `prepare-upgrade`, the command of v1.7 that reads the plan over gRPC
 * CurrentPlan; v1.6 and v1.7 are not served by this machine's module proxy. See test/peers/README.md.)
 */
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtCliMain, removeTempDirs, runCli, tempDir, type CliResult } from "../apps/cli/helpers.js";
import { spawnCollected } from "../support/child.js";
import { ROOT } from "../support/paths.js";
import { processesMentioning } from "../support/processes.js";
import { interopPeers } from "./support/peers.js";
import { serveRelease, type Release } from "./support/release.js";
import { parseLog, runOk, stopChild, track, type SimdLog } from "./support/simd.js";

const peers = interopPeers();
const DAEMON = "xupgraded";
let release: Release | undefined;
let home = "";

afterAll(async () => {
  await release?.close();
  for (const pid of home ? processesMentioning(home) : []) {
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

/** The node binary of one app version: the devnet with examples/apps/<version> (demo-visor's wrapper). */
function nodeBinary(dir: string, version: string): string {
  const path = join(dir, `${DAEMON}-${version}`);
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# ${DAEMON} ${version}: the xupgrade devnet running examples/apps/${version}`,
      'case "$1" in',
      `  pre-upgrade) echo "${DAEMON} ${version}: pre-upgrade: nothing to do"; exit 0 ;;`,
      `  version) echo "${DAEMON} ${version}"; exit 0 ;;`,
      // cosmovisor probes `<daemon> status` inside its upgrade check; without this it would start the whole CLI
      // only to be told "unknown command" (~250 ms spent inside cosmovisor's check).
      "  status) exit 1 ;;",
      "esac",
      `exec '${process.execPath}' '${builtCliMain()}' devnet start --app '${join(ROOT, "examples/apps", version)}' "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return path;
}

describe("cosmovisor v1.5.0 supervising the xupgrade devnet through v1 → v2", () => {
  it("the devnet's upgrade-info.json and layout satisfy cosmovisor: backup, download, pre-upgrade, switch, v2 applies the upgrade", async () => {
    const work = tempDir("xupgrade-interop-cv-devnet-");
    home = join(work, "node");
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
        "devnet", "init", "--home", home, "--validators", "1", "--voting-period", "4s", "--deposit-period", "4s", "--block-time", "100ms",
        "--rpc", "127.0.0.1:0", "--rest", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
      ]),
    );
    ok(await runCli(["keys", "import-genesis", ...kr]));
    const v1 = nodeBinary(work, "v1");
    release = await serveRelease(nodeBinary(work, "v2"), { name: DAEMON, label: `${DAEMON}-v2`, cache: false });
    await runOk(peers.cosmovisor, ["init", v1], { env });

    const cv = track(
      spawnCollected<SimdLog>("sh", ["-c", 'exec "$0" "$@" 2>&1', peers.cosmovisor, "run", "--home", home], {
        env,
        parse: parseLog,
        echo: process.env.XUPGRADE_TEST_LOGS === "1" ? "cosmovisor" : undefined,
      }),
    );
    try {
      const serving = await cv.waitFor((r) => r.message === "serving", 60_000);
      const rpc = String(serving.rpc);
      const status = (await (await fetch(`${rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
      const height = Number(status.result.sync_info.latest_block_height) + 80; // 4 s of voting at 100 ms blocks, with room
      const submit = ok(
        await runCli([
          "tx", "upgrade", "software-upgrade", "v2", "--upgrade-height", String(height), "--upgrade-info", release.info, "--daemon-name", DAEMON,
          "--title", "v2", "--summary", "under cosmovisor", "--deposit", "10000000stake", "--from", "alice", ...kr, "--node", rpc, "-y", "-o", "json",
        ]),
      );
      const id = (JSON.parse(submit.stdout) as { proposal_id: string }).proposal_id;
      ok(await runCli(["tx", "gov", "vote", id, "yes", "--from", "validator0", ...kr, "--node", rpc, "-y", "-o", "json"]));

      const halt = await cv.waitFor((r) => r.message.startsWith('UPGRADE "v2" NEEDED at height: '), 120_000);
      const info = readFileSync(join(home, "data/upgrade-info.json"), "utf8");
      expect(JSON.parse(info)).toEqual({ name: "v2", time: "0001-01-01T00:00:00Z", height, info: release.info });
      const applied = await cv.waitFor((r) => r.at > halt.at && r.message === "upgrade applied", 120_000);
      const relaunch = cv.records.find((r) => r.at > halt.at && r.message.includes("upgrade detected, relaunching"));
      expect(relaunch, "cosmovisor's relaunch line").toBeDefined();
      const served = await cv.waitFor((r) => r.at > halt.at && r.message === "serving", 60_000);
      expect(Number(applied.height)).toBe(height);

      const q = ok(await runCli(["query", "upgrade", "applied", "v2", "--node", String(served.rpc)]));
      expect(JSON.parse(q.stdout).header.height).toBe(String(height));
      expect(readlinkSync(join(home, "cosmovisor/current"))).toBe(join(home, "cosmovisor/upgrades/v2"));
      expect(readdirSync(home).filter((n) => n.startsWith("data-backup-"))).toHaveLength(1);
      expect(release.downloads()).toBeGreaterThanOrEqual(1);
      console.log(
        "cosmovisor over the devnet: " +
          cv.records
            .filter((r) => r.at >= halt.at && /cosmovisor/.test(r.message))
            .map((r) => `+${Math.round(r.at - halt.at)} ms ${r.message.replace(/^\S+ /, "").slice(0, 120)}`)
            .join("\n  "),
      );
    } finally {
      await stopChild(cv, 10_000);
    }
  }, 400_000);
});
