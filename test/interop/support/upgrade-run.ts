/**
 * A real, hands-off chain upgrade under a supervisor, timed: simd v0.47 runs under `xupgrade visor` or under
 * cosmovisor v1.5.0, governance schedules `v047-to-v050` with a Plan.Info naming simd v0.50's tarball on
 * loopback (./release.ts), simd v0.47 halts at the height, and the supervisor backs up data/, downloads,
 * verifies and unpacks the tarball, switches `current` and starts simd v0.50, which runs the real
 * migrations and goes on. Nobody touches anything after the proposal.
 *
 * The timings (all from the arrival of log lines in this process, one clock):
 * - `halt`: simd v0.47 logs `UPGRADE "v047-to-v050" NEEDED at height: <h>` (it has written
 *   upgrade-info.json just before; the process does not exit, the supervisor kills it);
 * - `newBinaryStart`: simd v0.50 logs its first line, `starting node with ABCI CometBFT in-process`;
 * - `upgradeBlock`: simd v0.50 logs `committed state` for the upgrade height (the block the old binary
 *   refused, which the new one replays, applying the upgrade);
 * - `firstNewBlock`: simd v0.50 logs `committed state` for the height after it (its first block through
 *   consensus).
 *
 * Bench code can call supervisedSimdUpgrade() as it is and read the returned timings.
 */
import { createHash } from "node:crypto";
import { createReadStream, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { cliArgs, runCli } from "../../apps/cli/helpers.js";
import { spawnCollected } from "../../support/child.js";
import { ROOT } from "../../support/paths.js";
import { processesMentioning } from "../../support/processes.js";
import type { InteropPeers } from "./peers.js";
import type { Release } from "./release.js";
import { attach, initSimd, parseLog, passProposal, runOk, softwareUpgradeMsg, stopChild, waitForHalt, type SimdLog, type SimdNode } from "./simd.js";

export type Supervisor = "xupgrade-visor" | "cosmovisor";

export const UPGRADE_NAME = "v047-to-v050";

/** The two binaries of a supervised upgrade, the plan's name and the daemon's name (DAEMON_NAME, `bin/<name>`). */
export interface UpgradePair {
  old: string;
  new: string;
  name: string;
  daemon: string;
}

/** simd v0.47 → simd v0.50 at `v047-to-v050` (the default). */
export const simdPair = (peers: Pick<InteropPeers, "simd047" | "simd050">): UpgradePair => ({
  old: peers.simd047,
  new: peers.simd050,
  name: UPGRADE_NAME,
  daemon: "simd",
});

export interface UpgradeTimings {
  supervisor: Supervisor;
  /** The upgrade height. */
  height: number;
  /** ms from the halt to simd v0.50's first log line (the supervisor's whole pipeline, plus simd's exec). */
  haltToNewBinaryStart: number;
  /** ms from the halt to simd v0.50 committing the upgrade height. */
  haltToUpgradeBlock: number;
  /** ms from the halt to simd v0.50's first block through consensus (height + 1). */
  haltToFirstNewBlock: number;
  /**
   * The supervisor process's own peak resident set (VmHWM, its nodes not included) over the whole run, MiB;
   * undefined where /proc is not there to read it.
   */
  supervisorPeakRssMiB: number | undefined;
  /**
   * The supervisor's peak resident set in each step (MiB; see stepMemory), from /proc/<pid>/status read every
   * 20 ms and at each of its log lines; undefined where there is no /proc.
   */
  supervisorStepsMiB: StepMemory | undefined;
}

/**
 * The steps of an upgrade, told apart by the supervisor's own lines (both say them in cosmovisor's words):
 * - idle: supervising the old node, from the start to the halt;
 * - backup: `starting to take backup of data directory` → `backup completed`;
 * - download: `no upgrade binary found, beginning to download it` → `downloading binary complete`; for the
 *   xupgrade visor, up to `checksum verified` (the transfer and its digest), then
 * - extract: `checksum verified` → `downloading binary complete` (cosmovisor's go-getter unpacks inside its
 *   download step and says nothing in between, so it has no extract step of its own);
 * - after: from the last of those lines to the new node's first block (the new node supervised).
 * A step the run did not go through (no download when staged) is absent.
 */
export type UpgradeStep = "idle" | "backup" | "download" | "extract" | "after";
export type StepMemory = Partial<Record<UpgradeStep, number>>;

export interface SupervisedRun extends UpgradeTimings {
  home: string;
  /** Every line the supervisor and its nodes wrote (stdout and stderr together). */
  lines: string[];
  /** The supervisor's own lines (not simd's JSON) from the halt to the first new block, with ms since the halt. */
  steps: { ms: number; line: string }[];
  /** What REST answered for `applied_plan/v047-to-v050` after the upgrade. */
  appliedPlan: string;
  /** `cosmovisor/current` after the upgrade. */
  current: string;
  /** sha256 of `cosmovisor/upgrades/v047-to-v050/bin/simd`. */
  installedSha256: string;
  /** Names in DAEMON_HOME starting with `data-backup-`. */
  backups: string[];
  /** The supervisor's exit code after SIGTERM. */
  exitCode: number | string;
  /** Processes mentioning the home at the moment the supervisor exited (its node still stopping). */
  outlived: number[];
  /** Processes still mentioning the home 10 s after the supervisor exited (then killed). */
  leftovers: number[];
}

export interface SupervisedRunOptions {
  supervisor: Supervisor;
  peers: Pick<InteropPeers, "simd047" | "simd050" | "cosmovisor">;
  /** The tarball named in Plan.Info, downloaded at the halt (the default variant). */
  release?: Release;
  /**
   * Stage simd v0.50 before the start instead (`add-upgrade v047-to-v050 <simd v0.50>`), with an empty
   * Plan.Info: the pipeline without the download.
   */
  staged?: boolean;
  /** The upgrade height (default 40, raised when the chain is too close to it). */
  height?: number;
  /** Which upgrade (default simdPair(peers): simd v0.47 → v0.50). */
  pair?: UpgradePair;
  /** Writes every line here as well. */
  logFile?: string;
  /**
   * The `xupgrade` executable to run the visor with (e.g. the package's bin, dist/apps/cli/xupgrade.cjs, as an
   * operator runs it); default the CLI as the tests run it (cliArgs()).
   */
  visorBin?: string;
}

/** VmHWM of a live process, MiB (one decimal), or undefined. */
function peakRssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return kib ? Math.round((Number(kib[1]) / 1024) * 10) / 10 : undefined;
  } catch {
    return undefined;
  }
}

/** VmRSS and VmHWM of a live process, KiB, or undefined. */
function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(text);
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(text);
    return rss && hwm ? { rss: Number(rss[1]), hwm: Number(hwm[1]) } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a process's memory every `everyMs` and whenever asked (at a log line), with the time read. */
function memorySampler(pid: number | undefined, everyMs = 20) {
  const samples: { at: number; rss: number; hwm: number }[] = [];
  const sample = () => {
    const m = pid === undefined ? undefined : memoryOf(pid);
    if (m) samples.push({ at: performance.now(), ...m });
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return { samples, sample, stop: () => clearInterval(timer) };
}

const STEP_LINES: [step: Exclude<UpgradeStep, "idle" | "after">, from: RegExp, to: RegExp][] = [
  ["backup", /starting to take backup of data directory/, /backup completed/],
  ["download", /no upgrade binary found, beginning to download it/, /checksum verified|downloading binary complete/],
  ["extract", /checksum verified/, /downloading binary complete/],
];

/**
 * Each step's peak (MiB, one decimal): the highest VmRSS read inside it, or the VmHWM read at its end when
 * the high-water mark rose during it (a peak between two reads). `lines` are the supervisor's own lines.
 */
export function stepMemory(
  samples: { at: number; rss: number; hwm: number }[],
  lines: { at: number; message: string }[],
  halt: number,
  end: number,
): StepMemory {
  const windows: [UpgradeStep, number, number][] = [["idle", -Infinity, halt]];
  for (const [step, from, to] of STEP_LINES) {
    const a = lines.find((l) => l.at >= halt && from.test(l.message));
    const b = a && lines.find((l) => l.at >= a.at && to.test(l.message));
    if (a && b) windows.push([step, a.at, b.at]);
  }
  const lastPipelineLine = Math.max(halt, ...windows.slice(1).map((w) => w[2]));
  windows.push(["after", lastPipelineLine, end]);
  const out: StepMemory = {};
  for (const [step, from, to] of windows) {
    const inside = samples.filter((s) => s.at >= from && s.at <= to);
    if (inside.length === 0) continue;
    const before = samples.filter((s) => s.at < from).at(-1);
    const last = inside[inside.length - 1];
    let kib = Math.max(...inside.map((s) => s.rss));
    if (last.hwm > (before?.hwm ?? 0)) kib = Math.max(kib, last.hwm);
    out[step] = Math.round((kib / 1024) * 10) / 10;
  }
  return out;
}

async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  await pipeline(createReadStream(path), h);
  return h.digest("hex");
}

/** The same environment for both supervisors: download allowed with a checksum, backup on, the same poll period. */
export const supervisorEnv = (home: string, daemon = "simd"): Record<string, string> => ({
  DAEMON_HOME: home,
  DAEMON_NAME: daemon,
  DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
  DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
  DAEMON_RESTART_AFTER_UPGRADE: "true",
  DAEMON_POLL_INTERVAL: "300ms",
  UNSAFE_SKIP_BACKUP: "false",
  COSMOVISOR_COLOR_LOGS: "false",
});

export async function supervisedSimdUpgrade(o: SupervisedRunOptions): Promise<SupervisedRun> {
  if (!o.staged && !o.release) throw new TypeError("a release to download, or staged: true");
  const pair = o.pair ?? simdPair(o.peers);
  const h = await initSimd({ binary: pair.old });
  const env = supervisorEnv(h.home, pair.daemon);
  const steps = [["init", pair.old], ...(o.staged ? [["add-upgrade", pair.name, pair.new]] : [])];
  for (const args of steps) {
    if (o.supervisor === "xupgrade-visor") {
      const r = await runCli(["visor", ...args], { env });
      if (r.code !== 0) throw new Error(`xupgrade visor ${args[0]} failed: ${r.stderr}`);
    } else {
      await runOk(o.peers.cosmovisor, args, { env });
    }
  }
  const xupgrade = o.visorBin ? [o.visorBin] : [process.execPath, ...cliArgs()];
  const cmd =
    o.supervisor === "xupgrade-visor" ? [...xupgrade, "visor", "run", "start", "--home", h.home] : [o.peers.cosmovisor, "run", "start", "--home", h.home];
  // One stream for both: the supervisors write their own lines on stderr or stdout, the node's pass through.
  const child = spawnCollected<SimdLog>("sh", ["-c", 'exec "$0" "$@" 2>&1', ...cmd], {
    env,
    parse: parseLog,
    echo: process.env.XUPGRADE_TEST_LOGS === "1" ? o.supervisor : undefined,
  });
  const node: SimdNode = attach(h, child);
  const memory = memorySampler(child.proc.pid);
  // A read at each line too, so a step's first and last reads are its own.
  child.proc.stdout!.on("data", memory.sample);
  const lines = () => child.records.map((r) => (r.level !== undefined ? JSON.stringify({ ...r, at: undefined }) : r.message));
  let exitCode: number | string = "running";
  try {
    await node.rpcReady(120_000);
    const height = Math.max(o.height ?? 40, (await node.height()) + 25);
    await passProposal(h, pair.old, softwareUpgradeMsg({ name: pair.name, height, info: o.staged ? "" : o.release!.info }), 60_000);
    const halt = await waitForHalt(child, pair.name, 120_000);
    const after = (test: (r: SimdLog) => boolean) => child.waitFor((r) => r.at > halt.at && test(r), 180_000);
    const start = await after((r) => r.message === "starting node with ABCI CometBFT in-process");
    const upgradeBlock = await after((r) => r.message === "committed state" && Number(r.height) >= height);
    const firstNew = await after((r) => r.message === "committed state" && Number(r.height) >= height + 1);
    await node.ready();
    const appliedPlan = await (await fetch(`${h.restUrl}/cosmos/upgrade/v1beta1/applied_plan/${pair.name}`)).text();
    const cv = join(h.home, "cosmovisor");
    memory.sample();
    memory.stop();
    const own = child.records.filter((r) => r.level === undefined);
    const run: SupervisedRun = {
      supervisor: o.supervisor,
      height,
      haltToNewBinaryStart: Math.round(start.at - halt.at),
      haltToUpgradeBlock: Math.round(upgradeBlock.at - halt.at),
      haltToFirstNewBlock: Math.round(firstNew.at - halt.at),
      supervisorPeakRssMiB: peakRssMiB(child.proc.pid),
      supervisorStepsMiB: memory.samples.length > 0 ? stepMemory(memory.samples, own, halt.at, firstNew.at) : undefined,
      home: h.home,
      lines: [],
      steps: child.records
        .filter((r) => r.level === undefined && r.at >= halt.at && r.at <= firstNew.at)
        .map((r) => ({ ms: Math.round(r.at - halt.at), line: r.message })),
      appliedPlan,
      current: readlinkSync(join(cv, "current")),
      installedSha256: await sha256File(join(cv, "upgrades", pair.name, "bin", pair.daemon)),
      backups: readdirSync(h.home).filter((n) => n.startsWith("data-backup-")),
      exitCode,
      outlived: [],
      leftovers: [],
    };
    await stopChild(child, 15_000);
    run.exitCode = exitCode = await child.exited;
    run.outlived = processesMentioning(h.home);
    const end = Date.now() + 10_000;
    while (processesMentioning(h.home).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    run.leftovers = processesMentioning(h.home);
    run.lines = lines();
    return run;
  } finally {
    memory.stop();
    await stopChild(child, 5_000);
    // cosmovisor v1.5.0 can leave its child behind (test/peers/README.md): anything still running on this home is ours.
    for (const pid of processesMentioning(h.home)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    if (o.logFile) {
      mkdirSync(join(o.logFile, ".."), { recursive: true });
      writeFileSync(o.logFile, `${lines().join("\n")}\n`);
    }
  }
}

export const UPGRADE_LOG_DIR = join(ROOT, "test-output/interop");

/** Median of numbers (the mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : Math.round((s[m - 1] + s[m]) / 2);
}
