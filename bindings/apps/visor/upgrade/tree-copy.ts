/**
 * Copying a node's data directory cheaply and safely (docs/spec/sidecar.md §6 step 3): the backup, the
 * rollback's restore and the committed-height probe all copy `data/` this way.
 *
 * The table files of LevelDB, Pebble and RocksDB (`<number>.ldb`, `<number>.sst`) are immutable once
 * written — the database only ever deletes them — and so are the chunks CometBFT's WAL rotated out
 * (`cs.wal/wal.<n>`); they are hard-linked when the copy is on the same file system: the copy costs a
 * directory entry, not the bytes. Every other file (`CURRENT`, `MANIFEST-*`, `LOG`,
 * the active `*.log`, CometBFT's WAL, JSON state) may be changed in place and is copied, as a reflink where
 * the file system offers one (Btrfs, XFS; the kernel falls back to a plain copy elsewhere). A file that
 * cannot be linked (another file system) is copied.
 */
import { createReadStream, createWriteStream, constants as fsc } from "node:fs";
import { copyFile, link, lstat, mkdir, readdir, readlink, statfs, symlink } from "node:fs/promises";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";

/**
 * A file written once, never modified, only deleted (`rel` relative to `data/`): a table file of LevelDB,
 * Pebble or RocksDB, or a chunk of CometBFT's consensus WAL that its autofile group rotated out
 * (`cs.wal/wal.000`, …: the head `cs.wal/wal` is renamed to the next index, then only read or removed).
 */
export const isImmutable = (rel: string): boolean => /^\d+\.(ldb|sst)$/.test(basename(rel)) || /(^|\/)cs\.wal\/wal\.\d{3,}$/.test(rel);

export interface TreeEntry {
  rel: string;
  kind: "dir" | "file" | "link";
  size: number;
  mode: number;
}

/** Everything under `root` (sorted, depth first), except names `skip` says to leave out; sockets and FIFOs are not data. */
export async function walkTree(root: string, skip: (rel: string) => boolean = () => false, rel = "", out: TreeEntry[] = []): Promise<TreeEntry[]> {
  for (const name of (await readdir(join(root, rel))).sort()) {
    const r = rel === "" ? name : join(rel, name);
    if (skip(r)) continue;
    const st = await lstat(join(root, r));
    if (st.isDirectory()) {
      out.push({ rel: r, kind: "dir", size: 0, mode: st.mode & 0o7777 });
      await walkTree(root, skip, r, out);
    } else if (st.isFile()) out.push({ rel: r, kind: "file", size: st.size, mode: st.mode & 0o7777 });
    else if (st.isSymbolicLink()) out.push({ rel: r, kind: "link", size: 0, mode: 0 });
  }
  return out;
}

export interface CopyEstimate {
  files: number;
  /** Bytes that will be copied (what the destination's file system must have free). */
  bytesToCopy: number;
  /** Bytes of immutable table files that will be hard-linked instead. */
  bytesToLink: number;
}

/** What copying `entries` costs: with links (same file system), the table files cost nothing. */
export function estimateCopy(entries: readonly TreeEntry[], canLink: boolean): CopyEstimate {
  const est = { files: 0, bytesToCopy: 0, bytesToLink: 0 };
  for (const e of entries) {
    if (e.kind !== "file") continue;
    est.files++;
    if (canLink && isImmutable(e.rel)) est.bytesToLink += e.size;
    else est.bytesToCopy += e.size;
  }
  return est;
}

/** Bytes an unprivileged writer may still use on the file system holding `path`. */
export async function freeBytes(path: string): Promise<number> {
  const s = await statfs(path);
  return s.bavail * s.bsize;
}

/** Files from this size on are copied as streams, so a signal stops the copy inside them. */
const STREAM_COPY_BYTES = 16 * 1024 * 1024;

export interface CopyTreeOptions {
  /** Hard-link the immutable table files (the caller knows both sides are on one file system; EXDEV falls back to a copy). */
  link: boolean;
  signal?: AbortSignal;
  /** After each file, with the bytes done so far (copied + linked). */
  onFile?: (done: number) => void | Promise<void>;
}

export interface CopyResult {
  files: number;
  bytesCopied: number;
  bytesLinked: number;
}

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}

/** Copies `entries` of `src` into the existing directory `dest`. */
export async function copyTree(src: string, dest: string, entries: readonly TreeEntry[], o: CopyTreeOptions): Promise<CopyResult> {
  const r: CopyResult = { files: 0, bytesCopied: 0, bytesLinked: 0 };
  for (const e of entries) {
    aborted(o.signal);
    const from = join(src, e.rel);
    const to = join(dest, e.rel);
    if (e.kind === "dir") await mkdir(to, { mode: e.mode | 0o700 });
    else if (e.kind === "link") await symlink(await readlink(from), to);
    else {
      let linked = false;
      if (o.link && isImmutable(e.rel)) {
        try {
          await link(from, to);
          linked = true;
        } catch (err) {
          if (!["EXDEV", "EPERM", "EMLINK", "ENOTSUP"].includes((err as NodeJS.ErrnoException).code ?? "")) throw err;
        }
      }
      if (linked) r.bytesLinked += e.size;
      else {
        await copyOne(from, to, e, o.signal);
        r.bytesCopied += e.size;
      }
      r.files++;
      await o.onFile?.(r.bytesCopied + r.bytesLinked);
    }
  }
  aborted(o.signal);
  return r;
}

/** One file: a reflink when the file system can (instant), else a copy — streamed for big files so a signal stops it. */
async function copyOne(from: string, to: string, e: TreeEntry, signal: AbortSignal | undefined): Promise<void> {
  try {
    await copyFile(from, to, fsc.COPYFILE_FICLONE_FORCE | fsc.COPYFILE_EXCL);
    return;
  } catch {
    // no reflinks here: a copy
  }
  if (e.size >= STREAM_COPY_BYTES && signal) {
    await pipeline(createReadStream(from), createWriteStream(to, { mode: e.mode & 0o777, flags: "wx" }), { signal });
  } else await copyFile(from, to, fsc.COPYFILE_EXCL);
}
