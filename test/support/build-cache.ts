/**
 * Builds that tests share: the transpiled CLI, the light-client page. Each is made once per content of its
 * sources, under node_modules/.cache/<name>/<hash of the sources>, and published by an atomic rename — so test
 * processes running at the same time (CI runs several) reuse one copy and never see another one half written or
 * emptied under them. Copies of other contents are removed once untouched for a day.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "./paths.js";

const STALE_MS = 24 * 3600_000;

/** Every file under `dir` (recursively, sorted), skipping node_modules. */
export function filesUnder(dir: string, keep: (name: string) => boolean = () => true): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? (e.name === "node_modules" ? [] : filesUnder(join(dir, e.name), keep)) : keep(e.name) ? [join(dir, e.name)] : []))
    .sort();
}

/**
 * The directory holding `build`'s output for the current content of `sources` (files, read whole). `build(dir)`
 * writes into a fresh directory of its own; `ready` names the file whose presence says a copy is complete.
 */
export function cachedBuild(name: string, sources: readonly string[], ready: string, build: (dir: string) => void): string {
  const cache = join(ROOT, "node_modules/.cache", name);
  const hash = createHash("sha256");
  for (const file of sources) hash.update(`\0${relative(ROOT, file)}\0`).update(readFileSync(file));
  const out = join(cache, hash.digest("hex").slice(0, 16));
  if (existsSync(join(out, ready))) {
    const now = new Date();
    utimesSync(out, now, now); // in use: not stale
    return out;
  }
  const tmp = `${out}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    build(tmp);
    if (!existsSync(join(tmp, ready))) throw new Error(`${name}: the build wrote no ${ready}`);
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(out, ready))) throw e; // not a lost race with another process publishing the same sources
  }
  removeStale(cache, out);
  return out;
}

/** Removes the copies of other sources (and abandoned partial ones) untouched for a day. */
function removeStale(cache: string, keep: string): void {
  for (const entry of readdirSync(cache)) {
    const dir = join(cache, entry);
    if (dir === keep) continue;
    try {
      if (Date.now() - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}
