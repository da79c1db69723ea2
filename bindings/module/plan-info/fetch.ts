/**
 * The one way plan info leads to a binary (docs/spec/interfaces.md §9, docs/spec/sidecar.md §7): the CLI's
 * validation, the sidecar's upgrade and its pre-flight all take these two steps.
 *
 * 1. `resolveInfo`: Plan.Info → its binaries map. Blank is refused; a URL (one level) is checked, downloaded
 *    with the limits into memory (at most 16 MiB) and read as the document; JSON is read as Go reads it.
 * 2. `fetchBinary`: one entry's checked URL → downloaded into a directory, its checksum verified before
 *    anything is unpacked, installed as `<dir>/result/bin/<daemon>`.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { messageOf } from "../../base/errors.js";
import { goQuote } from "../../go/quote.js";
import { archiveKind, installBinary } from "./archive.js";
import { checkUrl, type CheckedUrl, type ChecksumForms } from "./check.js";
import { download, fileNameOf, type Downloaded, type DownloadLimits, type ProgressCallback } from "./download.js";
import { PlanInfoError } from "./errors.js";
import { parseInfoJson } from "./parse.js";

/** Info documents fetched by URL are read into memory: capped well below the binary limit. */
const MAX_INFO_BYTES = 16 * 1024 * 1024;
const URL_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export interface ResolveInfoOptions {
  limits: DownloadLimits;
  /** A URL without a `checksum` is refused. */
  enforceChecksum: boolean;
  /** Which checksum forms a URL may carry (check.ts): the CLI's `prefixed`, or the sidecar's. */
  checksums?: ChecksumForms;
}

/** The binaries map of Plan.Info (possibly empty), `work` a scratch directory for a document given by URL. */
export async function resolveInfo(info: string, work: string, o: ResolveInfoOptions): Promise<Map<string, string>> {
  let text = info.trim();
  if (text === "") throw new PlanInfoError("plan info must not be blank");
  if (URL_FORM.test(text) || text.startsWith("/")) {
    const url = text;
    const checked = checkUrl(url, o.enforceChecksum, o.checksums);
    if ("problem" in checked) throw new PlanInfoError(`invalid url ${goQuote(url)}: ${checked.problem}`);
    try {
      await mkdir(work, { recursive: true, mode: 0o700 });
      const { file } = await download(checked, join(work, "info-" + fileNameOf(url)), { ...o.limits, maxBytes: Math.min(o.limits.maxBytes, MAX_INFO_BYTES) });
      text = (await readFile(file, "utf8")).trim();
    } catch (e) {
      throw new PlanInfoError(`could not download url ${goQuote(url)}: ${messageOf(e)}`);
    }
    if (text === "") throw new PlanInfoError(`no content returned by ${goQuote(url)}`);
  }
  return parseInfoJson(text);
}

export interface FetchBinaryOptions {
  daemonName: string;
  limits: DownloadLimits;
  /** Every chunk received (a progress bar). */
  onProgress?: ProgressCallback;
  /** The download is complete and its checksum verified; unpacking comes next. */
  onDownloaded?: (d: Downloaded) => void;
  /** A further check of the downloaded file (the sidecar's signature), awaited before anything is unpacked; it throws to refuse. */
  verify?: (d: Downloaded) => Promise<void>;
}

/** Downloads, verifies and installs one binary into `dir` (created); errors are plain, the caller words the context. */
export async function fetchBinary(url: CheckedUrl, dir: string, o: FetchBinaryOptions): Promise<{ bin: string; result: string; bytes: number }> {
  const kind = archiveKind(url.raw);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const downloaded = await download(url, join(dir, fileNameOf(url.raw)), o.limits, o.onProgress);
  o.onDownloaded?.(downloaded);
  await o.verify?.(downloaded);
  const result = join(dir, "result");
  const bin = await installBinary(downloaded.file, kind, result, o.daemonName, url.raw, o.limits);
  return { bin, result, bytes: downloaded.bytes };
}
