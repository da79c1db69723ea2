/**
 * Getting an upgrade's binary from Plan.Info (docs/spec/sidecar.md §7): the info parsed as the CLI parses it (inline
 * JSON, or one level of URL), **this platform's entry only** (D6 #7), its URL checked (http, https, file;
 * checksum rules of docs/spec/sidecar.md §7.3), downloaded into `.tmp/<dir>-<random>/` with a progress bar, verified before any
 * extraction, unpacked safely, made executable, and only then renamed to `upgrades/<dir>` (D6 #2).
 *
 * Transfer, limits, redirects and hostile-archive rules are the ones the CLI's plan-info validation uses
 * (bindings/cli/plan-info/): one implementation for both.
 */
import { chmod, mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { goQuote } from "../../go/quote.js";
import { archiveKind, installBinary } from "../../module/plan-info/archive.js";
import { parseChecksum, type CheckedUrl, type Checksum } from "../../module/plan-info/check.js";
import { download, fileNameOf, type DownloadLimits } from "../../module/plan-info/download.js";
import { GoUrlError, parseGoUrl, queryGet } from "../../go/url.js";
import { parseInfoJson } from "../../module/plan-info/parse.js";
import { ms, type VisorConfig } from "./config/index.js";
import { ensureBinary, type Layout } from "./layout.js";
import type { VisorLogger } from "./log.js";
import { osArch } from "./names.js";
import { createProgress } from "./progress.js";

/**
 * The download limits of the configuration (docs/spec/sidecar.md §3, §7.2): size, idle timeout, deadline, minimum
 * rate, and the visor's signal.
 */
export function downloadLimits(cfg: VisorConfig, signal?: AbortSignal): DownloadLimits {
  return {
    maxBytes: cfg.downloadMaxBytes,
    idleMs: Math.max(1, ms(cfg.downloadIdleTimeout)),
    timeoutMs: Math.max(1, Math.min(Number.MAX_SAFE_INTEGER, ms(cfg.downloadTimeout))),
    minRate: cfg.downloadMinRate,
    signal,
  };
}

/** Info documents fetched by URL are read into memory: capped well below the binary limit. */
const MAX_INFO_BYTES = 16 * 1024 * 1024;
const URL_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const BY_LENGTH: Record<number, Checksum["algo"]> = { 32: "md5", 40: "sha1", 64: "sha256", 128: "sha512" };

/** docs/spec/sidecar.md §7.3: `<algo>:<hex>`, bare hex guessed by its length, `file:` refused, anything else invalid. */
export function parseSidecarChecksum(value: string): Checksum {
  if (value.toLowerCase().startsWith("file:")) throw new Error(`unsupported checksum form ${goQuote(value)}`);
  const prefixed = parseChecksum(value);
  if (prefixed) return prefixed;
  if (/^[0-9a-fA-F]+$/.test(value) && BY_LENGTH[value.length]) return { algo: BY_LENGTH[value.length], hex: value.toLowerCase() };
  throw new Error(`invalid checksum ${goQuote(value)}`);
}

/** A URL the visor may fetch: http, https or file (a bare absolute path counts as file). Throws the problem. */
export function checkDownloadUrl(raw: string, mustHaveChecksum: boolean): CheckedUrl {
  let parsed;
  try {
    parsed = parseGoUrl(raw);
  } catch (e) {
    if (e instanceof GoUrlError) throw new Error(`parse ${goQuote(raw)}: ${e.message}`);
    throw e;
  }
  let scheme = parsed.scheme;
  if (scheme === "" && raw.startsWith("/")) scheme = "file";
  if (scheme !== "http" && scheme !== "https" && scheme !== "file") throw new Error(`unsupported URL scheme ${goQuote(scheme)}`);
  const value = queryGet(parsed.rawQuery, "checksum");
  if (value === "") {
    if (mustHaveChecksum) throw new Error("missing checksum query parameter");
    return { raw, scheme, checksum: undefined };
  }
  return { raw, scheme, checksum: parseSidecarChecksum(value) };
}

export interface FetchOptions {
  layout: Layout;
  daemonName: string;
  mustHaveChecksum: boolean;
  limits: DownloadLimits;
  log: VisorLogger;
  progressStream?: NodeJS.WriteStream;
  /** Registers a path to delete if the pipeline fails or is interrupted. */
  temp: (path: string) => void;
  /** The platform key (tests); default this machine's. */
  platform?: string;
  /** Told which entry and URL will be downloaded, before the transfer starts. */
  onSource?: (s: BinarySource) => void;
}

export interface BinarySource {
  /** `<os>/<arch>` or `any`. */
  key: string;
  url: CheckedUrl;
}

/** Fetches an info document given by URL into `work`; its text (trimmed). */
async function fetchInfoDocument(url: string, work: string, o: FetchOptions): Promise<string> {
  const checked = checkDownloadUrl(url, o.mustHaveChecksum);
  await mkdir(work, { recursive: true, mode: 0o700 });
  let text: string;
  try {
    const { file } = await download(checked, join(work, "info-" + fileNameOf(url)), { ...o.limits, maxBytes: Math.min(o.limits.maxBytes, MAX_INFO_BYTES) });
    text = (await readFile(file, "utf8")).trim();
  } catch (e) {
    throw new Error(`could not download url ${goQuote(url)}: ${(e as Error).message}`);
  }
  if (text === "") throw new Error(`no content returned by ${goQuote(url)}`);
  return text;
}

/**
 * Plan.Info → the binaries map → this platform's entry (`<os>/<arch>`, else `any`) with its URL checked.
 * `work` is a scratch directory for an info document given by URL.
 */
export async function binarySource(info: string, work: string, o: FetchOptions): Promise<BinarySource> {
  let binaries: Map<string, string>;
  try {
    let text = info.trim();
    if (text === "") throw new Error("plan info must not be blank");
    if (URL_FORM.test(text) || text.startsWith("/")) text = await fetchInfoDocument(text, work, o);
    binaries = parseInfoJson(text);
  } catch (e) {
    throw new Error(`cannot parse upgrade info: ${(e as Error).message}`);
  }
  if (binaries.size === 0) throw new Error('invalid binaries: no "binaries" entries found');
  const platform = o.platform ?? osArch();
  const key = binaries.has(platform) ? platform : binaries.has("any") ? "any" : undefined;
  if (key === undefined) {
    const [os, arch] = platform.split("/");
    throw new Error(`cannot find binary for os/arch: neither ${os}/${arch}, nor any`);
  }
  const raw = binaries.get(key)!;
  try {
    return { key, url: checkDownloadUrl(raw, o.mustHaveChecksum) };
  } catch (e) {
    throw new Error(`invalid binaries: invalid url ${goQuote(raw)} in binaries[${key}]: ${(e as Error).message}`);
  }
}

/**
 * Downloads, verifies and unpacks the binary for `planName` into `upgrades/<dir>`; returns the binary's
 * path. Everything happens in `.tmp/<dir>-<random>/`; `upgrades/<dir>` appears only complete (a rename).
 */
export async function fetchUpgrade(planName: string, info: string, o: FetchOptions): Promise<{ bin: string; source: BinarySource }> {
  const target = o.layout.upgradeDir(planName);
  const dirName = target.slice(o.layout.upgradesDir.length + 1);
  const work = await o.layout.tmpPath(dirName);
  o.temp(work);
  await mkdir(work, { mode: 0o700 });
  try {
    const source = await binarySource(info, join(work, "info"), o);
    o.onSource?.(source);
    if (source.url.checksum && (source.url.checksum.algo === "md5" || source.url.checksum.algo === "sha1")) {
      o.log.warn(`weak checksum algorithm ${source.url.checksum.algo} for the upgrade binary; prefer sha256 or sha512`, { url: source.url.raw });
    }
    if (!source.url.checksum) o.log.warn("the upgrade binary's URL has no checksum: it will not be verified", { url: source.url.raw });
    let result: string;
    try {
      const kind = archiveKind(source.url.raw);
      await mkdir(join(work, "download"), { mode: 0o700 });
      o.log.info("downloading upgrade binary", { url: source.url.raw, platform: source.key });
      const progress = createProgress("download", { log: o.log, stream: o.progressStream });
      const { file } = await download(source.url, join(work, "download", fileNameOf(source.url.raw)), o.limits, (done, total) => progress.update(done, total));
      progress.finish();
      if (source.url.checksum) o.log.info("checksum verified", { algo: source.url.checksum.algo, hex: source.url.checksum.hex });
      result = join(work, "result");
      await installBinary(file, kind, result, o.daemonName, source.url.raw, o.limits);
    } catch (e) {
      throw new Error(`cannot download binary. error downloading ${goQuote(source.url.raw)}: ${(e as Error).message}`);
    }
    try {
      await ensureBinary(join(result, "bin", o.daemonName));
    } catch (e) {
      throw new Error(`downloaded binary doesn't check out: ${(e as Error).message}`);
    }
    await chmod(result, 0o755);
    await mkdir(o.layout.upgradesDir, { recursive: true, mode: 0o755 });
    await rename(result, target);
    return { bin: join(target, "bin", o.daemonName), source };
  } finally {
    await rm(work, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  }
}

/** Whether a path exists (no matter what it is). */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
