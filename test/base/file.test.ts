/** base/file.ts: the one durable atomic write (temp file, fsync, rename, fsync of the directory, cleanup). */
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../bindings/base/file.js";
import { FSYNC_OBSERVABLE, recordSyncs } from "../support/fsync.js";
import { removeTempDirs, tempDir } from "../support/temp.js";

afterAll(removeTempDirs);

const TEMP = /^\.target\.json\.\d+\.[0-9a-f]{16}\.tmp$/;

describe("writeFileAtomic", () => {
  it("writes a new file and replaces an existing one whole, leaving nothing beside it", async () => {
    const dir = tempDir();
    const path = join(dir, "target.json");
    await writeFileAtomic(path, "first\n");
    expect(readFileSync(path, "utf8")).toBe("first\n");
    await writeFileAtomic(path, new TextEncoder().encode("second"));
    expect(readFileSync(path, "utf8")).toBe("second");
    expect(readdirSync(dir)).toEqual(["target.json"]);
  });

  it("gives the file exactly the mode asked for, whatever the umask; without one, 0666 less the umask", async () => {
    const dir = tempDir();
    await writeFileAtomic(join(dir, "secret"), "k", { mode: 0o600 });
    expect(statSync(join(dir, "secret")).mode & 0o777).toBe(0o600);
    await writeFileAtomic(join(dir, "loose"), "k", { mode: 0o640 });
    expect(statSync(join(dir, "loose")).mode & 0o777).toBe(0o640);
    const umask = process.umask();
    await writeFileAtomic(join(dir, "plain"), "k");
    expect(statSync(join(dir, "plain")).mode & 0o777).toBe(0o666 & ~umask);
  });

  it("flushes the temporary file before the rename and the directory after it", async () => {
    if (!FSYNC_OBSERVABLE) return void console.log("[file] /proc/self/fd is not available here: the fsync order is not observable");
    const dir = tempDir();
    const path = join(dir, "target.json");
    const syncs = await recordSyncs();
    try {
      await writeFileAtomic(path, "data");
    } finally {
      syncs.restore();
    }
    expect(syncs.paths).toHaveLength(2);
    expect(syncs.paths[0].startsWith(dir + "/")).toBe(true);
    expect(syncs.paths[0].slice(dir.length + 1)).toMatch(TEMP);
    expect(syncs.paths[1]).toBe(dir);
  });

  it("a failed rename removes the temporary file and reports the error; the target is untouched", async () => {
    const dir = tempDir();
    const path = join(dir, "target.json");
    mkdirSync(path);
    writeFileSync(join(path, "inside"), "kept");
    await expect(writeFileAtomic(path, "data")).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) });
    expect(readdirSync(dir)).toEqual(["target.json"]);
    expect(readFileSync(join(path, "inside"), "utf8")).toBe("kept");
  });

  it("a missing directory is an error naming the path, with nothing created", async () => {
    const dir = tempDir();
    await expect(writeFileAtomic(join(dir, "absent", "target.json"), "data")).rejects.toMatchObject({ code: "ENOENT" });
    expect(readdirSync(dir)).toEqual([]);
  });
});
