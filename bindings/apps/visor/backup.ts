/**
 * The data backup before a switch (docs/spec/sidecar.md §6 step 3, D6 #11, #15): `$DAEMON_HOME/data` copied into a
 * temporary directory on the backup volume, then renamed to `data-backup-<Y>-<M>-<D>` (local date, month and
 * day not zero-padded), or `.1`, `.2`, … when that exists — never merged into an earlier backup. Progress
 * bar on a terminal, progress lines otherwise.
 *
 * A backup is complete when it carries `.xupgrade-backup.json` (the plan's name and height, and the data
 * directory copied), written last inside the temporary copy, before the rename: a complete backup of the same
 * plan, height and data directory is reused, so a visor restarted again and again at a failing upgrade keeps
 * one backup per plan instead of a new copy of the chain data per start. The copy stops at once when the
 * visor's signal fires; the caller removes the temporary copy.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, lstat, mkdir, open, readFile, readdir, readlink, rename, rm, stat, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { random, type Layout } from "./layout.js";
import type { VisorLogger } from "./log.js";
import { createProgress } from "./progress.js";

/** The completeness marker inside a backup. */
export const BACKUP_MARKER = ".xupgrade-backup.json";
/** Files from this size on are copied as streams, so a signal stops the copy inside them. */
const STREAM_COPY_BYTES = 16 * 1024 * 1024;
const BACKUP_NAME = /^data-backup-\d+-\d+-\d+(\.\d+)?$/;

interface Entry {
  rel: string;
  kind: "dir" | "file" | "link";
  size: number;
  mode: number;
}

async function walk(root: string, rel = "", out: Entry[] = []): Promise<Entry[]> {
  for (const name of (await readdir(join(root, rel))).sort()) {
    const r = rel === "" ? name : join(rel, name);
    if (r === BACKUP_MARKER) continue; // a restored backup's own marker is not data
    const st = await lstat(join(root, r));
    if (st.isDirectory()) {
      out.push({ rel: r, kind: "dir", size: 0, mode: st.mode & 0o7777 });
      await walk(root, r, out);
    } else if (st.isFile()) out.push({ rel: r, kind: "file", size: st.size, mode: st.mode & 0o7777 });
    else if (st.isSymbolicLink()) out.push({ rel: r, kind: "link", size: 0, mode: 0 });
    // sockets and FIFOs are not data
  }
  return out;
}

/** `data-backup-2024-8-5` for 5 August 2024 (local date). */
export function backupName(d: Date = new Date()): string {
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
  bytes: number;
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

/** A complete backup of this plan, height and data directory in `backupDir`, if there is one. */
export async function findBackup(backupDir: string, dataDir: string, plan: { name: string; height: bigint }): Promise<string | undefined> {
  for (const n of (await readdir(backupDir).catch(() => [] as string[])).sort()) {
    if (!BACKUP_NAME.test(n)) continue;
    let marker: Partial<BackupMarker>;
    try {
      marker = JSON.parse(await readFile(join(backupDir, n, BACKUP_MARKER), "utf8")) as Partial<BackupMarker>;
    } catch {
      continue; // no marker: not ours, or not complete
    }
    if (marker.name === plan.name && marker.height === String(plan.height) && marker.data === dataDir) return join(backupDir, n);
  }
  return undefined;
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
}

/** Copies the data directory, or finds a complete copy made for the same plan; returns its path. */
export async function backupData(o: BackupOptions): Promise<{ path: string; reused: boolean }> {
  const src = o.layout.dataDir;
  const found = await findBackup(o.backupDir, src, o.plan);
  if (found) return { path: found, reused: true };
  await sweepStaleTemps(o.layout, o.backupDir, o.log);
  aborted(o.signal);
  const entries = await walk(src);
  const total = entries.reduce((n, e) => n + e.size, 0);
  const tmp = await tempDirFor(o.layout, o.backupDir);
  o.temp(tmp);
  await mkdir(tmp, { mode: 0o700 });
  const progress = createProgress("backup", { log: o.log, stream: o.progressStream }, total);
  let done = 0;
  let files = 0;
  try {
    for (const e of entries) {
      aborted(o.signal);
      const from = join(src, e.rel);
      const to = join(tmp, e.rel);
      if (e.kind === "dir") await mkdir(to, { mode: e.mode | 0o700 });
      else if (e.kind === "link") await symlink(await readlink(from), to);
      else {
        if (e.size >= STREAM_COPY_BYTES && o.signal) {
          await pipeline(createReadStream(from), createWriteStream(to, { mode: e.mode & 0o777 }), { signal: o.signal });
        } else await copyFile(from, to);
        done += e.size;
        files++;
        progress.update(done, total);
        await o.afterFile?.();
      }
    }
  } finally {
    progress.finish();
  }
  aborted(o.signal);
  // Written last, and flushed: a copy without it is never taken for a complete backup.
  const marker: BackupMarker = { name: o.plan.name, height: String(o.plan.height), data: src, created: (o.now ?? new Date()).toISOString(), files, bytes: done };
  const fh = await open(join(tmp, BACKUP_MARKER), "wx", 0o600);
  try {
    await fh.writeFile(JSON.stringify(marker) + "\n");
    await fh.sync();
  } finally {
    await fh.close();
  }
  // A fresh name: an exclusive mkdir reserves it, the rename then replaces that empty directory atomically.
  const base = join(o.backupDir, backupName(o.now));
  for (let i = 0; ; i++) {
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
    return { path: target, reused: false };
  }
}
