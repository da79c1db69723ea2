/**
 * The chain the sidecar scenarios run on (docs/spec/interop.md §12): a one-validator xupgrade devnet with
 * the v1 app, a `v2` plan scheduled through governance, and three snapshots of its home made once — before
 * the halt (the plan ahead), halted at the plan's height (upgrade-info.json written, data at H − 1), and
 * upgraded (v2 applied H and went on). Each scenario copies the snapshot it starts from, so every scenario
 * under either supervisor begins from the same bytes, and none waits for governance.
 *
 * The node binaries are wrappers around `xupgrade devnet start --app examples/apps/<version>` (as
 * examples/demo-visor.mjs makes them), driven through files in a control directory (`$XUPGRADED_CTL`, which
 * the supervisors pass on; the wrappers' bytes are the same in every scenario, so a checksum in Plan.Info can
 * name one), so a test can hold a binary at its start and know what started:
 *
 * - every start appends `<version>` to `<ctl>/starts` (and `pre-upgrade <version>` for a pre-upgrade);
 * - while `<ctl>/hold-<version>` exists the binary waits before starting the devnet (`<ctl>/holding-<version>` says it waits);
 * - v1 stays up after the devnet's halt (exit 20) until it is stopped, as a Go chain does (its CometBFT stops
 *   consensus at the halt, not the process): supervisors see the halt through the file, never through a race
 *   with the exit;
 * - `status` exits 1 (cosmovisor v1.5.0 runs `<daemon> status` inside its check; no status means height 0).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtCliMain, runCli, stageCli, tempDir, type CliResult } from "../../apps/cli/helpers.js";
import { spawnCollected, type CollectedChild } from "../../support/child.js";
import { ROOT } from "../../support/paths.js";
import { childLines, devnetStartCommand, shellQuote, STAY_UP_AFTER_HALT } from "./node-wrapper.js";
import { parseLog, stopChild, track, type SimdLog } from "./simd.js";

export const DAEMON = "xupgraded";

const q = shellQuote;

function ok(r: CliResult, what: string): CliResult {
  if (r.code !== 0) throw new Error(`${what}: xupgrade exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** The node binary of one app version (see the module comment); `label` names it in `starts` (default the version). */
export function nodeBinary(dir: string, version: string, o: { label?: string; stayUp?: boolean } = {}): string {
  const label = o.label ?? version;
  const path = join(dir, `${DAEMON}-${label}`);
  const stayUp = o.stayUp ?? version === "v1";
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# ${DAEMON} ${label}: the xupgrade devnet running examples/apps/${version}`,
      'case "$1" in',
      `  pre-upgrade) echo "pre-upgrade ${label}" >> "$XUPGRADED_CTL/starts"; exit 0 ;;`,
      `  version) echo "${DAEMON} ${label}"; exit 0 ;;`,
      "  status) exit 1 ;;",
      "esac",
      `echo ${q(label)} >> "$XUPGRADED_CTL/starts"`,
      `if [ -e "$XUPGRADED_CTL/hold-${label}" ]; then`,
      `  touch "$XUPGRADED_CTL/holding-${label}"`,
      `  trap 'exit 143' TERM; trap 'exit 130' INT`,
      `  while [ -e "$XUPGRADED_CTL/hold-${label}" ]; do sleep 0.05; done`,
      "  trap - TERM INT",
      "fi",
      ...childLines(devnetStartCommand(version), stayUp ? [STAY_UP_AFTER_HALT] : []),
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return path;
}

/** `xupgrade devnet start` on `home` with an app, collected. */
function startDevnet(home: string, version: string): CollectedChild<SimdLog> {
  return track(
    spawnCollected<SimdLog>("node", [builtCliMain(), "devnet", "start", "--app", join(ROOT, "examples/apps", version), "--home", home], {
      parse: parseLog,
      echo: process.env.XUPGRADE_TEST_LOGS === "1" ? `devnet-${version}` : undefined,
    }),
  );
}

export interface ScenarioChain {
  /** The plan's height. */
  height: number;
  /** Home snapshots. */
  before: string;
  halted: string;
  upgraded: string;
}

/** Makes the three snapshots (about a minute); `info` is the plan's Plan.Info. */
export async function makeScenarioChain(info: string): Promise<ScenarioChain> {
  const work = tempDir("xupgrade-scenario-chain-");
  const home = join(work, "node");
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
      "3s",
      "--deposit-period",
      "3s",
      "--block-time",
      "100ms",
      "--rpc",
      "127.0.0.1:0",
      "--rest",
      "127.0.0.1:0",
      "--grpc",
      "127.0.0.1:0",
    ]),
    "devnet init",
  );
  ok(await runCli(["keys", "import-genesis", ...kr]), "keys import-genesis");
  let node = startDevnet(home, "v1");
  let height: number;
  try {
    const serving = await node.waitFor((r) => r.message === "serving", 60_000);
    const rpc = String(serving.rpc);
    const ballot = stageCli(["tx", "gov", "vote", "1", "yes", "--from", "validator0", ...kr, "--node", rpc, "-o", "json"]);
    await ballot.ready;
    const status = (await (await fetch(`${rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
    // At 100 ms blocks: the submission (a CLI start, seconds on a busy machine), 3 s of voting, and room.
    height = Number(status.result.sync_info.latest_block_height) + 200;
    const submit = await runCli([
      "tx",
      "upgrade",
      "software-upgrade",
      "v2",
      "--upgrade-height",
      String(height),
      "--upgrade-info",
      info,
      "--daemon-name",
      DAEMON,
      "--title",
      "v2",
      "--summary",
      "sidecar scenarios",
      "--deposit",
      "10000000stake",
      "--from",
      "alice",
      ...kr,
      "--node",
      rpc,
      "-y",
      "-o",
      "json",
    ]);
    if (submit.code !== 0) await ballot.cancel();
    ok(submit, "software-upgrade");
    ok(await ballot.confirm(), "vote");
    // The plan is scheduled once the proposal passed: then the chain is stopped well before the height.
    for (;;) {
      const plan = await runCli(["query", "upgrade", "plan", "--node", rpc, "-o", "json"]);
      if (plan.code === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await stopChild(node, 20_000);
  }
  const before = join(work, "before");
  cpSync(home, before, { recursive: true });
  node = startDevnet(home, "v1");
  const code = await node.exited;
  if (code !== 20) throw new Error(`the v1 devnet should halt with 20, exited ${code}: ${node.stderr()}`);
  if (!existsSync(join(home, "data/upgrade-info.json"))) throw new Error("no upgrade-info.json after the halt");
  const halted = join(work, "halted");
  cpSync(home, halted, { recursive: true });
  node = startDevnet(home, "v2");
  try {
    await node.waitFor((r) => r.message === "upgrade applied", 60_000);
    await node.waitFor((r) => r.message === "committed block" && Number(r.height) >= height + 3, 60_000);
  } finally {
    await stopChild(node, 20_000);
  }
  const upgraded = join(work, "upgraded");
  cpSync(home, upgraded, { recursive: true });
  return { height, before, halted, upgraded };
}

/** A fresh copy of a snapshot as a node home, with a control directory beside it. */
export function copyHome(snapshot: string, label: string): { work: string; home: string; ctl: string } {
  const work = tempDir(`xupgrade-scenario-${label}-`);
  const home = join(work, "node");
  cpSync(snapshot, home, { recursive: true });
  const ctl = join(work, "ctl");
  mkdirSync(ctl);
  writeFileSync(join(ctl, "starts"), "");
  return { work, home, ctl };
}

/** What started, in order (`v1`, `pre-upgrade v2`, `v2`, …). */
export const starts = (ctl: string): string[] =>
  readFileSync(join(ctl, "starts"), "utf8")
    .split("\n")
    .filter((l) => l !== "");
