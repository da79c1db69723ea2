/**
 * Downloads for plan-info validation with the sidecar's transfer rules (docs/spec/sidecar.md §7.2–§7.3): http, https
 * and file only; `checksum` and `archive` query parameters removed before the request; at most 10
 * redirects and never https → http; non-2xx → `bad response code: <status>`; a byte limit checked against
 * Content-Length and while streaming; an idle timeout, an overall deadline and a minimum rate (a server
 * trickling one byte a second never trips the idle timeout); the digest computed on the fly and checked
 * after. An AbortSignal stops a transfer at once (the sidecar's SIGINT/SIGTERM).
 *
 * The sidecar loads this module at start (its limits and defaults) and may supervise a node for months
 * before it downloads anything, so node:http, node:https and node:crypto are taken when a transfer starts
 * (getBuiltinModule: synchronous in every bundle), not when the module loads.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import type * as Http from "node:http";
import { basename } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { messageOf } from "../../base/errors.js";
import { formatGoDuration } from "../../go/duration.js";
import { parseEnvDuration, parseEnvInteger } from "../../go/option.js";
import { extraCaCerts } from "../../base/ca-certs.js";
import type { CheckedUrl, Checksum } from "./check.js";
import { ChecksumMismatchError, DownloadError, PlanInfoError } from "./errors.js";

export interface DownloadLimits {
  /** Bytes per download and per extraction (DAEMON_DOWNLOAD_MAX_BYTES). */
  maxBytes: number;
  /** A transfer that receives nothing for this long fails (DAEMON_DOWNLOAD_IDLE_TIMEOUT). */
  idleMs: number;
  /** A transfer must be complete within this, redirects included (DAEMON_DOWNLOAD_TIMEOUT); undefined: no deadline. */
  timeoutMs?: number;
  /**
   * Bytes per second a transfer must keep up over every `idleMs`-long span (DAEMON_DOWNLOAD_MIN_RATE): fewer
   * than minRate × idleMs bytes in such a span fail it. 0 or undefined: no minimum (the idle timeout stays).
   */
  minRate?: number;
  /** Stops a transfer, and an extraction, at once; the error thrown is the signal's reason. */
  signal?: AbortSignal;
}

export const DEFAULT_MAX_BYTES = 4294967296;
export const DEFAULT_IDLE_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 3_600_000;
export const DEFAULT_MIN_RATE = 1024;
const MAX_REDIRECTS = 10;

/** A duration variable (go/option.ts: > 0), in milliseconds (at least 1). */
function durationVar(env: NodeJS.ProcessEnv, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return def;
  const ms = envOption(() => parseEnvDuration(name, raw)) / 1_000_000n;
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Math.max(1, Number(ms));
}

/** An integer variable (decimal digits), ≥ `min`, a safe integer. */
function integerVar(env: NodeJS.ProcessEnv, name: string, def: number, min: 0n | 1n): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return def;
  return Number(envOption(() => parseEnvInteger(name, raw, { min, max: BigInt(Number.MAX_SAFE_INTEGER) })));
}

/** The variable's value, or its problem as a PlanInfoError. */
function envOption(read: () => bigint): bigint {
  try {
    return read();
  } catch (e) {
    throw new PlanInfoError(messageOf(e));
  }
}

/**
 * The download limits from the environment (docs/spec/sidecar.md §3): DAEMON_DOWNLOAD_MAX_BYTES, _IDLE_TIMEOUT,
 * _TIMEOUT and _MIN_RATE, with their defaults; the first invalid one throws its message.
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Required<Omit<DownloadLimits, "signal">> {
  return {
    maxBytes: integerVar(env, "DAEMON_DOWNLOAD_MAX_BYTES", DEFAULT_MAX_BYTES, 1n),
    idleMs: durationVar(env, "DAEMON_DOWNLOAD_IDLE_TIMEOUT", DEFAULT_IDLE_MS),
    timeoutMs: durationVar(env, "DAEMON_DOWNLOAD_TIMEOUT", DEFAULT_TIMEOUT_MS),
    minRate: integerVar(env, "DAEMON_DOWNLOAD_MIN_RATE", DEFAULT_MIN_RATE, 0n),
  };
}

/** The URL without its `checksum` and `archive` parameters (other parameters kept as written). */
function requestTarget(raw: string): string {
  const q = raw.indexOf("?");
  if (q < 0) return raw;
  const hash = raw.indexOf("#", q);
  const query = raw.slice(q + 1, hash < 0 ? undefined : hash);
  const kept = query.split("&").filter((pair) => {
    const key = pair.split("=", 1)[0];
    return key !== "checksum" && key !== "archive";
  });
  return raw.slice(0, q) + (kept.length > 0 ? "?" + kept.join("&") : "");
}

/** A file name for the download: the last path segment of the URL. */
export function fileNameOf(raw: string): string {
  const path = requestTarget(raw).split("?")[0].split("#")[0];
  const last =
    path
      .split("/")
      .filter((s) => s !== "")
      .pop() ?? "";
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  name = name.replace(/[/\\\0]/g, "_");
  return name === "" || name === "." || name === ".." ? "download" : name;
}

function localPath(url: CheckedUrl): string {
  const target = requestTarget(url.raw);
  if (target.startsWith("/")) {
    const path = target.split("?")[0].split("#")[0];
    try {
      return decodeURIComponent(path);
    } catch {
      return path;
    }
  }
  try {
    return fileURLToPath(new URL(target.split("?")[0]));
  } catch (e) {
    throw new DownloadError((e as Error).message, { cause: e });
  }
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  ELOOP: "too many levels of symbolic links",
};

function fsError(op: string, path: string, e: unknown): DownloadError {
  const code = (e as { code?: string }).code;
  return new DownloadError(`${op} ${path}: ${(code && ERRNO_TEXT[code]) ?? (e as Error).message}`);
}

const idleError = (idleMs: number) => new DownloadError(`no data received for ${formatGoDuration(BigInt(idleMs) * 1_000_000n)} (DAEMON_DOWNLOAD_IDLE_TIMEOUT)`);

const tooLarge = (limit: number) => new DownloadError(`download exceeds the limit of ${limit} bytes (DAEMON_DOWNLOAD_MAX_BYTES)`);

/** Bytes received so far and the expected total (Content-Length or file size) when known. */
export type ProgressCallback = (bytes: number, total: number | undefined) => void;

/** Counts and hashes bytes on their way to the file; fails past the byte limit. */
function meter(limits: DownloadLimits, algo: string | undefined, onProgress?: ProgressCallback) {
  const hash = algo ? process.getBuiltinModule("node:crypto").createHash(algo) : undefined;
  let bytes = 0;
  let total: number | undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) return done(tooLarge(limits.maxBytes));
      hash?.update(chunk);
      onProgress?.(bytes, total);
      done(null, chunk);
    },
  });
  return {
    stream,
    bytes: () => bytes,
    digest: () => hash?.digest("hex"),
    setTotal: (t: number | undefined) => {
      total = t;
    },
  };
}

export interface Downloaded {
  file: string;
  bytes: number;
}

/**
 * Watches a transfer: its overall deadline and its minimum rate over every `idleMs`-long span; a breach, or
 * the caller's signal, aborts `controller` with the error to report.
 */
function watchdog(limits: DownloadLimits, bytes: () => number, controller: AbortController): () => void {
  const outer = limits.signal;
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) onAbort();
  outer?.addEventListener("abort", onAbort, { once: true });
  const start = performance.now();
  const window = limits.idleMs;
  const minRate = limits.minRate ?? 0;
  const samples: { t: number; bytes: number }[] = [{ t: start, bytes: 0 }];
  const tickMs = Math.max(10, Math.min(1000, Math.floor(Math.min(window, limits.timeoutMs ?? Infinity) / 4)));
  const timer = setInterval(() => {
    const now = performance.now();
    const got = bytes();
    if (limits.timeoutMs !== undefined && now - start >= limits.timeoutMs) {
      return controller.abort(
        new DownloadError(`download not complete after ${formatGoDuration(BigInt(limits.timeoutMs) * 1_000_000n)} (DAEMON_DOWNLOAD_TIMEOUT)`),
      );
    }
    samples.push({ t: now, bytes: got });
    if (minRate <= 0) return void samples.shift();
    // The newest sample at least one window old: what arrived since must meet the rate.
    let i = -1;
    while (i + 1 < samples.length && samples[i + 1].t <= now - window) i++;
    if (i < 0) return;
    samples.splice(0, i);
    const span = now - samples[0].t;
    const need = (minRate * span) / 1000;
    // Nothing at all in the span is the idle timeout's case, worded as the socket's own timer words it.
    if (got === samples[0].bytes) return controller.abort(idleError(limits.idleMs));
    if (got - samples[0].bytes < need) {
      controller.abort(
        new DownloadError(
          `download too slow: ${got - samples[0].bytes} bytes in the last ${formatGoDuration(BigInt(Math.round(span)) * 1_000_000n)}, ` +
            `below ${minRate} bytes/s (DAEMON_DOWNLOAD_MIN_RATE)`,
        ),
      );
    }
  }, tickMs);
  return () => {
    clearInterval(timer);
    outer?.removeEventListener("abort", onAbort);
  };
}

/**
 * Downloads `url` into `dest`, verifying its checksum when it has one. Errors are DownloadError or
 * ChecksumMismatchError with the bare reason (the caller words the context). `onProgress` sees every chunk
 * (the sidecar's progress bar). A breached deadline or rate, or the caller's signal, ends the transfer at
 * once; the error is then the breach's, or the signal's reason.
 */
export async function download(url: CheckedUrl, dest: string, limits: DownloadLimits, onProgress?: ProgressCallback): Promise<Downloaded> {
  const m = meter(limits, url.checksum?.algo, onProgress);
  const controller = new AbortController();
  const stop = watchdog(limits, m.bytes, controller);
  const { signal } = controller;
  try {
    if (url.scheme === "file") {
      const path = localPath(url);
      let st;
      try {
        st = await stat(path);
      } catch (e) {
        throw fsError("open", path, e);
      }
      if (!st.isFile()) throw new DownloadError(`open ${path}: not a regular file`);
      if (st.size > limits.maxBytes) throw tooLarge(limits.maxBytes);
      m.setTotal(st.size);
      try {
        await pipeline(createReadStream(path), m.stream, createWriteStream(dest, { mode: 0o600 }), { signal });
      } catch (e) {
        throw (e as { code?: string }).code && !signal.aborted ? fsError("read", path, e) : (e as Error);
      }
    } else {
      const { body, length } = await httpGet(new URL(requestTarget(url.raw)), limits, signal);
      m.setTotal(length);
      await pipeline(body, m.stream, createWriteStream(dest, { mode: 0o600 }), { signal });
    }
  } catch (e) {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
    throw e;
  } finally {
    stop();
    controller.abort(); // tears down a connection left open by a failure
  }
  verify(url.checksum, m.digest(), basename(dest));
  return { file: dest, bytes: m.bytes() };
}

function verify(checksum: Checksum | undefined, got: string | undefined, file: string): void {
  if (!checksum || got === undefined) return;
  if (got !== checksum.hex) throw new ChecksumMismatchError(`Checksums did not match for ${file}.\nExpected: ${checksum.hex}\nGot: ${got}`);
}

/** GET with redirects, the idle timeout and the Content-Length check; resolves to the body stream. */
function httpGet(url: URL, limits: DownloadLimits, signal: AbortSignal, redirects = 0): Promise<{ body: Readable; length: number | undefined }> {
  return new Promise((resolve, reject) => {
    const tls = url.protocol === "https:";
    if (!tls && url.protocol !== "http:") return reject(new DownloadError(`unsupported URL scheme ${JSON.stringify(url.protocol.replace(/:$/, ""))}`));
    if (signal.aborted) return reject(signal.reason);
    const mod = process.getBuiltinModule(tls ? "node:https" : "node:http") as typeof Http;
    // An https request trusts what Node trusts, NODE_EXTRA_CA_CERTS included when the bin kept it out of Node's start-up.
    const req = mod.get(url, { headers: { "user-agent": "xupgrade-cli", "accept-encoding": "identity" }, signal, ...(tls ? extraCaCerts() : {}) });
    const idle = () => req.destroy(idleError(limits.idleMs));
    req.setTimeout(limits.idleMs, idle);
    req.on("error", (e) => reject(new DownloadError(networkText(e))));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (redirects >= MAX_REDIRECTS) return reject(new DownloadError(`stopped after ${MAX_REDIRECTS} redirects`));
        let next: URL;
        try {
          next = new URL(res.headers.location, url);
        } catch {
          return reject(new DownloadError(`invalid redirect location ${JSON.stringify(res.headers.location)}`));
        }
        if (url.protocol === "https:" && next.protocol !== "https:") {
          return reject(new DownloadError(`refusing redirect from https to ${next.protocol.replace(/:$/, "")}: ${next.href}`));
        }
        if (next.protocol !== "https:" && next.protocol !== "http:") {
          return reject(new DownloadError(`unsupported URL scheme ${JSON.stringify(next.protocol.replace(/:$/, ""))} in redirect`));
        }
        httpGet(next, limits, signal, redirects + 1).then(resolve, reject);
        return;
      }
      if (status < 200 || status > 299) {
        res.resume();
        return reject(new DownloadError(`bad response code: ${status}`));
      }
      const length = res.headers["content-length"];
      if (length !== undefined && Number(length) > limits.maxBytes) {
        res.destroy();
        return reject(tooLarge(limits.maxBytes));
      }
      // Body errors (idle timeout, early close) surface through the stream; make their text clear.
      const expected = length === undefined ? undefined : Number(length);
      let received = 0;
      const checked = new Transform({
        transform(chunk: Buffer, _enc, done) {
          received += chunk.length;
          done(null, chunk);
        },
        flush(done) {
          if (expected !== undefined && received < expected) return done(new DownloadError(`connection closed after ${received} of ${expected} bytes`));
          done();
        },
      });
      res.on("error", (e) => checked.destroy(new DownloadError(networkText(e))));
      res.on("aborted", () =>
        checked.destroy(new DownloadError(`connection closed after ${received}${expected === undefined ? "" : ` of ${expected}`} bytes`)),
      );
      req.on("error", (e) => checked.destroy(new DownloadError(networkText(e))));
      res.pipe(checked);
      resolve({ body: checked, length: expected });
    });
  });
}

function networkText(e: Error): string {
  const code = (e as { code?: string }).code;
  if (code === "ECONNREFUSED") return `connection refused (${e.message.replace(/^connect ECONNREFUSED /, "")})`;
  if (code === "ENOTFOUND") return `host not found (${(e as { hostname?: string }).hostname ?? ""})`;
  if (code === "ECONNRESET") return "connection reset by peer";
  return e.message;
}
