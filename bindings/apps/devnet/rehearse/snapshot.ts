/**
 * Taking the snapshot a rehearsal runs on (docs/spec/rehearse.md §2), never writing the node's home:
 *
 * - a running node serves it over the snapshot channel (channel.ts): one committed height, read while the
 *   node goes on — the one it holds for the plan's rehearsals when the plan is named and it holds one (pin.ts);
 * - a stopped node's database directory is copied file by file; the copy is used only if no file of the
 *   directory changed while it was read (sizes and modification times before and after), since a copy of
 *   files under a live LevelDB is not consistent. LevelDB then recovers the copy's log on open, which
 *   restores exactly the last complete batch, i.e. the last committed height.
 */
import { cp, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { appDbPath } from "../shared/genesis.js";
import { openAppDb } from "../chain/open.js";
import { fetchSnapshot, NoNodeError, type SnapshotPlan } from "./channel.js";
import { sleep } from "../../../base/sleep.js";
import { DevnetError } from "../shared/errors.js";

export interface TakenSnapshot {
  /** `node`: served by the running node; `copy`: the files of a stopped node's database. */
  source: "node" | "copy";
  entries?: number;
  bytes?: number;
  durationMs: number;
  /** The node served the snapshot it holds for the plan's rehearsals (pin.ts). */
  pinned: boolean;
}

/** Copies the committed application database of the node in `home` to `dest` (a path that does not exist yet). */
export async function takeSnapshot(home: string, dest: string, plan?: SnapshotPlan): Promise<TakenSnapshot> {
  const started = performance.now();
  try {
    const served = await fetchSnapshot(home, () => openAppDb(dest), plan);
    if (served) return { source: "node", entries: served.entries, bytes: served.bytes, durationMs: performance.now() - started, pinned: served.pinned };
  } catch (e) {
    // The node stopped while it served the snapshot: what it left on disk can be copied instead.
    if (!(e instanceof NoNodeError)) throw e;
    await rm(dest, { recursive: true, force: true });
  }
  await copyStoppedDatabase(appDbPath(home), dest);
  return { source: "copy", durationMs: performance.now() - started, pinned: false };
}

/** Name → "size:mtime" of every file in `dir`. */
async function listing(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) {
    const st = await stat(join(dir, name)).catch(() => undefined);
    if (st?.isFile()) out.set(name, `${st.size}:${st.mtimeMs}`);
  }
  return out;
}

const same = (a: Map<string, string>, b: Map<string, string>) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

async function copyStoppedDatabase(src: string, dest: string): Promise<void> {
  if (!(await stat(src).catch(() => undefined))?.isDirectory()) {
    throw new DevnetError("snapshot", `${src} does not exist: the node has no application database yet (start it once)`);
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    const before = await listing(src);
    await cp(src, dest, { recursive: true, errorOnExist: true, force: false });
    const after = await listing(src);
    if (same(before, after)) return;
    await rm(dest, { recursive: true, force: true });
    await sleep(200 * attempt);
  }
  throw new DevnetError(
    "snapshot",
    `${src} changed while it was copied: a node is running on this home but serves no snapshot channel (an older version?); stop it, or upgrade it first`,
  );
}
