/**
 * The upgrade pipeline (docs/spec/sidecar.md §6): delay → resolve or download the binary → backup → custom
 * pre-upgrade → the new binary's pre-upgrade → record → atomic switch. Any failure leaves `current` and the
 * data directory as they were and deletes the temporary files; the next start retries through the pending
 * check.
 *
 * The backup comes once the binary is in place (project): a download that keeps failing never copies the
 * chain data, and it still precedes the two pre-upgrade commands, which may change that data. A complete
 * backup of the same plan is reused (backup.ts). A SIGINT/SIGTERM/SIGQUIT aborts the step in progress at once
 * (the delay, the download and its checksum, the extraction, the backup copy; the commands get the signal,
 * then SIGKILL) — never between the two halves of the switch — and the visor exits 128 + the signal's number
 * (D6 #14, #15).
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, rename, rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { archiveKind } from "../../../module/plan-info/archive.js";
import { join } from "node:path";
import { writeFileAtomic, exists } from "../../../base/file.js";
import { sleep } from "../../../base/sleep.js";
import { encodeUpgradeInfo } from "../../../module/upgrade-info/encode.js";
import { BackupSpaceError, backupData, checkBackupSpace, findBackup } from "./backup.js";
import type { VisorEvents } from "../telling/events.js";
import { handOver, imageOf } from "../orchestrator.js";
import type { Supervisor } from "../node/child.js";
import { ms, type VisorConfig } from "../config/index.js";
import { binarySource, downloadLimits, fetchUpgrade } from "../download/fetch.js";
import { InvalidPlanError, isManual, readManualRecord, readText, planFromText, type VisorPlan } from "../node/info-file.js";
import { ensureBinary, type Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { runAppPreUpgrade, runCustomPreUpgrade } from "./preupgrade.js";
import { VisorError } from "../errors.js";

/** The pipeline stopped for a signal; the visor exits 128 + its number. */
export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

/** Where a test may hold the pipeline (abortably) to deliver a signal inside a step. */
export type PausePoint = "backup";

export interface PipelineHooks {
  /** Fault injection between the temporary link and the rename (tests of the atomic switch). */
  beforeRename?: (tempLink: string) => Promise<void> | void;
  /** The platform key to download for (tests); default this machine's. */
  platform?: string;
  /** Awaited inside a step ("backup": after each file copied); it should honour `signal`. */
  pause?: (point: PausePoint, signal: AbortSignal) => Promise<void>;
}

export interface PipelineContext {
  cfg: VisorConfig;
  layout: Layout;
  log: VisorLogger;
  supervisor: Supervisor;
  progressStream?: NodeJS.WriteStream;
  hooks?: PipelineHooks;
  events?: VisorEvents;
}

/** How the pipeline ended: switched (the node restarts on the new binary), or handed over to an orchestrator (the visor exits). */
export type PipelineOutcome = "switched" | "handed-over";

/**
 * Whether a staged binary is the one Plan.Info names (project, docs/spec/sidecar.md §6 step 2): when this
 * platform's entry is a raw binary (not an archive) with a sha256/sha512 checksum, the staged file must have
 * that digest. A binary staged for a plan that governance then replaced is otherwise run at the height
 * (cosmovisor does). undefined: nothing to compare (no info, an archive, no checksum).
 */
async function stagedMismatch(ctx: PipelineContext, plan: VisorPlan, bin: string, temp: (p: string) => void): Promise<string | undefined> {
  if (plan.info.trim() === "") return undefined;
  const { cfg, layout, log } = ctx;
  const work = await layout.tmpPath("staged-check");
  temp(work);
  let source;
  try {
    source = await binarySource(plan.info, work, {
      layout,
      daemonName: cfg.name,
      mustHaveChecksum: false,
      limits: downloadLimits(cfg, ctx.supervisor.signal),
      log,
      temp,
      platform: ctx.hooks?.platform,
    });
  } catch (e) {
    log.info("the staged binary is used as it is: the plan's info names no binary to compare it with", { reason: (e as Error).message });
    return undefined;
  }
  const sum = source.url.checksum;
  let archive = true;
  try {
    archive = archiveKind(source.url.raw) !== undefined;
  } catch {
    /* an unknown archive: not comparable */
  }
  if (!sum || archive || (sum.algo !== "sha256" && sum.algo !== "sha512")) return undefined;
  const h = createHash(sum.algo);
  await pipeline(createReadStream(bin), h);
  const got = h.digest("hex");
  if (got === sum.hex.toLowerCase()) {
    log.info("the staged binary is the one the plan's info names", { algo: sum.algo, hex: got });
    return undefined;
  }
  return `the staged binary ${bin} (${sum.algo} ${got}) is not the one the plan's info names for ${source.key} (${sum.algo} ${sum.hex.toLowerCase()}, ${source.url.raw})`;
}

/** Step 2: the upgrade's binary, staged or downloaded (into `upgrades/<dir>`, only ever complete). */
export async function resolveBinary(ctx: PipelineContext, plan: VisorPlan, temp: (p: string) => void): Promise<string> {
  const { cfg, layout, log } = ctx;
  const bin = layout.upgradeBin(plan.name);
  const present = await lstat(bin).then(
    () => true,
    () => false,
  );
  if (present) {
    await ensureBinary(bin);
    const mismatch = await stagedMismatch(ctx, plan, bin, temp);
    if (!mismatch) {
      log.info("using the staged upgrade binary", { bin });
      ctx.events?.emit("binary_staged", plan, { source: "staged", bin });
      return bin;
    }
    // A plan replaced after its binary was staged: the staged one goes, the plan's own is fetched.
    if (!cfg.allowDownloadBinaries) {
      throw new VisorError(`${mismatch}; stage the right one (\`xupgrade visor add-upgrade ${plan.rawName} <binary> --force\`) or allow downloads`);
    }
    const aside = await layout.tmpPath("replaced");
    await rename(layout.upgradeDir(plan.name), aside);
    log.warn(`${mismatch}: it was staged for another plan; moved aside, downloading the plan's own`);
    try {
      const got = await download(ctx, plan, temp);
      await rm(aside, { recursive: true, force: true });
      return got;
    } catch (e) {
      // The download failed: the staged binary goes back where it was.
      await rename(aside, layout.upgradeDir(plan.name)).catch(() => {});
      throw e;
    }
  }
  return download(ctx, plan, temp);
}

/** Step 2 when nothing is staged: downloaded, verified and unpacked into `upgrades/<dir>`. */
async function download(ctx: PipelineContext, plan: VisorPlan, temp: (p: string) => void): Promise<string> {
  const { cfg, layout, log } = ctx;
  const bin = layout.upgradeBin(plan.name);
  if (!cfg.allowDownloadBinaries) {
    throw new VisorError(`binary not present, downloading disabled: stat ${bin}: no such file or directory`);
  }
  const dir = layout.upgradeDir(plan.name);
  if (await exists(dir)) throw new VisorError(`upgrade dir ${dir} already exists without bin/${cfg.name}; won't overwrite`);
  log.info("no upgrade binary found, beginning to download it");
  const started = performance.now();
  let bytes = 0;
  const r = await fetchUpgrade(plan.name, plan.info, {
    layout,
    daemonName: cfg.name,
    mustHaveChecksum: cfg.downloadMustHaveChecksum,
    limits: downloadLimits(cfg, ctx.supervisor.signal),
    log,
    progressStream: ctx.progressStream,
    temp,
    platform: ctx.hooks?.platform,
    signing: { keys: cfg.downloadSigningKeys, namespace: cfg.downloadSignatureNamespace },
    onBytes: (n) => (bytes = n),
  });
  const seconds = (performance.now() - started) / 1000;
  log.info("downloading binary complete", { bin: r.bin, url: r.source.url.raw, seconds: seconds.toFixed(2), bytes });
  ctx.events?.emit("binary_staged", plan, { source: "downloaded", bin: r.bin, url: r.source.url.raw, seconds, bytes });
  return r.bin;
}

/** Step 3: the backup of `data/` (re-reading the file first), or the complete one already taken for this plan. */
async function backup(ctx: PipelineContext, plan: VisorPlan, temp: (p: string) => void): Promise<void> {
  const { cfg, layout, log, supervisor } = ctx;
  if (cfg.unsafeSkipBackup) return void log.info("UNSAFE_SKIP_BACKUP is set: no data backup");
  let text: string | undefined;
  try {
    text = await readText(layout.infoFile);
    if (text === undefined) throw new VisorError(`open ${layout.infoFile}: no such file or directory`);
    planFromText(text, layout.infoFile, cfg.disableRecase);
  } catch (e) {
    // cosmovisor's word for a plan without a name.
    if (e instanceof InvalidPlanError && e.check === "name") throw new VisorError("upgrade-info.json is empty");
    throw new VisorError(`error while reading upgrade-info.json: ${(e as Error).message}`);
  }
  log.info("starting to take backup of data directory", { backup_dir: cfg.dataBackupDir });
  const pause = ctx.hooks?.pause;
  let saved: Awaited<ReturnType<typeof backupData>>;
  try {
    saved = await backupData({
      current: (await layout.resolveCurrent()).target,
      keep: cfg.dataBackupKeep,
      layout,
      backupDir: cfg.dataBackupDir,
      plan,
      log,
      progressStream: ctx.progressStream,
      temp,
      signal: supervisor.signal,
      afterFile: pause && (() => pause("backup", supervisor.signal)),
    });
  } catch (e) {
    if (supervisor.signal.aborted || e instanceof BackupSpaceError) throw e;
    throw new VisorError(`error while taking data backup: ${(e as Error).message}`);
  }
  if (saved.reused) return void log.info(`backup for "${plan.name}" at height ${plan.height} already taken, reusing it`, { path: saved.path });
  const seconds = saved.seconds ?? 0;
  log.info("backup completed", {
    seconds: seconds.toFixed(2),
    files: saved.files,
    bytes_copied: saved.bytesCopied,
    bytes_linked: saved.bytesLinked,
    pruned: saved.pruned && saved.pruned.length > 0 ? saved.pruned.length : undefined,
  });
  log.info(`backup saved at ${saved.path}`);
  ctx.events?.emit("backup", plan, {
    path: saved.path,
    seconds,
    bytes_copied: saved.bytesCopied ?? 0,
    bytes_linked: saved.bytesLinked ?? 0,
    files: saved.files ?? 0,
  });
}

/** The complete backup already taken for this plan (a restart reuses it: no space needed). */
function findBackupFor(ctx: PipelineContext, plan: VisorPlan): Promise<string | undefined> {
  return findBackup(ctx.cfg.dataBackupDir, ctx.layout.dataDir, plan);
}

/** Runs the pipeline for `plan`; throws (Interrupted for a signal) and leaves `current` untouched on failure. */
export async function runPipeline(ctx: PipelineContext, plan: VisorPlan): Promise<PipelineOutcome> {
  try {
    return await pipelineSteps(ctx, plan);
  } catch (e) {
    if (!(e instanceof Interrupted)) ctx.events?.emit("failure", plan, { error: (e as Error).message });
    throw e;
  }
}

async function pipelineSteps(ctx: PipelineContext, plan: VisorPlan): Promise<PipelineOutcome> {
  const { cfg, layout, log, supervisor } = ctx;
  const temps: string[] = [];
  const temp = (p: string) => void temps.push(p);
  const checkpoint = () => {
    if (supervisor.userSignal) throw new Interrupted(supervisor.userSignal);
  };
  log.info(`upgrading to "${plan.name}"`, { height: plan.height });
  try {
    checkpoint();
    // 1. delay
    if (cfg.restartDelay > 0n) {
      log.info("waiting DAEMON_RESTART_DELAY before the upgrade", { delay: `${ms(cfg.restartDelay)}ms` });
      await sleep(ms(cfg.restartDelay), supervisor.signal);
    }
    checkpoint();

    // Before anything is downloaded or copied: a backup that cannot fit is refused now, nothing changed.
    if (!cfg.unsafeSkipBackup && !(await findBackupFor(ctx, plan))) {
      const space = await checkBackupSpace(layout.dataDir, cfg.dataBackupDir);
      log.info("free space for the backup", { copy_bytes: space.bytesToCopy, link_bytes: space.bytesToLink, free_bytes: space.free });
    }
    checkpoint();

    // Orchestrator mode: no binary here; the backup and the custom pre-upgrade, then the image tag for the orchestrator.
    if (cfg.orchestratorImageFile !== "") {
      imageOf(plan.info); // a plan naming no image is refused before the backup: nothing changed
      await backup(ctx, plan, temp);
      checkpoint();
      if (cfg.customPreupgrade !== "") await runCustomPreUpgrade({ layout, script: cfg.customPreupgrade, plan, supervisor, log });
      checkpoint();
      await handOver(ctx, plan);
      return "handed-over";
    }

    // 2. the binary: staged, or downloaded, verified and unpacked (nothing of the node's is touched yet)
    const bin = await resolveBinary(ctx, plan, temp);
    checkpoint();

    // 3. the backup, now that the switch can happen, before anything that may change data/
    await backup(ctx, plan, temp);
    checkpoint();

    // 4. custom pre-upgrade
    if (cfg.customPreupgrade !== "") {
      await runCustomPreUpgrade({ layout, script: cfg.customPreupgrade, plan, supervisor, log });
      checkpoint();
    }

    // 5. the new binary's pre-upgrade, before the switch
    await runAppPreUpgrade({ layout, bin, maxRetries: cfg.preupgradeMaxRetries, supervisor, log, interrupted: () => supervisor.userSignal !== undefined });
    checkpoint();

    // 6–7. record (on the disk before the switch), then switch atomically (a crash in between leaves the
    // old link and a pending plan)
    const dir = layout.upgradeDir(plan.name);
    await writeFileAtomic(join(dir, "upgrade-info.json"), encodeUpgradeInfo({ name: plan.name, height: plan.height, info: plan.info }));
    await layout.switchTo(plan.name, { beforeRename: ctx.hooks?.beforeRename });
    log.info(`current now points to ${join("upgrades", dir.slice(layout.upgradesDir.length + 1))}`, { upgrade: plan.name, height: plan.height });
    ctx.events?.emit("switch", plan, { current: join("upgrades", dir.slice(layout.upgradesDir.length + 1)) });
    if (isManual(plan, await readManualRecord(layout.manualRecord))) await rm(layout.manualRecord, { force: true });
    return "switched";
  } catch (e) {
    // A step cut short by a signal (aborted, or its command killed by the forwarded signal) is an interruption.
    if (supervisor.userSignal && !(e instanceof Interrupted)) {
      log.info(`step stopped by ${supervisor.userSignal}: ${(e as Error).message}`);
      throw new Interrupted(supervisor.userSignal);
    }
    throw e;
  } finally {
    for (const p of temps) await rm(p, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 }).catch(() => {});
  }
}
