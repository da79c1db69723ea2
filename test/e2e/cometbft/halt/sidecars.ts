/**
 * The upgrade under sidecars, no hand on it: each validator runs from a release of the node binary under an
 * `xupgrade visor` or a cosmovisor v1.5.0 with v2 staged; every validator halts at H, its sidecar switches it
 * to v2, which replays H and applies the upgrade; the chain resumes with identical blocks. What the run
 * measures is each node's timeline (timeline.ts) and the network's: from the first halt to the first block
 * on v2.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliArgs, runCli } from "../../../apps/cli/helpers.js";
import type { LogRecord } from "../../../apps/devnet/helpers.js";
import { spawnCollected } from "../../../support/child.js";
import { appliedOnce, check, halting, same, sameBlocks, upgradeInfoOf, type Measures } from "./checks.js";
import { FaultNet, V1, V2, rpc, type NetNode, type Proc } from "./net.js";
import { networkMeasures, nodeTimeline, type NodeTimeline, type SidecarKind } from "./timeline.js";

export const DAEMON = "xupgraded";

/** A release of the node binary as operators have one: `xupgraded start --home <node>` runs a validator of `app`. */
export function nodeBinary(net: FaultNet, version: "v1" | "v2"): string {
  const path = join(net.dir, "release", version, DAEMON);
  const cli = cliArgs()
    .map((a) => `'${a}'`)
    .join(" ");
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# ${DAEMON} ${version}: a CometBFT validator running examples/apps/${version}`,
      'case "$1" in',
      `  pre-upgrade) echo "${DAEMON} ${version}: nothing to do outside the chain state"; exit 0 ;;`,
      `  version) echo "${DAEMON} ${version}"; exit 0 ;;`,
      // cosmovisor asks `<daemon> status` in its upgrade check: answer at once rather than start the whole CLI.
      "  status) exit 1 ;;",
      "  start) shift ;;",
      "esac",
      `exec '${process.execPath}' ${cli} devnet start --engine cometbft --cometbft '${net.cometbft}' --app '${version === "v1" ? V1 : V2}' "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return path;
}

/**
 * The sidecars' environment: the same for both (cosmovisor ignores the visor's own variables), backups off
 * (the data is the same few MB for both), logs timed to the millisecond, the node's RPC where the visor asks
 * for the plan (its prestart, when a case turns it on).
 */
export function sidecarEnv(node: NetNode, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DAEMON_HOME: node.home,
    DAEMON_NAME: DAEMON,
    DAEMON_RESTART_AFTER_UPGRADE: "true",
    DAEMON_POLL_INTERVAL: "300ms",
    UNSAFE_SKIP_BACKUP: "true",
    COSMOVISOR_COLOR_LOGS: "false",
    COSMOVISOR_TIMEFORMAT_LOGS: "rfc3339nano",
    DAEMON_RPC_ADDRESS: node.rpc,
    DAEMON_RPC_POLL_INTERVAL: "1s",
    ...extra,
  };
}

/** The visor as the project recommends running it at an upgrade: the next binary in standby (docs/spec/sidecar.md §5.5). */
export const PRESTART = { DAEMON_PRESTART: "true" };

/** A stdout line as a record, stamped with the moment it arrived. */
function stampedRecord(line: string): LogRecord {
  const at = Date.now();
  try {
    return { ...(JSON.parse(line) as LogRecord), at };
  } catch {
    return { level: "text", msg: line, at };
  }
}

/** A program's exit code and output. */
function runProgram(bin: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { env: { ...process.env, ...env } }, (err, _stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }),
    );
  });
}

export interface SidecarRun {
  sidecar: SidecarKind;
  /** cosmovisor's binary (for `cosmovisor`). */
  cosmovisor?: string;
  /** More of each sidecar's environment (the same for every node). */
  env?: Record<string, string>;
  /** Called once the v1 validators serve, before the upgrade is proposed (e.g. to set the network's faults). */
  before?: (net: FaultNet) => void | Promise<void>;
  /** Proposes the upgrade and resolves with its height (default: `net.proposeUpgrade("v2")`). */
  propose?: (net: FaultNet) => Promise<number>;
  /** Started once H is known and awaited after the checks: what it measures joins the run's measures. */
  during?: (net: FaultNet, H: number, procs: Proc[]) => Promise<Measures>;
}

/** Every validator under a sidecar from v1 with v2 staged; the upgrade goes through without a hand on it. */
export async function underSidecars(net: FaultNet, o: SidecarRun): Promise<Measures & { timelines: string }> {
  const { sidecar } = o;
  const v1 = nodeBinary(net, "v1");
  const v2 = nodeBinary(net, "v2");
  for (const n of net.nodes) {
    const env = sidecarEnv(n, o.env);
    const steps =
      sidecar === "visor"
        ? [
            ["visor", "init", v1],
            ["visor", "add-upgrade", "v2", v2],
          ]
        : [
            ["init", v1],
            ["add-upgrade", "v2", v2],
          ];
    for (const args of steps) {
      const r = sidecar === "visor" ? await runCli(args, { env }) : await runProgram(o.cosmovisor!, args, env);
      check(r.code === 0, `${sidecar} ${args.join(" ")}: ${r.stderr}`);
    }
  }
  // Each sidecar's stdout is its node's (JSON log lines; cosmovisor's own lines too); the visor's own log goes to stderr.
  const start = (n: NetNode) =>
    net.track(
      sidecar === "visor"
        ? spawnCollected("node", [...cliArgs(), "visor", "run", "start", "--home", n.home], { env: sidecarEnv(n, o.env), parse: stampedRecord })
        : spawnCollected(o.cosmovisor!, ["run", "start", "--home", n.home], { env: sidecarEnv(n, o.env), parse: stampedRecord }),
      n,
    );
  const procs = net.nodes.map(start);
  await Promise.all(procs.map((p) => p.waitFor((r) => r.msg === "serving", 120_000)));
  await net.allAt(net.all, 3);
  await o.before?.(net);
  const H = await (o.propose ?? ((n: FaultNet) => n.proposeUpgrade("v2")))(net);
  const during = o.during?.(net, H, procs);
  // A failure of `during` fails the run at once, not after the upgrade's checks.
  const failed = during?.then(() => new Promise<never>(() => {}));
  failed?.catch(() => undefined); // seen here or by the await of `during` below
  const upgraded = Promise.all(procs.map((p) => p.waitFor((r) => r.msg === "upgrade applied", 300_000)));
  await (failed ? Promise.race([upgraded, failed]) : upgraded);
  // Every validator halts at H (writing upgrade-info.json), its sidecar switches it to v2, which replays H
  // and applies the upgrade. (A sidecar may stop the node between the file and its `halting the node` line:
  // the file is what a sidecar acts on, and what is checked.)
  const info = same(
    net.all.map((i) => net.upgradeInfo(i)),
    "upgrade-info.json",
  );
  check(info === upgradeInfoOf(H), `upgrade-info.json is ${info}`);
  // The halts that were logged agree; on a loaded machine every sidecar may stop its node before that line, and then
  // there is none to compare here: sameBlocks below compares block H and its app hash on every node's store.
  const logged = procs.filter((p) => halting(p, H)).map((p) => [halting(p, H)!.block_hash, halting(p, H)!.app_hash]);
  if (logged.length > 0) same(logged, "the halts' block and app hashes");
  await net.allAt(net.all, H + 2, 240_000);
  await sameBlocks(net, H);
  appliedOnce(procs, H);
  for (const p of procs) {
    const current = readlinkSync(join(p.node.home, "cosmovisor", "current"));
    check(/upgrades\/v2$/.test(current), `node${p.node.index}: current → ${current}`);
  }
  // A node's halt is the moment its keeper wrote upgrade-info.json: what a sidecar acts on (it may stop the node before its `halting the node` line).
  const written = (p: Proc) => statSync(join(p.node.home, "data", "upgrade-info.json")).mtimeMs;
  const timelines = procs.map((p: Proc) =>
    nodeTimeline({ node: p.node.index, power: net.powers[p.node.index], H, kind: sidecar, records: p.records, stderr: p.stderr(), halt: written(p) }),
  );
  const extra = (await during) ?? {};
  // The consensus round that decided H+1: 0 unless round 0's proposal reached too few validators in time.
  const commit = await rpc<{ signed_header: { commit: { round: number } } }>(net.nodes[0].rpc, "commit", { height: String(H + 1) });
  return {
    H,
    ...networkMeasures(timelines),
    first_block_round: commit?.signed_header.commit.round ?? -1,
    ...extra,
    timelines: JSON.stringify(timelines.map(relative)),
  };
}

/** A node's timeline as offsets from its own halt (ms), for the run's record. */
function relative(t: NodeTimeline): Record<string, number | boolean> {
  const out: Record<string, number | boolean> = { node: t.node, power: t.power };
  for (const k of ["noticed", "relaunch", "boot", "comet", "handshake", "serving", "firstBlock"] as const) {
    const v = t[k];
    if (v !== undefined && t.halt !== undefined) out[k] = v - t.halt;
  }
  if (t.waitedForCometbft) out.waitedForCometbft = true;
  return out;
}
