/**
 * Downloads for plan-info validation with the sidecar's transfer rules (docs/spec/sidecar.md §7.2–§7.3): http, https
 * and file only; `checksum` and `archive` query parameters removed before the request; at most 10
 * redirects and never https → http; non-2xx → `bad response code: <status>`; a byte limit checked against
 * Content-Length and while streaming; an idle timeout; the digest computed on the fly and checked after.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { basename } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { formatGoDuration, parseGoDuration } from "../../go/duration.js";
import type { CheckedUrl, Checksum } from "./check.js";
import { PlanInfoError } from "./errors.js";

export interface DownloadLimits {
  maxBytes: number;
  idleMs: number;
}

export const DEFAULT_MAX_BYTES = 4294967296;
export const DEFAULT_IDLE_MS = 60_000;
const MAX_REDIRECTS = 10;

export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): DownloadLimits {
  let maxBytes = DEFAULT_MAX_BYTES;
  let idleMs = DEFAULT_IDLE_MS;
  const max = env.DAEMON_DOWNLOAD_MAX_BYTES;
  if (max !== undefined && max !== "") {
    if (!/^[0-9]+$/.test(max) || Number(max) <= 0 || !Number.isSafeInteger(Number(max))) {
      throw new PlanInfoError(`invalid: DAEMON_DOWNLOAD_MAX_BYTES: must be a positive integer, got ${JSON.stringify(max)}`);
    }
    maxBytes = Number(max);
  }
  const idle = env.DAEMON_DOWNLOAD_IDLE_TIMEOUT;
  if (idle !== undefined && idle !== "") {
    let ns: bigint;
    try {
      ns = parseGoDuration(idle);
    } catch (e) {
      throw new PlanInfoError(`invalid: DAEMON_DOWNLOAD_IDLE_TIMEOUT: could not parse '${idle}' into a duration: ${(e as Error).message}`);
    }
    if (ns <= 0n) throw new PlanInfoError("invalid: DAEMON_DOWNLOAD_IDLE_TIMEOUT: must be greater than 0");
    idleMs = Math.max(1, Number(ns / 1_000_000n));
  }
  return { maxBytes, idleMs };
}

/** The URL without its `checksum` and `archive` parameters (other parameters kept as written). */
export function requestTarget(raw: string): string {
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
  const last = path.split("/").filter((s) => s !== "").pop() ?? "";
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  name = name.replace(/[/\\\0]/g, "_");
  return name === "" || name === "." || name === ".." ? "download" : name;
}

export function localPath(url: CheckedUrl): string {
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
    throw new Error((e as Error).message);
  }
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  ELOOP: "too many levels of symbolic links",
};

function fsError(op: string, path: string, e: unknown): Error {
  const code = (e as { code?: string }).code;
  return new Error(`${op} ${path}: ${(code && ERRNO_TEXT[code]) ?? (e as Error).message}`);
}

const tooLarge = (limit: number) => new Error(`download exceeds the limit of ${limit} bytes (DAEMON_DOWNLOAD_MAX_BYTES)`);

/** Bytes received so far and the expected total (Content-Length or file size) when known. */
export type ProgressCallback = (bytes: number, total: number | undefined) => void;

/** Counts and hashes bytes on their way to the file; fails past the byte limit. */
function meter(limits: DownloadLimits, algo: string | undefined, onProgress?: ProgressCallback) {
  const hash = algo ? createHash(algo) : undefined;
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
 * Downloads `url` into `dest`, verifying its checksum when it has one. Errors are plain (the caller words the
 * context). `onProgress` sees every chunk (the sidecar's progress bar).
 */
export async function download(url: CheckedUrl, dest: string, limits: DownloadLimits, onProgress?: ProgressCallback): Promise<Downloaded> {
  const m = meter(limits, url.checksum?.algo, onProgress);
  if (url.scheme === "file") {
    const path = localPath(url);
    let st;
    try {
      st = await stat(path);
    } catch (e) {
      throw fsError("open", path, e);
    }
    if (!st.isFile()) throw new Error(`open ${path}: not a regular file`);
    if (st.size > limits.maxBytes) throw tooLarge(limits.maxBytes);
    m.setTotal(st.size);
    try {
      await pipeline(createReadStream(path), m.stream, createWriteStream(dest, { mode: 0o600 }));
    } catch (e) {
      throw (e as { code?: string }).code ? fsError("read", path, e) : (e as Error);
    }
  } else {
    const { body, length } = await httpGet(new URL(requestTarget(url.raw)), limits);
    m.setTotal(length);
    await pipeline(body, m.stream, createWriteStream(dest, { mode: 0o600 }));
  }
  verify(url.checksum, m.digest(), basename(dest));
  return { file: dest, bytes: m.bytes() };
}

function verify(checksum: Checksum | undefined, got: string | undefined, file: string): void {
  if (!checksum || got === undefined) return;
  if (got !== checksum.hex) throw new Error(`Checksums did not match for ${file}.\nExpected: ${checksum.hex}\nGot: ${got}`);
}

/** GET with redirects, the idle timeout and the Content-Length check; resolves to the body stream. */
function httpGet(url: URL, limits: DownloadLimits, redirects = 0): Promise<{ body: Readable; length: number | undefined }> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === "https:" ? https : url.protocol === "http:" ? http : undefined;
    if (!mod) return reject(new Error(`unsupported URL scheme ${JSON.stringify(url.protocol.replace(/:$/, ""))}`));
    const req = mod.get(url, { headers: { "user-agent": "xupgrade-cli", "accept-encoding": "identity" } });
    const idle = () => req.destroy(new Error(`no data received for ${formatGoDuration(BigInt(limits.idleMs) * 1_000_000n)} (DAEMON_DOWNLOAD_IDLE_TIMEOUT)`));
    req.setTimeout(limits.idleMs, idle);
    req.on("error", (e) => reject(new Error(networkText(e))));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (redirects >= MAX_REDIRECTS) return reject(new Error(`stopped after ${MAX_REDIRECTS} redirects`));
        let next: URL;
        try {
          next = new URL(res.headers.location, url);
        } catch {
          return reject(new Error(`invalid redirect location ${JSON.stringify(res.headers.location)}`));
        }
        if (url.protocol === "https:" && next.protocol !== "https:") {
          return reject(new Error(`refusing redirect from https to ${next.protocol.replace(/:$/, "")}: ${next.href}`));
        }
        if (next.protocol !== "https:" && next.protocol !== "http:") {
          return reject(new Error(`unsupported URL scheme ${JSON.stringify(next.protocol.replace(/:$/, ""))} in redirect`));
        }
        httpGet(next, limits, redirects + 1).then(resolve, reject);
        return;
      }
      if (status < 200 || status > 299) {
        res.resume();
        return reject(new Error(`bad response code: ${status}`));
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
          if (expected !== undefined && received < expected) return done(new Error(`connection closed after ${received} of ${expected} bytes`));
          done();
        },
      });
      res.on("error", (e) => checked.destroy(new Error(networkText(e))));
      res.on("aborted", () => checked.destroy(new Error(`connection closed after ${received}${expected === undefined ? "" : ` of ${expected}`} bytes`)));
      req.on("error", (e) => checked.destroy(new Error(networkText(e))));
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
