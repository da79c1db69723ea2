/**
 * The data backup before a switch (docs/spec/sidecar.md §6 step 2, D6 #11): `$DAEMON_HOME/data` copied into a
 * temporary directory on the backup volume, then renamed to `data-backup-<Y>-<M>-<D>` (local date, month and
 * day not zero-padded), or `.1`, `.2`, … when that exists — never merged into an earlier backup. Progress
 * bar on a terminal, progress lines otherwise.
 */
import { copyFile, lstat, mkdir, readdir, readlink, rename, rm, stat, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { random, type Layout } from "./layout.js";
import type { Logger } from "./log.js";
import { createProgress } from "./progress.js";

interface Entry {
  rel: string;
  kind: "dir" | "file" | "link";
  size: number;
  mode: number;
}

async function walk(root: string, rel = "", out: Entry[] = []): Promise<Entry[]> {
  for (const name of (await readdir(join(root, rel))).sort()) {
    const r = rel === "" ? name : join(rel, name);
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

/** Where the copy is made before the rename: `.tmp/` when it shares the backup volume, else the backup dir. */
async function tempDirFor(layout: Layout, backupDir: string): Promise<string> {
  const tmp = await layout.tmpPath("backup");
  const [a, b] = await Promise.all([stat(dirname(tmp)), stat(backupDir)]);
  return a.dev === b.dev ? tmp : join(backupDir, `.data-backup-${random()}.tmp`);
}

export interface BackupOptions {
  layout: Layout;
  backupDir: string;
  log: Logger;
  progressStream?: NodeJS.WriteStream;
  /** Registers a path to delete if the pipeline fails or is interrupted. */
  temp: (path: string) => void;
  now?: Date;
}

/** Copies the data directory; returns the backup's path. */
export async function backupData(o: BackupOptions): Promise<string> {
  const src = o.layout.dataDir;
  const entries = await walk(src);
  const total = entries.reduce((n, e) => n + e.size, 0);
  const tmp = await tempDirFor(o.layout, o.backupDir);
  o.temp(tmp);
  await mkdir(tmp, { mode: 0o700 });
  const progress = createProgress("backup", { log: o.log, stream: o.progressStream }, total);
  let done = 0;
  for (const e of entries) {
    const from = join(src, e.rel);
    const to = join(tmp, e.rel);
    if (e.kind === "dir") await mkdir(to, { mode: e.mode | 0o700 });
    else if (e.kind === "link") await symlink(await readlink(from), to);
    else {
      await copyFile(from, to);
      done += e.size;
      progress.update(done, total);
    }
  }
  progress.finish();
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
    return target;
  }
}
