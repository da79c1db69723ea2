/**
 * The halt under faults, on a real four-validator CometBFT network (docs/spec/keeper.md §6.2): each case
 * schedules `v2` at height H on a fresh testnet (net.ts), does its fault, and checks what must hold in every
 * interleaving — every validator halts at H (the `UPGRADE "v2" NEEDED` halt, exit code 20) with the same
 * block H, the same committed app hash and the same upgrade-info.json; the faulty one, back, halts at H
 * too; on v2 the chain resumes with identical blocks and app hashes and the upgrade applied once per node.
 * A case throws on the first broken promise; it returns what it measured.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, readlinkSync, statSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliArgs, runCli } from "../../../apps/cli/helpers.js";
import { spawnLogged, type LogRecord } from "../../../apps/devnet/helpers.js";
import { spawnCollected } from "../../../support/child.js";
import { waitUntil } from "../../../support/wait.js";
import { FaultNet, V1, V2, records, type NetNode, type Proc } from "./net.js";

export type Measures = Record<string, number | string | boolean>;

export interface CaseContext {
  /** cosmovisor's binary, when `npm run peers` built it. */
  cosmovisor?: string;
  /** Called while validators 0–2 are halted at H and waiting (kill-before): what else should answer then. */
  whileHalted?: (net: FaultNet, H: number) => Promise<void>;
}

export interface HaltCase {
  name: string;
  title: string;
  /** Needs cosmovisor (from `npm run peers`). */
  needs?: "cosmovisor";
  run(net: FaultNet, ctx: CaseContext): Promise<Measures>;
}

const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(what);
};
const same = <T>(values: T[], what: string): T => {
  const distinct = new Set(values.map((v) => JSON.stringify(v)));
  check(distinct.size === 1, `${what} differ: ${[...distinct].join(" | ")}`);
  return values[0];
};

/** The four v1 validators, serving, at height ≥ 3, with v2 scheduled; returns the processes and H. */
async function upgradeScheduled(net: FaultNet): Promise<{ procs: Proc[]; H: number }> {
  const procs = await Promise.all(net.nodes.map((_, i) => net.start(i, V1)));
  await net.allAt([0, 1, 2, 3], 3);
  const H = await net.proposeUpgrade("v2");
  return { procs, H };
}

const halting = (p: Proc, H: number) => p.records.find((r) => r.msg === "halting the node" && Number(r.height) === H);
const haltedAt = (p: Proc, H: number) => p.waitFor((r) => r.msg === "halting the node" && Number(r.height) === H, 600_000);

/**
 * Every node in `which` halted at H, from its own log and files (a halted node may already have stopped):
 * the same `UPGRADE "v2" NEEDED` halt with exit code 20, the same block H (the one consensus decided), the
 * same committed app hash, the same upgrade-info.json. Returns block H's hash.
 */
function haltedTogether(net: FaultNet, procs: Proc[], which: number[], H: number): string {
  const rs = which.map((i) => {
    const r = halting(procs[i], H);
    check(r !== undefined, `node${i} did not halt at ${H}`);
    check(r!.exit_code === 20 && r!.err === `UPGRADE "v2" NEEDED at height: ${H}: `, `node${i} halted with ${JSON.stringify(r)}`);
    return r!;
  });
  const block = same(rs.map((r) => r.block_hash), `block ${H} on nodes ${which.join(",")}`);
  same(rs.map((r) => r.app_hash), `the app hash at ${H - 1} on nodes ${which.join(",")}`);
  const info = same(which.map((i) => net.upgradeInfo(i)), "upgrade-info.json");
  check(info === `{"name":"v2","time":"0001-01-01T00:00:00Z","height":${H}}`, `upgrade-info.json is ${info}`);
  return String(block);
}

/** While halted a node still answers: status at block H (the one it halted on), its app at H-1 with that block's app hash, the plan still there. */
async function answersWhileHalted(net: FaultNet, i: number, H: number, blockHash: string): Promise<void> {
  check((await net.status(i))?.height === H, `node${i}'s status is not at ${H} while halted`);
  const block = await net.block(i, H);
  check(block?.hash === blockHash, `node${i}'s block ${H} is ${JSON.stringify(block)}`);
  const app = await net.appInfo(i);
  check(app?.height === H - 1 && app.appHash === block!.appHash, `node${i}'s app is at ${JSON.stringify(app)}`);
  check((await net.plan(i)) === `v2@${H}`, `node${i}'s plan while halted`);
}

/**
 * The operator stops the halted nodes (SIGTERM; a node that already stopped by itself, every peer holding
 * the decision, is left alone): each exits 20 with nothing of H committed. Returns how many had stopped by
 * themselves.
 */
async function stopHalted(net: FaultNet, procs: Proc[], H: number): Promise<number> {
  const bySelf = procs.filter((p) => p.proc.exitCode !== null).length;
  // A node that halted on CometBFT's replay of H never served, and exits by itself.
  for (const p of procs) if (p.proc.exitCode === null && p.records.some((r) => r.msg === "serving")) p.proc.kill("SIGTERM");
  const codes = await Promise.all(procs.map((p) => net.exitOf(p, 60_000)));
  check(codes.every((c) => c === 20), `exit codes ${codes.join(",")}`);
  for (const p of procs) {
    if (!p.records.some((r) => r.msg === "serving")) continue; // halted in start-up: nothing was opened for blocks
    const stopped = records(p, "stopped")[0];
    check(Number(stopped?.height) === H - 1 && stopped?.exit_code === 20, `node${p.node.index} stopped with ${JSON.stringify(stopped)}`);
  }
  return bySelf;
}

/** All four on v2: the upgrade is applied once per node and the chain resumes with identical blocks and app hashes. */
async function resumeOnV2(net: FaultNet, H: number): Promise<Proc[]> {
  const procs = await Promise.all(net.nodes.map((_, i) => net.start(i, V2)));
  await net.allAt([0, 1, 2, 3], H + 2, 240_000);
  for (const h of [H, H + 1, H + 2]) same(await Promise.all([0, 1, 2, 3].map((i) => net.block(i, h))), `block ${h}`);
  for (const p of procs) {
    const applied = records(p, "upgrade applied");
    check(applied.length === 1 && Number(applied[0].height) === H, `node${p.node.index}: upgrade applied ${JSON.stringify(applied)}`);
    check(records(p, "migrating module counter from version 1 to version 2").length === 1, `node${p.node.index}: the counter migration did not run once`);
  }
  return procs;
}

/** Kills validator 3 at a moment of the upgrade; the other three halt at H; 3, back on v1, catches up and halts at H. */
async function killOne(net: FaultNet, moment: (p: Proc, H: number) => Promise<void>, whileHalted?: CaseContext["whileHalted"]): Promise<Measures> {
  const { procs, H } = await upgradeScheduled(net);
  await moment(procs[3], H);
  await net.kill(procs[3]);
  await Promise.all([0, 1, 2].map((i) => haltedAt(procs[i], H)));
  const block = haltedTogether(net, procs, [0, 1, 2], H);
  // Validator 3 has not decided H (or is not there to say so): the three wait for it, answering meanwhile.
  if (whileHalted) {
    for (const i of [0, 1, 2]) await answersWhileHalted(net, i, H, block);
    await whileHalted(net, H);
  }
  const killedInfo = net.upgradeInfo(3) !== undefined;
  // Back on v1, it catches up from the halted three and halts at H (or again on CometBFT's replay of H).
  procs[3] = net.spawn(3, V1);
  await haltedAt(procs[3], H);
  const replayed = procs[3].records.some((r) => r.msg === "Replay last block using real app");
  if (!replayed) haltedTogether(net, procs, [0, 1, 2, 3], H);
  check(net.upgradeInfo(3) === net.upgradeInfo(0), "upgrade-info.json of the killed node");
  const stoppedBySelf = await stopHalted(net, procs, H);
  await resumeOnV2(net, H);
  return { H, upgrade_info_before_kill: killedInfo, replayed, stopped_by_self: stoppedBySelf };
}

// ---- the sidecars ----

const DAEMON = "xupgraded";

/** A release of the node binary as operators have one: `xupgraded start --home <node>` runs a validator of `app`. */
function nodeBinary(net: FaultNet, version: "v1" | "v2"): string {
  const path = join(net.dir, "release", version, DAEMON);
  const cli = cliArgs().map((a) => `'${a}'`).join(" ");
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

type Sidecar = "visor" | "cosmovisor";

function sidecarEnv(node: NetNode): Record<string, string> {
  return { DAEMON_HOME: node.home, DAEMON_NAME: DAEMON, DAEMON_RESTART_AFTER_UPGRADE: "true", DAEMON_POLL_INTERVAL: "300ms", UNSAFE_SKIP_BACKUP: "true", COSMOVISOR_COLOR_LOGS: "false" };
}

/** Four sidecars, each running its validator from v1 with v2 staged; the upgrade goes through without a hand on it. */
async function underSidecars(net: FaultNet, sidecar: Sidecar, cosmovisor: string | undefined): Promise<Measures> {
  const v1 = nodeBinary(net, "v1");
  const v2 = nodeBinary(net, "v2");
  for (const n of net.nodes) {
    const env = sidecarEnv(n);
    const steps = sidecar === "visor" ? [["visor", "init", v1], ["visor", "add-upgrade", "v2", v2]] : [["init", v1], ["add-upgrade", "v2", v2]];
    for (const args of steps) {
      const r = sidecar === "visor" ? await runCli(args, { env }) : await runProgram(cosmovisor!, args, env);
      check(r.code === 0, `${sidecar} ${args.join(" ")}: ${r.stderr}`);
    }
  }
  // Each sidecar's stdout is its node's (JSON log lines); the sidecar's own log goes to stderr.
  const start = (n: NetNode) =>
    net.track(
      sidecar === "visor"
        ? spawnLogged([...cliArgs(), "visor", "run", "start", "--home", n.home], sidecarEnv(n))
        : spawnCollected(cosmovisor!, ["run", "start", "--home", n.home], { env: sidecarEnv(n), parse: parseRecord }),
      n,
    );
  const procs = net.nodes.map(start);
  await Promise.all(procs.map((p) => p.waitFor((r) => r.msg === "serving", 120_000)));
  await net.allAt([0, 1, 2, 3], 3);
  const H = await net.proposeUpgrade("v2");
  // Every validator halts at H (writing upgrade-info.json), its sidecar switches it to v2, which replays H
  // and applies the upgrade. (A sidecar may stop the node between the file and its `halting the node` line:
  // the file is what a sidecar acts on, and what is checked.)
  await Promise.all(procs.map((p) => p.waitFor((r) => r.msg === "upgrade applied", 300_000)));
  const info = same([0, 1, 2, 3].map((i) => net.upgradeInfo(i)), "upgrade-info.json");
  check(info === `{"name":"v2","time":"0001-01-01T00:00:00Z","height":${H}}`, `upgrade-info.json is ${info}`);
  same(procs.filter((p) => halting(p, H)).map((p) => [halting(p, H)!.block_hash, halting(p, H)!.app_hash]), "the halts' block and app hashes");
  await net.allAt([0, 1, 2, 3], H + 2, 240_000);
  for (const h of [H, H + 1, H + 2]) same(await Promise.all([0, 1, 2, 3].map((i) => net.block(i, h))), `block ${h}`);
  for (const p of procs) {
    const applied = records(p, "upgrade applied");
    check(applied.length === 1 && Number(applied[0].height) === H, `node${p.node.index}: upgrade applied ${JSON.stringify(applied)}`);
    check(records(p, "migrating module counter from version 1 to version 2").length === 1, `node${p.node.index}: the counter migration did not run once`);
    const current = readlinkSync(join(p.node.home, "cosmovisor", "current"));
    check(/upgrades\/v2$/.test(current), `node${p.node.index}: current → ${current}`);
  }
  // From the first halt (the first upgrade-info.json written) to the first block the network makes on v2
  // (H + 1, committed by any validator).
  const firstHalt = Math.min(...net.nodes.map((n) => statSync(join(n.home, "data", "upgrade-info.json")).mtimeMs));
  const first = (test: (r: LogRecord) => boolean) => Math.round(Math.min(...procs.map((p) => time(p.records.find(test)))) - firstHalt);
  return {
    H,
    halt_to_v2_start_ms: first((r) => r.msg === "starting devnet" && r.app === "example-v2"),
    halt_to_upgrade_applied_ms: first((r) => r.msg === "upgrade applied"),
    halt_to_first_new_block_ms: first((r) => r.msg === "committed block" && Number(r.height) === H + 1),
  };
}

function parseRecord(line: string): LogRecord {
  try {
    return JSON.parse(line) as LogRecord;
  } catch {
    return { level: "text", msg: line };
  }
}

/** A program's exit code and output. */
function runProgram(bin: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { env: { ...process.env, ...env } }, (err, _stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }));
  });
}

export const CASES: HaltCase[] = [
  {
    name: "kill-before",
    title: "one validator SIGKILLed once it committed H-1",
    run: (net, ctx) => killOne(net, async (p, H) => void (await p.waitFor((r) => r.msg === "committed block" && Number(r.height) === H - 1, 600_000)), ctx.whileHalted ?? (async () => {})),
  },
  {
    name: "kill-finalize",
    title: "one validator SIGKILLed at H, in FinalizeBlock (as its app writes upgrade-info.json)",
    run: (net) =>
      // The keeper writes upgrade-info.json inside FinalizeBlock(H): its temporary file is the moment.
      killOne(net, (p) => whenInDir(join(p.node.home, "data"), (name) => name.startsWith(".upgrade-info.json."))),
  },
  {
    name: "kill-precommit",
    title: "one validator SIGKILLed just after signing its precommit for H",
    run: (net) =>
      killOne(net, (p, H) =>
        // CometBFT saves its signing state (atomically) before the vote leaves: step 3 is a precommit.
        whenInDir(join(p.node.home, "data"), () => {
          try {
            const s = JSON.parse(readFileSync(join(p.node.home, "data", "priv_validator_state.json"), "utf8")) as { height: string; step: number };
            return Number(s.height) === H && s.step === 3;
          } catch {
            return false;
          }
        }),
      ),
  },
  {
    name: "cut-30s",
    title: "one validator's network cut (connections reset, dials refused) for 30 s across H",
    async run(net) {
      const { procs, H } = await upgradeScheduled(net);
      await procs[0].waitFor((r) => r.msg === "committed block" && Number(r.height) === H - 2, 600_000);
      const cutAt = Date.now();
      net.proxy.cut("node2", 600_000, "reset");
      await Promise.all([0, 1, 3].map((i) => haltedAt(procs[i], H)));
      check(halting(procs[2], H) === undefined, "node2 halted while cut off");
      haltedTogether(net, procs, [0, 1, 3], H);
      await waitUntil(() => Date.now() - cutAt >= 30_000, 60_000, "30 s of cut");
      const healedAt = Date.now();
      net.proxy.heal("node2");
      await haltedAt(procs[2], H);
      haltedTogether(net, procs, [0, 1, 2, 3], H);
      const stoppedBySelf = await stopHalted(net, procs, H);
      await resumeOnV2(net, H);
      return { H, stopped_by_self: stoppedBySelf, cut_s: Math.round((healedAt - cutAt) / 1000), heal_to_halt_ms: time(halting(procs[2], H)) - healedAt };
    },
  },
  {
    name: "visors",
    title: "four `xupgrade visor`s supervising the four validators",
    run: (net) => underSidecars(net, "visor", undefined),
  },
  {
    name: "cosmovisors",
    title: "four cosmovisor v1.5.0 supervising the four validators",
    needs: "cosmovisor",
    run: (net, ctx) => underSidecars(net, "cosmovisor", ctx.cosmovisor),
  },
  {
    name: "delay-drops",
    title: "200 ms ± 100 ms between all validators, connections dropped at random, through the whole upgrade",
    async run(net) {
      net.proxy.setFaults({ delayMs: 200, jitterMs: 100, dropMeanMs: 20_000 });
      const { procs, H } = await upgradeScheduled(net);
      await Promise.all(procs.map((p) => haltedAt(p, H)));
      haltedTogether(net, procs, [0, 1, 2, 3], H);
      const stoppedBySelf = await stopHalted(net, procs, H);
      await resumeOnV2(net, H);
      const t = net.proxy.totals();
      return { H, stopped_by_self: stoppedBySelf, connections: t.connections, dropped: t.dropped };
    },
  },
];

/**
 * Resolves when `test()` holds, checked at once and on every change in `dir` (inotify): the moment a node
 * writes a file is caught within a millisecond or two, not a poll later.
 */
function whenInDir(dir: string, test: (name: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const w = watch(dir, (_e, name) => {
      if (test(String(name ?? ""))) {
        w.close();
        resolve();
      }
    });
    if (test("")) {
      w.close();
      resolve();
    }
  });
}

const time = (r: LogRecord | undefined) => (typeof r?.time === "string" ? Date.parse(r.time) : NaN);
