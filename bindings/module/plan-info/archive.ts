/**
 * Turning a downloaded file into `bin/<daemon>` (docs/spec/sidecar.md §7.4), with the hostile-archive rules (D6):
 * tar.gz/tgz/tar through `tar`, zip through `yauzl`, single-file .gz through zlib. The whole archive is
 * refused for an absolute path, a drive letter, a backslash, a NUL, a `..` segment or a path resolving
 * outside the target; for any symlink, hard link, device, FIFO or socket; for more than 100,000 entries or
 * more than the byte limit extracted. Setuid/setgid/sticky bits are stripped. The limits' signal stops an
 * extraction at once (the error is the signal's reason); the caller removes the half-made output.
 *
 * `tar`, `yauzl` and node:zlib are loaded by the extraction that uses them: the sidecar loads this module at
 * start and may run for months before it unpacks anything.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { chmod, lstat, mkdir, readdir, rename } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type * as Tar from "tar";
import type * as Yauzl from "yauzl";
import { goQuote } from "../../go/quote.js";
import type { DownloadLimits } from "./download.js";
import { parseGoUrl, queryGet } from "../../go/url.js";
import { BinaryInstallError, BrokenArchiveError, UnsafeArchiveError, UnsupportedArchiveError } from "./errors.js";

export type ArchiveKind = "tar.gz" | "tar" | "zip" | "gz";

const MAX_ENTRIES = 100_000;

const KINDS: Record<string, ArchiveKind> = { "tar.gz": "tar.gz", tgz: "tar.gz", tar: "tar", zip: "zip", gz: "gz" };
const UNSUPPORTED = [".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".tar.lz", ".tar.lzma", ".bz2", ".xz", ".zst", ".7z", ".rar"];

/** The archive kind of a URL (`?archive=` or the path's extension); undefined for a plain file. */
export function archiveKind(raw: string): ArchiveKind | undefined {
  let rawQuery = "";
  try {
    rawQuery = parseGoUrl(raw).rawQuery;
  } catch {
    /* checked before */
  }
  const param = queryGet(rawQuery, "archive");
  if (param !== "") {
    if (param === "false") return undefined;
    const kind = KINDS[param.toLowerCase().replace(/^\./, "")];
    if (!kind) throw new UnsupportedArchiveError(`unsupported archive format ${goQuote(param)}`);
    return kind;
  }
  const path = raw.split("?")[0].split("#")[0].toLowerCase();
  if (path.endsWith(".tar.gz") || path.endsWith(".tgz")) return "tar.gz";
  if (path.endsWith(".tar")) return "tar";
  if (path.endsWith(".zip")) return "zip";
  for (const ext of UNSUPPORTED) if (path.endsWith(ext)) throw new UnsupportedArchiveError(`unsupported archive format ${goQuote(ext)}`);
  if (path.endsWith(".gz")) return "gz";
  return undefined;
}

/** Why an entry name is unsafe, or undefined. */
function unsafeEntryName(name: string, target: string): string | undefined {
  if (name.includes("\0")) return "NUL in the name";
  if (name.includes("\\")) return "backslash in the name";
  if (name.startsWith("/")) return "absolute path";
  if (/^[A-Za-z]:/.test(name)) return "drive letter";
  if (name.split("/").some((s) => s === "..")) return "'..' segment";
  const full = resolve(target, name);
  if (full !== target && !full.startsWith(target + sep)) return "resolves outside the target directory";
  return undefined;
}

const refuse = (name: string, why: string) => new UnsafeArchiveError(`refusing archive: entry ${goQuote(name)}: ${why}`);

function limitStream(limits: DownloadLimits, counter: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      counter.bytes += chunk.length;
      if (counter.bytes > limits.maxBytes)
        return done(new UnsafeArchiveError(`refusing archive: more than ${limits.maxBytes} bytes extracted (DAEMON_DOWNLOAD_MAX_BYTES)`));
      done(null, chunk);
    },
  });
}

/** Throws the signal's reason when it has fired. */
function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}

// ---- tar ----

/**
 * Feeds `file` into a tar Parser (settles on "end") or Unpack (settles on "close", once every file is
 * written), as tar's own file mode does; the signal aborts the parser and the read at once.
 */
function runTar(stream: Tar.Parser | Tar.Unpack, file: string, done: "end" | "close", signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const input = createReadStream(file);
    const cleanup = () => signal?.removeEventListener("abort", onAbort);
    const fail = (e: unknown) => {
      cleanup();
      input.destroy();
      reject(e);
    };
    const onAbort = () => {
      fail(signal!.reason);
      stream.abort(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason)));
      // An aborted parser still hands out every entry it has already parsed — one read of a well-compressed
      // archive can hold thousands — and an Unpack writes each as a file, racing the caller's clean-up for
      // seconds. Its own 'entry' listener is what writes them: replace it with one that drops the entry.
      stream.removeAllListeners("entry");
      stream.on("entry", (entry: Tar.ReadEntry) => entry.resume());
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    stream.on("error", fail);
    input.on("error", fail);
    stream.on(done, () => {
      cleanup();
      resolve();
    });
    input.pipe(stream);
  });
}

async function extractTar(file: string, out: string, gzip: boolean, limits: DownloadLimits): Promise<void> {
  const tar = await import("tar");
  let count = 0;
  let total = 0;
  let problem: Error | undefined;
  const listing = new tar.Parser({
    gzip,
    strict: true,
    onReadEntry: (entry) => {
      entry.resume(); // listed only: the body is skipped
      if (problem) return;
      count++;
      const name = entry.path;
      const why = unsafeEntryName(name, out);
      if (why) problem = refuse(name, why);
      else if (!["File", "OldFile", "ContiguousFile", "Directory"].includes(entry.type)) problem = refuse(name, `${entry.type} entries are not allowed`);
      else if (count > MAX_ENTRIES) problem = new UnsafeArchiveError(`refusing archive: more than ${MAX_ENTRIES} entries`);
      else if ((total += entry.size ?? 0) > limits.maxBytes)
        problem = new UnsafeArchiveError(`refusing archive: more than ${limits.maxBytes} bytes extracted (DAEMON_DOWNLOAD_MAX_BYTES)`);
    },
  });
  await runTar(listing, file, "end", limits.signal).catch((e: Error) => {
    checkAborted(limits.signal);
    throw new BrokenArchiveError(`cannot read archive: ${e.message}`);
  });
  if (problem) throw problem;
  const unpack = new tar.Unpack({ gzip, cwd: out, strict: true, preservePaths: false, preserveOwner: false, noMtime: true });
  await runTar(unpack, file, "close", limits.signal).catch((e: Error) => {
    checkAborted(limits.signal);
    throw new BrokenArchiveError(`cannot extract archive: ${e.message}`);
  });
}

// ---- zip ----

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

async function openZip(file: string): Promise<Yauzl.ZipFile> {
  const { open } = (await import("yauzl")).default;
  return new Promise((ok, fail) =>
    open(file, { lazyEntries: true, autoClose: false, strictFileNames: true, validateEntrySizes: true, decodeStrings: true }, (err, zip) =>
      err ? fail(new BrokenArchiveError(`cannot read archive: ${err.message}`)) : ok(zip),
    ),
  );
}

function readEntries(zip: Yauzl.ZipFile): Promise<Yauzl.Entry[]> {
  return new Promise((ok, fail) => {
    const entries: Yauzl.Entry[] = [];
    zip.on("entry", (e: Yauzl.Entry) => {
      entries.push(e);
      if (entries.length > MAX_ENTRIES) {
        zip.close();
        return fail(new UnsafeArchiveError(`refusing archive: more than ${MAX_ENTRIES} entries`));
      }
      zip.readEntry();
    });
    zip.on("end", () => ok(entries));
    zip.on("error", (e: Error) => fail(new BrokenArchiveError(`cannot read archive: ${e.message}`)));
    zip.readEntry();
  });
}

function entryStream(zip: Yauzl.ZipFile, entry: Yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((ok, fail) => zip.openReadStream(entry, (err, s) => (err ? fail(new BrokenArchiveError(`cannot read archive: ${err.message}`)) : ok(s))));
}

async function extractZip(file: string, out: string, limits: DownloadLimits): Promise<void> {
  const zip = await openZip(file);
  try {
    const entries = await readEntries(zip);
    let total = 0;
    for (const e of entries) {
      const why = unsafeEntryName(e.fileName, out);
      if (why) throw refuse(e.fileName, why);
      const unix = e.versionMadeBy >> 8 === 3;
      const mode = unix ? e.externalFileAttributes >>> 16 : 0;
      const type = mode & S_IFMT;
      if (type !== 0 && type !== S_IFREG && type !== S_IFDIR)
        throw refuse(e.fileName, type === 0o120000 ? "symlinks are not allowed" : "special files are not allowed");
      if (e.isEncrypted()) throw refuse(e.fileName, "encrypted entries are not supported");
      if ((total += e.uncompressedSize) > limits.maxBytes)
        throw new UnsafeArchiveError(`refusing archive: more than ${limits.maxBytes} bytes extracted (DAEMON_DOWNLOAD_MAX_BYTES)`);
    }
    const counter = { bytes: 0 };
    for (const e of entries) {
      checkAborted(limits.signal);
      const target = resolve(out, e.fileName);
      const unix = e.versionMadeBy >> 8 === 3;
      const mode = unix ? e.externalFileAttributes >>> 16 : 0;
      if (e.fileName.endsWith("/") || (mode & S_IFMT) === S_IFDIR) {
        await mkdir(target, { recursive: true, mode: 0o755 });
        continue;
      }
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      const perm = mode & 0o777 || 0o644;
      const streams = [await entryStream(zip, e), limitStream(limits, counter), createWriteStream(target, { mode: perm, flags: "wx" })] as const;
      await (limits.signal ? pipeline(...streams, { signal: limits.signal }) : pipeline(...streams)).catch((err: Error) => {
        checkAborted(limits.signal);
        throw (err as { code?: string }).code === "EEXIST" ? refuse(e.fileName, "duplicate entry") : err;
      });
    }
  } finally {
    zip.close();
  }
}

// ---- layout ----

/** Regular files under dir (relative paths); refuses anything else that slipped through. */
async function walk(dir: string, rel = ""): Promise<string[]> {
  const files: string[] = [];
  for (const name of await readdir(join(dir, rel))) {
    const path = rel === "" ? name : `${rel}/${name}`;
    const st = await lstat(join(dir, path));
    if (st.isSymbolicLink()) throw refuse(path, "symlinks are not allowed");
    if (st.isDirectory()) {
      await chmod(join(dir, path), st.mode & 0o777);
      files.push(...(await walk(dir, path)));
    } else if (st.isFile()) {
      if (st.mode & 0o7000) await chmod(join(dir, path), st.mode & 0o777); // strip setuid/setgid/sticky
      files.push(path);
    } else throw refuse(path, "special files are not allowed");
  }
  return files;
}

/**
 * Installs a downloaded file as `<out>/bin/<daemon>` (out must not exist yet); returns the binary's path.
 * Not an archive: the file itself. An archive with one regular file: that file. Otherwise `bin/<daemon>`,
 * or `<daemon>` at the top moved into `bin/`.
 */
export async function installBinary(
  downloaded: string,
  kind: ArchiveKind | undefined,
  out: string,
  daemon: string,
  url: string,
  limits: DownloadLimits,
): Promise<string> {
  checkAborted(limits.signal);
  await mkdir(out, { recursive: true, mode: 0o700 });
  const bin = join(out, "bin", daemon);
  if (kind === undefined) {
    await mkdir(join(out, "bin"), { mode: 0o755 });
    await rename(downloaded, bin);
  } else if (kind === "gz") {
    await mkdir(join(out, "bin"), { mode: 0o755 });
    const counter = { bytes: 0 };
    const { createGunzip } = process.getBuiltinModule("node:zlib");
    const streams = [createReadStream(downloaded), createGunzip(), limitStream(limits, counter), createWriteStream(bin, { mode: 0o755 })] as const;
    await (limits.signal ? pipeline(...streams, { signal: limits.signal }) : pipeline(...streams)).catch((e: Error) => {
      checkAborted(limits.signal);
      throw e instanceof UnsafeArchiveError ? e : new BrokenArchiveError(`cannot decompress: ${e.message}`);
    });
  } else {
    if (kind === "zip") await extractZip(downloaded, out, limits);
    else await extractTar(downloaded, out, kind === "tar.gz", limits);
    checkAborted(limits.signal);
    const files = await walk(out);
    if (files.length === 1 && files[0] !== `bin/${daemon}`) {
      await mkdir(join(out, "bin"), { recursive: true, mode: 0o755 });
      await rename(join(out, files[0]), bin);
    } else if (!files.includes(`bin/${daemon}`)) {
      if (!files.includes(daemon)) throw new BinaryInstallError(`url ${goQuote(url)} result does not contain a bin/${daemon} or ${daemon} file`);
      try {
        await mkdir(join(out, "bin"), { recursive: true, mode: 0o755 });
        await rename(join(out, daemon), bin);
      } catch (e) {
        throw new BinaryInstallError(`could not move ${daemon} to the bin directory: ${(e as Error).message}`);
      }
    }
  }
  const st = await lstat(bin).catch(() => undefined);
  if (!st || !st.isFile()) throw new BinaryInstallError(`${bin} is not a regular file`);
  await chmod(bin, (st.mode & 0o777) | 0o555);
  return bin;
}
