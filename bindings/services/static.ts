/**
 * Static files behind a REST route (docs/spec/interfaces.md §12.1), e.g. the devnet's light-client page: one file
 * name per request, checked before the file system sees it, and every "there is no such file" answer of the
 * file system (ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP, EACCES, …) is 404 with no path in it. Any other
 * failure is unexpected: the gateway answers `internal error` and reports the detail.
 */
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { RestRouteResult } from "./rest-gateway.js";

/** A plain file name: no separators, no leading dot, nothing a path could climb with. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** NAME_MAX of the usual file systems; longer names exist nowhere. */
const MAX_NAME_BYTES = 255;

/** File-system answers that mean "no such file here" for a name that passed the check. */
const NOT_FOUND_CODES = new Set(["ENOENT", "ENOTDIR", "EISDIR", "ENAMETOOLONG", "ELOOP", "EACCES", "EPERM", "EINVAL", "EILSEQ", "ENXIO"]);

export const MIME_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

/** Whether `name` may name a static file: one plain segment of at most 255 bytes. */
export function isStaticFileName(name: string): boolean {
  return FILE_NAME.test(name) && name.length <= MAX_NAME_BYTES;
}

/** A 404 in plain text; `what` must not carry a path of this machine. */
export function notFound(what: string): RestRouteResult {
  return { status: 404, body: `${what}\n`, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } };
}

export interface StaticFileOptions {
  /** The directory served. */
  root: string;
  /** A sub-directory of it (one plain name, or ""). */
  sub?: string;
  /** Extra headers for a file found (Cache-Control…). */
  headers?: Record<string, string>;
  /** The 404 answer for a missing file (default `no such file: <sub/name>`); never with a path of this machine. */
  missing?: (name: string) => RestRouteResult;
}

/**
 * The file `name` (one raw, percent-decoded segment) under `root/sub`: 200 with its MIME type, or 404. A name
 * that is not a plain file name is 404 without touching the file system.
 */
export async function serveStaticFile(name: string, o: StaticFileOptions): Promise<RestRouteResult> {
  const sub = o.sub ?? "";
  if (!isStaticFileName(name)) return notFound("no such file");
  let body: Buffer;
  try {
    body = await readFile(join(o.root, sub, name));
  } catch (e) {
    if (!NOT_FOUND_CODES.has((e as NodeJS.ErrnoException).code ?? "")) throw e;
    return o.missing?.(name) ?? notFound(`no such file: ${sub ? `${sub}/` : ""}${name}`);
  }
  return {
    body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
    headers: {
      "Content-Type": MIME_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream",
      "X-Content-Type-Options": "nosniff",
      ...o.headers,
    },
  };
}
