/**
 * The visor's data backup (docs/spec/sidecar.md §6 step 3) on a real node home: hard-linked table files
 * against a full copy of the same `data/` on the same disk — the figure the README's "Sidecar" section quotes.
 *
 *   node --import tsx bench/visor-backup.ts <node home> [runs = 5]
 *
 * Each run, in turn: the visor's backup (`backupData`, the table files hard-linked, the rest copied), a full
 * copy by the same code with links off (what a backup on another volume does, and what cosmovisor copies),
 * and `cp -a` for reference; each into a fresh directory beside the home, deleted after. Before each, the
 * data's own files are dropped from the page cache (`dd iflag=nocache count=0`, file by file: nobody else's
 * cache is touched), so every copy reads from the disk, as a node's first backup after days of running does.
 * Prints the medians and ranges.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { backupData } from "../bindings/apps/visor/upgrade/backup.js";
import { Layout } from "../bindings/apps/visor/layout.js";
import { createLogger } from "../bindings/apps/visor/log.js";
import { copyTree, estimateCopy, walkTree } from "../bindings/apps/visor/upgrade/tree-copy.js";

const home = resolve(process.argv[2] ?? "");
const runs = Number(process.argv[3] ?? 5);
if (!process.argv[2]) throw new Error("usage: node --import tsx bench/visor-backup.ts <node home> [runs]");
const data = join(home, "data");
const scratch = join(dirname(home), `visor-backup-bench-${process.pid}`);
const layout = new Layout({ home, name: "node", disableRecase: false });
const log = createLogger({ disabled: true });

const entries = await walkTree(data);
const all = estimateCopy(entries, false);
const linked = estimateCopy(entries, true);
console.log(`data/: ${all.files} files, ${all.bytesToCopy} bytes; immutable files (linked by the backup): ${linked.bytesToLink} bytes`);

/** Drops `data/`'s files from the page cache (GNU dd: "iflag=nocache count=0" advises the whole file away). */
function evict(): void {
  for (const e of entries) if (e.kind === "file") spawnSync("dd", [`if=${join(data, e.rel)}`, "iflag=nocache", "count=0", "status=none"]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { linked: [] as number[], full: [] as number[], cp: [] as number[] };
let copiedByBackup = 0;
for (let i = 0; i < runs; i++) {
  mkdirSync(scratch, { recursive: true });
  try {
    evict();
    let t = performance.now();
    const b = await backupData({ layout, backupDir: scratch, plan: { name: `bench-${i}`, height: BigInt(i + 1) }, log, temp: () => undefined });
    times.linked.push(performance.now() - t);
    copiedByBackup = b.bytesCopied ?? 0;

    const full = join(scratch, "full");
    mkdirSync(full);
    evict();
    t = performance.now();
    await copyTree(data, full, entries, { link: false });
    times.full.push(performance.now() - t);

    evict();
    t = performance.now();
    const cp = spawnSync("cp", ["-a", data, join(scratch, "cp")]);
    times.cp.push(performance.now() - t);
    if (cp.status !== 0) throw new Error(`cp -a: ${cp.stderr.toString()}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(layout.tmpDir, { recursive: true, force: true });
  }
}
const show = (xs: number[]) => `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
console.log(`visor backup, hard links: ${show(times.linked)}, ${copiedByBackup} bytes written, ${all.bytesToCopy - copiedByBackup} linked`);
console.log(`full copy (links off):    ${show(times.full)}, ${all.bytesToCopy} bytes written`);
console.log(`cp -a:                    ${show(times.cp)}`);
console.log(
  `ratio full / linked: ${(median(times.full) / median(times.linked)).toFixed(1)}× the time, ${(all.bytesToCopy / Math.max(1, copiedByBackup)).toFixed(0)}× the bytes`,
);
