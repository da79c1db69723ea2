/**
 * The upgrade pipeline (docs/spec/sidecar.md §6): delay → backup → custom pre-upgrade → resolve or download the
 * binary → the new binary's pre-upgrade → record → atomic switch. Any failure leaves `current` and the data
 * directory as they were and deletes the temporary files; the next start retries through the pending check.
 * A SIGINT/SIGTERM/SIGQUIT stops it after the step in progress (never inside the switch).
 */
import { lstat, rename, rm, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encodeUpgradeInfo } from "../../module/upgrade-info/encode.js";
import { backupData } from "./backup.js";
import type { Supervisor } from "./child.js";
import { ms, type VisorConfig } from "./config/index.js";
import { exists, fetchUpgrade } from "./fetch.js";
import { isManual, readManualRecord, readText, planFromText, type VisorPlan } from "./info-file.js";
import { ensureBinary, random, type Layout } from "./layout.js";
import type { Logger } from "./log.js";
import { runAppPreUpgrade, runCustomPreUpgrade } from "./preupgrade.js";

/** The pipeline stopped for a signal; the visor exits 128 + its number. */
export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

export interface PipelineHooks {
  /** Fault injection between the temporary link and the rename (tests of the atomic switch). */
  beforeRename?: (tempLink: string) => Promise<void> | void;
  /** The platform key to download for (tests); default this machine's. */
  platform?: string;
}

export interface PipelineContext {
  cfg: VisorConfig;
  layout: Layout;
  log: Logger;
  supervisor: Supervisor;
  progressStream?: NodeJS.WriteStream;
  hooks?: PipelineHooks;
}

/** Writes `path` atomically (temp file in the same directory, then rename). */
async function writeAtomic(path: string, data: string, mode = 0o644): Promise<void> {
  const temp = `${path}.${random()}.tmp`;
  try {
    await writeFile(temp, data, { mode, flag: "wx" });
    await rename(temp, path);
  } catch (e) {
    await unlink(temp).catch(() => {});
    throw e;
  }
}

/** Step 4: the upgrade's binary, staged or downloaded. */
async function resolveBinary(ctx: PipelineContext, plan: VisorPlan, temp: (p: string) => void): Promise<string> {
  const { cfg, layout, log } = ctx;
  const bin = layout.upgradeBin(plan.name);
  const present = await lstat(bin).then(
    () => true,
    () => false,
  );
  if (present) {
    await ensureBinary(bin);
    log.info("using the staged upgrade binary", { bin });
    return bin;
  }
  if (!cfg.allowDownloadBinaries) {
    throw new Error(`binary not present, downloading disabled: stat ${bin}: no such file or directory`);
  }
  const dir = layout.upgradeDir(plan.name);
  if (await exists(dir)) throw new Error(`upgrade dir ${dir} already exists without bin/${cfg.name}; won't overwrite`);
  log.info("no upgrade binary found, beginning to download it");
  const r = await fetchUpgrade(plan.name, plan.info, {
    layout,
    daemonName: cfg.name,
    mustHaveChecksum: cfg.downloadMustHaveChecksum,
    limits: { maxBytes: cfg.downloadMaxBytes, idleMs: Math.max(1, ms(cfg.downloadIdleTimeout)) },
    log,
    progressStream: ctx.progressStream,
    temp,
    platform: ctx.hooks?.platform,
  });
  log.info("downloading binary complete", { bin: r.bin, url: r.source.url.raw });
  return r.bin;
}

/** Runs the pipeline for `plan`; throws (Interrupted for a signal) and leaves `current` untouched on failure. */
export async function runPipeline(ctx: PipelineContext, plan: VisorPlan): Promise<void> {
  const { cfg, layout, log, supervisor } = ctx;
  const temps: string[] = [];
  const temp = (p: string) => void temps.push(p);
  const checkpoint = () => {
    if (supervisor.userSignal) throw new Interrupted(supervisor.userSignal);
  };
  log.info(`upgrading to "${plan.name}"`, { height: plan.height });
  try {
    // 1. delay
    if (cfg.restartDelay > 0n) {
      log.info("waiting DAEMON_RESTART_DELAY before the upgrade", { delay: `${ms(cfg.restartDelay)}ms` });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((r) => (timer = setTimeout(r, ms(cfg.restartDelay)))), supervisor.signalled()]);
      clearTimeout(timer);
    }
    checkpoint();

    // 2. backup
    if (cfg.unsafeSkipBackup) log.info("UNSAFE_SKIP_BACKUP is set: no data backup");
    else {
      let text: string | undefined;
      try {
        text = await readText(layout.infoFile);
        if (text === undefined) throw new Error(`open ${layout.infoFile}: no such file or directory`);
        planFromText(text, layout.infoFile, cfg.disableRecase);
      } catch (e) {
        if (text !== undefined && /name cannot be empty/.test((e as Error).message)) throw new Error("upgrade-info.json is empty");
        throw new Error(`error while reading upgrade-info.json: ${(e as Error).message}`);
      }
      log.info("starting to take backup of data directory", { backup_dir: cfg.dataBackupDir });
      let saved: string;
      try {
        saved = await backupData({ layout, backupDir: cfg.dataBackupDir, log, progressStream: ctx.progressStream, temp });
      } catch (e) {
        throw new Error(`error while taking data backup: ${(e as Error).message}`);
      }
      log.info("backup completed");
      log.info(`backup saved at ${saved}`);
    }
    checkpoint();

    // 3. custom pre-upgrade
    if (cfg.customPreupgrade !== "") {
      await runCustomPreUpgrade({ layout, script: cfg.customPreupgrade, plan, supervisor, log });
      checkpoint();
    }

    // 4. the binary
    const bin = await resolveBinary(ctx, plan, temp);
    checkpoint();

    // 5. the new binary's pre-upgrade, before the switch
    await runAppPreUpgrade({ layout, bin, maxRetries: cfg.preupgradeMaxRetries, supervisor, log, interrupted: () => supervisor.userSignal !== undefined });
    checkpoint();

    // 6–7. record, then switch atomically (a crash in between leaves the old link and a pending plan)
    const dir = layout.upgradeDir(plan.name);
    await writeAtomic(join(dir, "upgrade-info.json"), encodeUpgradeInfo({ name: plan.name, height: plan.height, info: plan.info }));
    await layout.switchTo(plan.name, { beforeRename: ctx.hooks?.beforeRename });
    log.info(`current now points to ${join("upgrades", dir.slice(layout.upgradesDir.length + 1))}`, { upgrade: plan.name, height: plan.height });
    if (isManual(plan, await readManualRecord(layout.manualRecord))) await rm(layout.manualRecord, { force: true });
  } catch (e) {
    // A step cut short by a forwarded signal (a pre-upgrade command killed by it) is an interruption.
    if (supervisor.userSignal && !(e instanceof Interrupted)) {
      log.info(`step failed after ${supervisor.userSignal}: ${(e as Error).message}`);
      throw new Interrupted(supervisor.userSignal);
    }
    throw e;
  } finally {
    for (const p of temps) await rm(p, { recursive: true, force: true }).catch(() => {});
  }
}
