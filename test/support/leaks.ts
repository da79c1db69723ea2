/**
 * What no answer of a server may carry (docs/spec/interfaces.md §12.1): an absolute path of this machine, a stack
 * frame, exception text, or the content of a file it was not asked for. `leaksIn` lists what it finds, so a
 * failing expectation shows the offending text.
 */
import { homedir, tmpdir } from "node:os";
import { ROOT } from "./paths.js";

/** Contents of files a hostile path might reach (checked as substrings). */
export const FOREIGN_CONTENT = ["root:x:0:0", '"name": "xupgrade"', "#!/usr/bin/env"];

const strip = (p: string) => p.replace(/\/+$/, "");

/** Absolute paths of this machine that must never appear, plus stack-frame and exception patterns. */
function patterns(extra: readonly string[]): { literal: string[]; regex: RegExp[] } {
  const literal = [strip(ROOT), `${strip(tmpdir())}/`, strip(homedir()), "/home/", "/root", "node_modules", "file:///", ...FOREIGN_CONTENT, ...extra].filter(
    (s) => s !== "" && s !== "/",
  );
  const regex = [
    /\bat [^\n]*:\d+:\d+\)?/, // a stack frame
    /\n\s+at /,
    /\b(ENOENT|ENAMETOOLONG|EISDIR|ENOTDIR|EACCES|EPERM|ELOOP|EMFILE|EIO|EINVAL):/, // errno text
    /\b(TypeError|RangeError|ReferenceError|SyntaxError|AssertionError)\b/,
  ];
  return { literal: [...new Set(literal)], regex };
}

/** The leaks found in `text` (empty when clean). `extra`: more forbidden strings (a test's own secrets and paths). */
export function leaksIn(text: string, extra: readonly string[] = []): string[] {
  const { literal, regex } = patterns(extra);
  const found = literal.filter((s) => text.includes(s));
  for (const r of regex) {
    const m = r.exec(text);
    if (m) found.push(m[0]);
  }
  return found;
}

/**
 * Hostile path segments: oversized names, climbing in every spelling, NUL, invalid UTF-8, bad escapes,
 * header injection. Each is sent as one raw segment (not normalised by the client).
 */
export const HOSTILE_SEGMENTS: readonly string[] = [
  "a".repeat(256),
  "a".repeat(4096),
  "..",
  ".",
  "%2e%2e",
  "%2E%2E",
  "..%2f..%2f..%2f..%2fetc%2fpasswd",
  "%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json",
  "....//....//etc",
  "%5c..%5c..%5cwindows",
  "%00",
  "a%00b",
  "index.html%00.js",
  "%ff%fe",
  "%c0%ae%c0%ae",
  "%ed%a0%80", // an encoded lone surrogate
  "%",
  "%zz",
  "%2f",
  ".env",
  ".git",
  "~root",
  "*",
  "%24(id)",
  "%0d%0aX-Injected:%201",
  "%7B%7D",
  `${"%e2%82%ac".repeat(100)}`,
];

/** Every hostile request path under `prefix` (one hostile segment, and a few whole hostile tails). */
export function hostilePaths(prefix: string): string[] {
  const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
  return [...HOSTILE_SEGMENTS.map((s) => base + s), `${base}../../../../etc/passwd`, `${base}a/../../package.json`, `${base}/`, base + "a".repeat(64 * 1024)];
}

/** HTTP methods a client may send (node's parser knows them all); the odd ones included. */
export const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND", "MKCOL"] as const;
