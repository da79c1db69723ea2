/**
 * Getting an upgrade's binary from Plan.Info (docs/spec/sidecar.md §7) through plan-info's one download path
 * (module/plan-info/fetch.ts): the info resolved as the CLI resolves it (inline JSON, or one level of URL),
 * **this platform's entry only** (D6 #7), its URL checked with the sidecar's checksum forms (§7.3),
 * downloaded into `.tmp/<dir>-<random>/` with a progress bar, verified before any extraction, unpacked
 * safely, made executable, and only then renamed to `upgrades/<dir>` (D6 #2).
 */
import { chmod, mkdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { messageOf } from "../../../base/errors.js";
import { goQuote } from "../../../go/quote.js";
import { checkUrl, type CheckedUrl } from "../../../module/plan-info/check.js";
import { download, type Downloaded, type DownloadLimits } from "../../../module/plan-info/download.js";
import { fetchBinary, resolveInfo } from "../../../module/plan-info/fetch.js";
import { ms, type VisorConfig } from "../config/index.js";
import { ensureBinary, type Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { osArch } from "../names.js";
import { createProgress } from "../progress.js";
import { VisorError } from "../errors.js";

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
  /** Bytes received so far (the download's size in the log and the metrics). */
  onBytes?: (n: number) => void;
  /** Release keys (DAEMON_DOWNLOAD_SIGNING_KEYS) the download must be signed by; none: no signature check. */
  signing?: { keys: readonly string[]; namespace: string };
}

/** The signature check of a download from `source` when release keys are configured (`fetchBinary`'s verify), else undefined. */
export function signatureCheck(source: BinarySource, work: string, o: FetchOptions): ((d: Downloaded) => Promise<void>) | undefined {
  return o.signing && o.signing.keys.length > 0 ? (d) => checkSignature(d, source, work, o) : undefined;
}

/** The signature's size limit: an SSH signature is well under 1 KiB. */
const MAX_SIGNATURE_BYTES = 64 * 1024;

/**
 * docs/spec/sidecar.md §7.5: the downloaded file's SSH signature (`<url>.sig`), made by one of the release
 * keys, checked after the checksum and before anything is unpacked. The verifier is loaded only here.
 */
async function checkSignature(d: Downloaded, source: BinarySource, work: string, o: FetchOptions): Promise<void> {
  const signing = o.signing!;
  const { signatureUrlOf, verifyFileSignature, SignatureError } = await import("./signature.js");
  const { parseSigningKey } = await import("./ssh-key.js");
  const sigUrl = signatureUrlOf(source.url.raw);
  const refused = (why: string) => new VisorError(`the downloaded binary's signature is refused: ${why}; nothing was installed`);
  const checked = checkUrl(sigUrl, false, "sidecar");
  if ("problem" in checked) throw refused(`invalid signature url ${goQuote(sigUrl)}: ${checked.problem}`);
  let text: string;
  try {
    const got = await download(checked, join(work, "signature.sig"), { ...o.limits, maxBytes: Math.min(o.limits.maxBytes, MAX_SIGNATURE_BYTES) });
    text = await readFile(got.file, "utf8");
  } catch (e) {
    throw refused(`cannot download the signature ${goQuote(sigUrl)}: ${messageOf(e)}`);
  }
  try {
    const key = await verifyFileSignature(d.file, text, signing.keys.map(parseSigningKey), signing.namespace);
    o.log.info("signature verified", { url: sigUrl, key: key.comment || key.line.split(" ")[1].slice(0, 16), namespace: signing.namespace });
  } catch (e) {
    if (e instanceof SignatureError) throw refused(`${e.check}: ${e.message}`);
    throw e;
  }
}

export interface BinarySource {
  /** `<os>/<arch>` or `any`. */
  key: string;
  url: CheckedUrl;
}

/**
 * Plan.Info → the binaries map → this platform's entry (`<os>/<arch>`, else `any`) with its URL checked.
 * `work` is a scratch directory for an info document given by URL.
 */
export async function binarySource(info: string, work: string, o: FetchOptions): Promise<BinarySource> {
  let binaries: Map<string, string>;
  try {
    binaries = await resolveInfo(info, work, { limits: o.limits, enforceChecksum: o.mustHaveChecksum, checksums: "sidecar" });
  } catch (e) {
    throw new VisorError(`cannot parse upgrade info: ${messageOf(e)}`);
  }
  if (binaries.size === 0) throw new VisorError('invalid binaries: no "binaries" entries found');
  const platform = o.platform ?? osArch();
  const key = binaries.has(platform) ? platform : binaries.has("any") ? "any" : undefined;
  if (key === undefined) {
    const [os, arch] = platform.split("/");
    throw new VisorError(`cannot find binary for os/arch: neither ${os}/${arch}, nor any`);
  }
  const raw = binaries.get(key)!;
  const url = checkUrl(raw, o.mustHaveChecksum, "sidecar");
  if ("problem" in url) throw new VisorError(`invalid binaries: invalid url ${goQuote(raw)} in binaries[${key}]: ${url.problem}`);
  return { key, url };
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
      o.log.info("downloading upgrade binary", { url: source.url.raw, platform: source.key });
      const progress = createProgress("download", { log: o.log, stream: o.progressStream });
      ({ result } = await fetchBinary(source.url, join(work, "download"), {
        daemonName: o.daemonName,
        limits: o.limits,
        onProgress: (done, total) => {
          progress.update(done, total);
          o.onBytes?.(done);
        },
        onDownloaded: () => {
          progress.finish();
          if (source.url.checksum) o.log.info("checksum verified", { algo: source.url.checksum.algo, hex: source.url.checksum.hex });
        },
        verify: signatureCheck(source, work, o),
      }));
    } catch (e) {
      if (e instanceof VisorError) throw e;
      throw new VisorError(`cannot download binary. error downloading ${goQuote(source.url.raw)}: ${messageOf(e)}`);
    }
    try {
      await ensureBinary(join(result, "bin", o.daemonName));
    } catch (e) {
      throw new VisorError(`downloaded binary doesn't check out: ${messageOf(e)}`);
    }
    await chmod(result, 0o755);
    await mkdir(o.layout.upgradesDir, { recursive: true, mode: 0o755 });
    await rename(result, target);
    return { bin: join(target, "bin", o.daemonName), source };
  } finally {
    await rm(work, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  }
}
