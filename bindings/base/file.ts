/**
 * A durable atomic write (Node only): the data goes to a new temporary file beside the target, is flushed to
 * the disk (fsync), renamed over the target, and the directory is flushed so the rename survives a crash too.
 * After a crash a reader finds the old file, the new one, or none, never a part; at worst a hidden
 * `.<name>.<pid>.<random>.tmp` stays behind, which no reader looks at. A failure removes the temporary file.
 */
import { access, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /**
   * The new file's permissions, exactly (the umask does not apply: for files that must stay private, e.g.
   * 0o600). Without it the file gets 0o666 less the umask, as any new file.
   */
  mode?: number;
}

/**
 * `bytes` random bytes in hex, for temporary names. node:crypto is taken when a name is made (getBuiltinModule:
 * synchronous in every bundle): a long-running process that imports this floor (the sidecar) need not load it.
 */
export const randomHex = (bytes: number): string => process.getBuiltinModule("node:crypto").randomBytes(bytes).toString("hex");

export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomHex(8)}.tmp`);
  let created = false;
  try {
    const fh = await open(temp, "wx", options.mode ?? 0o666);
    created = true;
    try {
      if (options.mode !== undefined) await fh.chmod(options.mode);
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, path);
    created = false;
  } catch (err) {
    if (created) await unlink(temp).catch(() => {});
    throw err;
  }
  await syncDirectory(dir);
}

/** Makes a rename in `dir` durable. Best effort: some platforms cannot open or fsync a directory. */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const fh = await open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // ignored on purpose
  }
}

/** Whether something exists at `path` (a file, a directory, anything a link leads to). */
export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
