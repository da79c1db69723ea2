/**
 * The backup hazard of issue 10 (docs/spec/sidecar.md §6 step 3): a start that is refused must not copy the chain
 * data again and again. The backup is taken only once the binary is in place, and a complete backup of the
 * same plan, height and data directory is reused; completeness is the marker written last inside the copy,
 * so a crash in the middle of a copy never leaves a backup that could be reused. Real processes, as a
 * service manager restarting the visor would run them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BACKUP_MARKER, backupData, findBackup } from "../../../bindings/apps/visor/upgrade/backup.js";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { osArch } from "../../../bindings/apps/visor/names.js";
import { removeTempDirs as removeCliBuild } from "../cli/helpers.js";
import {
  CHAIN2_DUMMYD,
  captureLog,
  fileServer,
  newHome,
  removeTempDirs,
  seal,
  snapshot,
  spawnVisor,
  stage,
  tempDir,
  visor,
  waitUntil,
  type Home,
} from "./helpers.js";

afterAll(() => {
  removeTempDirs();
  removeCliBuild();
});

const infoFile = (h: Home) => join(h.home, "data", "upgrade-info.json");
const backupsIn = (dir: string) => readdirSync(dir).filter((n) => n.startsWith("data-backup-"));
const marker = (dir: string) => JSON.parse(readFileSync(join(dir, BACKUP_MARKER), "utf8")) as Record<string, unknown>;
const plan = (h: Home, url = "") =>
  writeFileSync(
    infoFile(h),
    JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: 49, info: url && JSON.stringify({ binaries: { [osArch()]: url } }) }),
  );
const RESTARTS = 4;

describe.concurrent("repeated failing starts leave at most one backup per plan", () => {
  it(`a download that keeps failing (${RESTARTS} starts): no backup at all, the node's files unchanged`, async () => {
    const srv = await fileServer(new Map());
    try {
      const h = await newHome("echo v1");
      plan(h, `${srv.url}/v2.tar.gz`);
      const before = seal(h);
      for (let i = 0; i < RESTARTS; i++) {
        const r = await visor(h, ["run", "start"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/Error: cannot download binary\. error downloading ".*": bad response code: 404\n$/);
      }
      expect(backupsIn(h.home)).toEqual([]);
      expect(seal(h)).toEqual(before);
    } finally {
      await srv.close();
    }
  }, 60_000);

  it(`a pre-upgrade that keeps failing (${RESTARTS} starts): exactly one backup, complete, reused by every later start`, async () => {
    const h = await newHome("echo v1");
    await stage(h, "v2", 'if [ "$1" = pre-upgrade ]; then exit 30; fi\necho v2');
    plan(h);
    const data = snapshot(join(h.home, "data"));
    for (let i = 0; i < RESTARTS; i++) {
      const r = await visor(h, ["run", "start"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Error: pre-upgrade command failed : exit status 30\n");
      if (i === 0) expect(r.stderr).toMatch(/INF backup saved at .*data-backup-\d+-\d+-\d+ module=visor/);
      else expect(r.stderr).toMatch(/INF backup for "v2" at height 49 already taken, reusing it path=.*data-backup-\d+-\d+-\d+ module=visor/);
    }
    const backups = backupsIn(h.home);
    expect(backups).toHaveLength(1);
    const b = join(h.home, backups[0]);
    expect(marker(b)).toMatchObject({ name: "v2", height: "49", data: join(h.home, "data"), files: 2 });
    // The copy is the data as it was (the marker aside).
    expect(snapshot(b, [BACKUP_MARKER])).toEqual(data);
    expect(snapshot(join(h.home, "data"))).toEqual(data);
  }, 60_000);

  it("a crash in the middle of the copy leaves no backup to reuse; the next start makes one complete backup and upgrades", async () => {
    const h = await newHome("echo v1");
    await stage(h, "v2", CHAIN2_DUMMYD);
    for (let i = 0; i < 5; i++) writeFileSync(join(h.home, "data", `part-${i}.db`), `part ${i}\n`);
    plan(h);
    const data = snapshot(join(h.home, "data"));
    const crashed = spawnVisor(h, ["start"], { DAEMON_RESTART_AFTER_UPGRADE: "false" }, { pause: "backup" });
    await waitUntil(() => crashed.err().includes("paused at backup"), 60_000, "the backup copy");
    process.kill(crashed.pid, "SIGKILL");
    await crashed.exited;
    expect(backupsIn(h.home)).toEqual([]);
    const partial = readdirSync(join(h.home, "cosmovisor", ".tmp"));
    expect(partial).toEqual([expect.stringMatching(/^backup-[0-9a-f]+$/)]);
    expect(existsSync(join(h.home, "cosmovisor", ".tmp", partial[0], BACKUP_MARKER))).toBe(false);

    const next = await visor(h, ["run", "start"], { DAEMON_RESTART_AFTER_UPGRADE: "false" });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain("removed temporary files of an earlier run");
    expect(next.stderr).toContain("backup completed");
    const backups = backupsIn(h.home);
    expect(backups).toHaveLength(1);
    expect(snapshot(join(h.home, backups[0]), [BACKUP_MARKER])).toEqual(data);
    expect(marker(join(h.home, backups[0]))).toMatchObject({ name: "v2", height: "49", files: 7 });
    expect(readdirSync(join(h.home, "cosmovisor", ".tmp"))).toEqual([]);
  }, 90_000);

  const shm = "/dev/shm";
  const otherVolume = existsSync(shm) && statSync(shm).isDirectory() && statSync(shm).dev !== statSync(tempDir()).dev;
  it.skipIf(!otherVolume)(
    "the backup directory on another volume: a crash leaves a tagged temporary copy there, swept by the next start",
    async () => {
      const h = await newHome("echo v1");
      await stage(h, "v2", CHAIN2_DUMMYD);
      plan(h);
      const backupDir = join(shm, `xupgrade-test-${process.pid}-${Date.now()}`);
      mkdirSync(backupDir);
      try {
        const env = { DAEMON_RESTART_AFTER_UPGRADE: "false", DAEMON_DATA_BACKUP_DIR: backupDir };
        const crashed = spawnVisor(h, ["start"], env, { pause: "backup" });
        await waitUntil(() => crashed.err().includes("paused at backup"), 60_000, "the backup copy");
        process.kill(crashed.pid, "SIGKILL");
        await crashed.exited;
        expect(readdirSync(backupDir)).toEqual([expect.stringMatching(/^\.data-backup-[0-9a-f]{12}-[0-9a-f]+\.tmp$/)]);
        // Another home's unfinished copy in the same directory is not ours to remove.
        const foreign = join(backupDir, ".data-backup-000000000000-abc.tmp");
        mkdirSync(foreign);
        const next = await visor(h, ["run", "start"], env);
        expect(next.code).toBe(0);
        expect(next.stderr).toContain("removing an unfinished backup of an earlier run");
        expect(readdirSync(backupDir).sort()).toEqual([".data-backup-000000000000-abc.tmp", expect.stringMatching(/^data-backup-\d+-\d+-\d+$/)]);
      } finally {
        const { rmSync } = await import("node:fs");
        rmSync(backupDir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});

describe("which backups are reused", () => {
  it("only a complete one (with its marker) of the same plan name, height and data directory", async () => {
    const h = await newHome("echo v1");
    const layout = new Layout({ home: h.home, name: h.name, disableRecase: false });
    const data = join(h.home, "data");
    const take = async (name: string, height: bigint, now: Date) =>
      backupData({ layout, backupDir: h.home, plan: { name, height }, log: captureLog().log, temp: () => undefined, now });
    const first = await take("v2", 49n, new Date(2024, 7, 5));
    expect(first).toMatchObject({ path: join(h.home, "data-backup-2024-8-5"), reused: false });
    expect(await take("v2", 49n, new Date(2024, 7, 6))).toEqual({ path: first.path, reused: true });
    // Another height, another name: new backups, never merged (`.1` on the same day).
    expect(await take("v2", 50n, new Date(2024, 7, 5))).toMatchObject({ path: join(h.home, "data-backup-2024-8-5.1"), reused: false });
    expect((await take("v3", 49n, new Date(2024, 7, 5))).reused).toBe(false);
    // A backup directory without a marker (an older visor's, cosmovisor's, a hand-made one) is never reused.
    mkdirSync(join(h.home, "data-backup-2024-1-1"));
    expect(await findBackup(h.home, data, { name: "v9", height: 1n })).toBeUndefined();
    // Another home's data directory is not this one.
    expect(await findBackup(h.home, "/elsewhere/data", { name: "v2", height: 49n })).toBeUndefined();
    expect(await findBackup(h.home, data, { name: "v2", height: 49n })).toBe(first.path);
  });

  it("a signal stops the copy: the half-made copy is left for the caller to remove, nothing is published", async () => {
    const h = await newHome("echo v1");
    for (let i = 0; i < 20; i++) writeFileSync(join(h.home, "data", `f${i}`), `${i}\n`);
    const layout = new Layout({ home: h.home, name: h.name, disableRecase: false });
    const ctl = new AbortController();
    const temps: string[] = [];
    let files = 0;
    const err = await backupData({
      layout,
      backupDir: h.home,
      plan: { name: "v2", height: 49n },
      log: captureLog().log,
      temp: (p) => void temps.push(p),
      signal: ctl.signal,
      afterFile: async () => {
        if (++files === 3) ctl.abort(new Error("interrupted by SIGTERM"));
      },
    }).catch((e: Error) => e);
    expect((err as Error).message).toBe("interrupted by SIGTERM");
    expect(backupsIn(h.home)).toEqual([]);
    expect(temps).toHaveLength(1);
    expect(existsSync(join(temps[0], BACKUP_MARKER))).toBe(false);
  });
});

describe("fit for the disk and the clock", () => {
  /** A node's LevelDB with table files (a few thousand keys, compacted), as data/application.db. */
  async function leveldb(h: Home): Promise<void> {
    const { ClassicLevel } = await import("classic-level");
    const db = new ClassicLevel<string, string>(join(h.home, "data", "application.db"));
    await db.open();
    const batch = db.batch();
    for (let i = 0; i < 4000; i++) batch.put(`key-${i}`, `value ${i} `.repeat(40));
    await batch.write();
    await db.compactRange("\u0000", "\uffff");
    await db.close();
  }
  const files = (dir: string, rel = ""): { rel: string; size: number; ino: number }[] =>
    readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
      const r = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) return files(dir, r);
      const st = statSync(join(dir, r));
      return r === BACKUP_MARKER ? [] : [{ rel: r, size: st.size, ino: st.ino }];
    });

  it("a backup on the data's file system hard-links the table files and copies the rest; the log and the marker say how many bytes each", async () => {
    const h = await newHome("echo v1");
    await leveldb(h);
    await stage(h, "v2", CHAIN2_DUMMYD);
    plan(h);
    const data = snapshot(join(h.home, "data"));
    const r = await visor(h, ["run", "start"], { DAEMON_RESTART_AFTER_UPGRADE: "false" });
    expect(r.code).toBe(0);
    const b = join(h.home, backupsIn(h.home)[0]);
    expect(snapshot(b, [BACKUP_MARKER])).toEqual(data);
    const live = new Map(files(join(h.home, "data")).map((f) => [f.rel, f.ino]));
    const all = files(b);
    const tables = all.filter((f) => /^\d+\.ldb$/.test(f.rel.split("/").pop()!));
    const others = all.filter((f) => !tables.includes(f));
    expect(tables.length).toBeGreaterThan(0);
    // Table files: the same inode as the node's (a link); everything else: a file of its own.
    for (const f of tables) expect([f.rel, f.ino]).toEqual([f.rel, live.get(f.rel)]);
    for (const f of others) expect([f.rel, f.ino]).not.toEqual([f.rel, live.get(f.rel)]);
    const linked = tables.reduce((n, f) => n + f.size, 0);
    const copied = others.reduce((n, f) => n + f.size, 0);
    expect(marker(b)).toMatchObject({
      bytes_linked: linked,
      bytes_copied: copied,
      bytes: linked + copied,
      files: tables.length + others.length,
      current: "genesis",
    });
    expect(r.stderr).toMatch(
      new RegExp(`INF backup plan files=${tables.length + others.length} copy_bytes=${copied} link_bytes=${linked} free_bytes=\\d+ hard_links=true`),
    );
    expect(r.stderr).toMatch(
      new RegExp(`INF backup completed seconds=\\d+\\.\\d\\d files=${tables.length + others.length} bytes_copied=${copied} bytes_linked=${linked}`),
    );
  }, 90_000);

  it("a backup that does not fit the volume is refused before anything is written, with the numbers; nothing changed", async () => {
    const h = await newHome("echo v1");
    await leveldb(h);
    await stage(h, "v2", CHAIN2_DUMMYD);
    plan(h);
    // A sparse file larger than the volume's free space: the node's data cannot be copied there.
    const { statfsSync, truncateSync } = await import("node:fs");
    const fs = statfsSync(h.home);
    const big = Math.min(fs.bavail * fs.bsize + 8 * 2 ** 30, 2 ** 44 - 2 ** 20);
    writeFileSync(join(h.home, "data", "wal.bin"), "");
    truncateSync(join(h.home, "data", "wal.bin"), big);
    const outside = snapshot(h.parent, ["home"]);
    const home = snapshot(h.home, ["data/wal.bin"]); // read whole, the sparse file would not fit in memory
    const wal = statSync(join(h.home, "data", "wal.bin"));
    const r = await visor(h, ["run", "start"], { DAEMON_RESTART_AFTER_UPGRADE: "false" });
    expect(r.code).toBe(1);
    const m =
      /Error: not enough free space for the data backup: it copies .+ \((\d+) bytes; .+ of immutable files are hard-linked\) and needs (\d+) bytes with the margin, but (.+) has .+ \((\d+) bytes\) free; nothing was changed\. Free some space, point DAEMON_DATA_BACKUP_DIR at a larger volume, or set UNSAFE_SKIP_BACKUP=true\n$/.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    const [copies, need, dir, free] = [Number(m![1]), Number(m![2]), m![3], Number(m![4])];
    expect(copies).toBeGreaterThanOrEqual(big);
    expect(need).toBeGreaterThan(free);
    expect(dir).toBe(h.home);
    // Nothing changed: no backup, no switch, data/ and the home as they were (the old binary still current).
    expect(backupsIn(h.home)).toEqual([]);
    expect(snapshot(h.home, ["data/wal.bin", "cosmovisor/.tmp"])).toEqual(home);
    expect(readdirSync(join(h.home, "cosmovisor", ".tmp"))).toEqual([]); // the start's height probe came and went
    expect(snapshot(h.parent, ["home"])).toEqual(outside);
    expect(statSync(join(h.home, "data", "wal.bin"))).toMatchObject({ size: wal.size, ino: wal.ino, mtimeMs: wal.mtimeMs });
    expect(r.stderr).not.toContain("starting to take backup");
  }, 90_000);
});

describe("which files are linked", () => {
  it("database tables and CometBFT's rotated WAL chunks; never a file that is written in place", async () => {
    const { isImmutable } = await import("../../../bindings/apps/visor/upgrade/tree-copy.js");
    for (const f of ["application.db/000123.ldb", "blockstore.db/000007.sst", "cs.wal/wal.000", "cs.wal/wal.1234"])
      expect([f, isImmutable(f)]).toEqual([f, true]);
    for (const f of [
      "application.db/000124.log",
      "application.db/CURRENT",
      "application.db/MANIFEST-000002",
      "application.db/LOG",
      "cs.wal/wal",
      "priv_validator_state.json",
      "x/wal.000",
      "upgrade-info.json",
    ]) {
      expect([f, isImmutable(f)]).toEqual([f, false]);
    }
  });
});
