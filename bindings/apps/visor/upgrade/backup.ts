/**
 * The data backup before a switch (docs/spec/sidecar.md §6 step 3, D6 #11, #15): `$DAEMON_HOME/data` copied into a
 * temporary directory on the backup volume, then renamed to `data-backup-<Y>-<M>-<D>` (local date, month and
 * day not zero-padded), or `.1`, `.2`, … when that exists — never merged into an earlier backup. Progress
 * bar on a terminal, progress lines otherwise.
 *
 * Fit for the disk and the clock (project): the immutable table files are hard-linked when the backup is on
 * the data's file system, everything else is copied (tree-copy.ts); before anything is written, the bytes to
 * copy are compared with the backup volume's free space and a backup that would not fit is refused with the
 * numbers, nothing changed (a full disk mid-copy left cosmovisor's nodes unrecoverable, its issue #10533).
 * The log says how long it took and how many bytes were copied and linked. After a new backup, complete
 * backups of this data directory beyond `DAEMON_DATA_BACKUP_KEEP` are deleted, oldest first.
 *
 * A backup is complete when it carries `.xupgrade-backup.json` (the plan's name and height, the data
 * directory copied, the `current` it was taken under and the bytes), written last inside the temporary copy,
 * before the rename: a complete backup of the same plan, height and data directory is reused, so a visor
 * restarted again and again at a failing upgrade keeps one backup per plan instead of a new copy of the
 * chain data per start. The copy stops at once when the visor's signal fires; the caller removes the
 * temporary copy.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readFile, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { random, type Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { createProgress, formatBytes } from "../progress.js";
import { copyTree, estimateCopy, freeBytes, walkTree, type CopyEstimate } from "./tree-copy.js";
import { VisorError } from "../errors.js";

/** The completeness marker inside a backup. */
export const BACKUP_MARKER = ".xupgrade-backup.json";
const BACKUP_NAME = /^data-backup-\d+-\d+-\d+(\.\d+)?$/;

/** `data-backup-2024-8-5` for 5 August 2024 (local date). */
function backupName(d: Date = new Date()): string {
  return `data-backup-${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
}

/** What a complete backup says about itself. */
export interface BackupMarker {
  name: string;
  height: string;
  /** The data directory that was copied. */
  data: string;
  created: string;
  files: number;
  /** Bytes copied and bytes hard-linked (bytes = their sum). */
  bytes: number;
  bytes_copied?: number;
  bytes_linked?: number;
  /** `current`'s target when the backup was taken (`genesis`, `upgrades/v1`): where a rollback points it back. */
  current?: string;
}

/** Temporary copies in the backup directory are tagged with their data directory, so only ours are swept. */
const tempTag = (dataDir: string) => createHash("sha256").update(dataDir).digest("hex").slice(0, 12);

/** Where the copy is made before the rename: `.tmp/` when it shares the backup volume, else the backup dir. */
async function tempDirFor(layout: Layout, backupDir: string): Promise<string> {
  const tmp = await layout.tmpPath("backup");
  const [a, b] = await Promise.all([stat(dirname(tmp)), stat(backupDir)]);
  return a.dev === b.dev ? tmp : join(backupDir, `.data-backup-${tempTag(layout.dataDir)}-${random()}.tmp`);
}

/** Removes temporary copies an interrupted run of this home left in the backup directory (`.tmp/` is swept at start). */
async function sweepStaleTemps(layout: Layout, backupDir: string, log: VisorLogger): Promise<void> {
  const prefix = `.data-backup-${tempTag(layout.dataDir)}-`;
  for (const n of await readdir(backupDir).catch(() => [] as string[])) {
    if (!n.startsWith(prefix) || !n.endsWith(".tmp")) continue;
    log.info("removing an unfinished backup of an earlier run", { path: join(backupDir, n) });
    await rm(join(backupDir, n), { recursive: true, force: true });
  }
}

/** The complete backups (with their marker) of `dataDir` in `backupDir`, oldest first. */
export async function listBackups(backupDir: string, dataDir: string): Promise<{ path: string; marker: BackupMarker }[]> {
  const out: { path: string; marker: BackupMarker }[] = [];
  for (const n of (await readdir(backupDir).catch(() => [] as string[])).sort()) {
    if (!BACKUP_NAME.test(n)) continue;
    let marker: BackupMarker;
    try {
      marker = JSON.parse(await readFile(join(backupDir, n, BACKUP_MARKER), "utf8")) as BackupMarker;
    } catch {
      continue; // no marker: not ours, or not complete
    }
    if (marker.data === dataDir) out.push({ path: join(backupDir, n), marker });
  }
  return out.sort((a, b) => (a.marker.created < b.marker.created ? -1 : a.marker.created > b.marker.created ? 1 : 0));
}

/** A complete backup of this plan, height and data directory in `backupDir`, if there is one. */
export async function findBackup(backupDir: string, dataDir: string, plan: { name: string; height: bigint }): Promise<string | undefined> {
  return (await listBackups(backupDir, dataDir)).find((b) => b.marker.name === plan.name && b.marker.height === String(plan.height))?.path;
}

/** Free space too small for the copy; nothing was written. */
export class BackupSpaceError extends VisorError {
  override name = "BackupSpaceError";
  constructor(
    readonly need: number,
    readonly free: number,
    readonly estimate: CopyEstimate,
    backupDir: string,
  ) {
    super(
      `not enough free space for the data backup: it copies ${formatBytes(estimate.bytesToCopy)} (${estimate.bytesToCopy} bytes` +
        `${estimate.bytesToLink > 0 ? `; ${formatBytes(estimate.bytesToLink)} of immutable files are hard-linked` : ""}) and needs ${need} bytes with the margin, ` +
        `but ${backupDir} has ${formatBytes(free)} (${free} bytes) free; nothing was changed. ` +
        "Free some space, point DAEMON_DATA_BACKUP_DIR at a larger volume, or set UNSAFE_SKIP_BACKUP=true",
    );
  }
}

/** The margin kept free beyond the bytes to copy: 1 %, at least 1 MiB (the file system's own metadata, the logs). */
export const spaceNeeded = (bytesToCopy: number): number => bytesToCopy + Math.max(1 << 20, Math.ceil(bytesToCopy / 100));

/** What a backup of `dataDir` into `backupDir` would copy and link, and whether the volume has room (throws BackupSpaceError). */
export async function checkBackupSpace(dataDir: string, backupDir: string): Promise<CopyEstimate & { free: number; need: number }> {
  const [d, b] = await Promise.all([stat(dataDir), stat(backupDir)]);
  const est = estimateCopy(await walkTree(dataDir, (r) => r === BACKUP_MARKER), d.dev === b.dev);
  const free = await freeBytes(backupDir);
  const need = spaceNeeded(est.bytesToCopy);
  if (need > free) throw new BackupSpaceError(need, free, est, backupDir);
  return { ...est, free, need };
}

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}

export interface BackupOptions {
  layout: Layout;
  backupDir: string;
  /** The plan the backup is taken for (its marker). */
  plan: { name: string; height: bigint };
  log: VisorLogger;
  progressStream?: NodeJS.WriteStream;
  /** Registers a path to delete if the pipeline fails or is interrupted. */
  temp: (path: string) => void;
  /** Stops the copy at once (the visor's SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Test hook: awaited after each file copied. */
  afterFile?: () => Promise<void>;
  now?: Date;
  /** `current`'s target, recorded in the marker (the rollback's way back). */
  current?: string;
  /** Keep this many complete backups of the data directory (0 or undefined: all). */
  keep?: number;
}

export interface BackupResult {
  path: string;
  reused: boolean;
  /** A new backup: seconds, bytes copied and linked, files. */
  seconds?: number;
  bytesCopied?: number;
  bytesLinked?: number;
  files?: number;
  /** Older backups deleted to keep DAEMON_DATA_BACKUP_KEEP. */
  pruned?: string[];
}

/** Copies the data directory (links for the table files), or finds a complete copy made for the same plan. */
export async function backupData(o: BackupOptions): Promise<BackupResult> {
  const src = o.layout.dataDir;
  const found = await findBackup(o.backupDir, src, o.plan);
  if (found) return { path: found, reused: true };
  await sweepStaleTemps(o.layout, o.backupDir, o.log);
  aborted(o.signal);
  const started = performance.now();
  const tmp = await tempDirFor(o.layout, o.backupDir);
  const [d, t] = await Promise.all([stat(src), stat(dirname(tmp))]);
  const canLink = d.dev === t.dev;
  const entries = await walkTree(src, (r) => r === BACKUP_MARKER); // a restored backup's own marker is not data
  const est = estimateCopy(entries, canLink);
  const free = await freeBytes(dirname(tmp));
  if (spaceNeeded(est.bytesToCopy) > free) throw new BackupSpaceError(spaceNeeded(est.bytesToCopy), free, est, o.backupDir);
  o.log.info("backup plan", { files: est.files, copy_bytes: est.bytesToCopy, link_bytes: est.bytesToLink, free_bytes: free, hard_links: canLink });
  o.temp(tmp);
  await mkdir(tmp, { mode: 0o700 });
  const total = est.bytesToCopy + est.bytesToLink;
  const progress = createProgress("backup", { log: o.log, stream: o.progressStream }, total);
  let copied;
  try {
    copied = await copyTree(src, tmp, entries, {
      link: canLink,
      signal: o.signal,
      onFile: async (done) => {
        progress.update(done, total);
        await o.afterFile?.();
      },
    });
  } finally {
    progress.finish();
  }
  aborted(o.signal);
  // Written last, and flushed: a copy without it is never taken for a complete backup.
  const marker: BackupMarker = {
    name: o.plan.name,
    height: String(o.plan.height),
    data: src,
    created: (o.now ?? new Date()).toISOString(),
    files: copied.files,
    bytes: copied.bytesCopied + copied.bytesLinked,
    bytes_copied: copied.bytesCopied,
    bytes_linked: copied.bytesLinked,
    current: o.current,
  };
  const fh = await open(join(tmp, BACKUP_MARKER), "wx", 0o600);
  try {
    await fh.writeFile(JSON.stringify(marker) + "\n");
    await fh.sync();
  } finally {
    await fh.close();
  }
  // A fresh name: an exclusive mkdir reserves it, the rename then replaces that empty directory atomically.
  const base = join(o.backupDir, backupName(o.now));
  let path = "";
  for (let i = 0; path === ""; i++) {
    const target = i === 0 ? base : `${base}.${i}`;
    try {
      await mkdir(target, { mode: 0o700 });
    } catch (e) {
      if ((e as { code?: string }).code === "EEXIST" && i < 10_000) continue;
      throw e;
    }
    try {
      await rename(tmp, target);
    } catch (e) {
      await rm(target, { recursive: true, force: true });
      throw e;
    }
    path = target;
  }
  const seconds = (performance.now() - started) / 1000;
  const pruned = o.keep && o.keep > 0 ? await pruneBackups(o.backupDir, src, o.keep, path, o.log) : [];
  return { path, reused: false, seconds, bytesCopied: copied.bytesCopied, bytesLinked: copied.bytesLinked, files: copied.files, pruned };
}

/** Deletes the oldest complete backups of `dataDir` so that `keep` remain (never `newest`). */
async function pruneBackups(backupDir: string, dataDir: string, keep: number, newest: string, log: VisorLogger): Promise<string[]> {
  const all = await listBackups(backupDir, dataDir);
  const old = all.filter((b) => b.path !== newest);
  const drop = old.slice(0, Math.max(0, all.length - keep));
  for (const b of drop) {
    log.info("removing an old backup (DAEMON_DATA_BACKUP_KEEP)", { path: b.path, upgrade: b.marker.name, created: b.marker.created });
    await rm(b.path, { recursive: true, force: true });
  }
  return drop.map((b) => b.path);
}
