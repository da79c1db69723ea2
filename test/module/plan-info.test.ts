/**
 * Plan-info validation with downloads (docs/spec/interfaces.md §9 steps 2 and 6, docs/spec/sidecar.md §7.2–§7.4), in process,
 * against a local HTTP server and local files: checksums, redirects, limits, archives (tar.gz, zip, gz)
 * and hostile archives.
 */
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limitsFromEnv } from "../../bindings/module/plan-info/download.js";
import { validatePlanInfo } from "../../bindings/module/plan-info/validate.js";
import { httpServer, removeTempDirs, tempDir } from "../apps/cli/helpers.js";
import { zipBuffer } from "../support/archives.js";

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const files = new Map<string, Buffer>();
let base = "";
let close: () => Promise<void>;
let hits = 0;

const zip = zipBuffer;

async function tarball(build: (dir: string) => string[], gzip = true, opts: { preservePaths?: boolean } = {}): Promise<Buffer> {
  const dir = tempDir();
  const list = build(dir);
  const out = join(tempDir(), "a.tar");
  await tar.c({ file: out, cwd: dir, gzip, portable: true, ...opts }, list);
  const { readFileSync } = await import("node:fs");
  return readFileSync(out);
}

const opts = (extra: Partial<Parameters<typeof validatePlanInfo>[1]> = {}) => ({
  enforceChecksum: true,
  daemonName: "xupgrade",
  limits: { maxBytes: 1 << 20, idleMs: 5000 },
  ...extra,
});

async function problem(info: string, o = opts()): Promise<string> {
  try {
    await validatePlanInfo(info, o);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

const url = (name: string, checksum: string | undefined = sha256(files.get(name) ?? Buffer.alloc(0))) =>
  `${base}/${name}${checksum === undefined ? "" : `?checksum=sha256:${checksum}`}`;
const info = (binaries: Record<string, string>) => JSON.stringify({ binaries });

beforeAll(async () => {
  files.set("raw-binary", Buffer.from("#!/bin/sh\necho v2\n"));
  files.set(
    "app.tar.gz",
    await tarball((d) => {
      mkdirSync(join(d, "bin"));
      mkdirSync(join(d, "lib"));
      writeFileSync(join(d, "bin/xupgrade"), "bin");
      writeFileSync(join(d, "lib/libx.so"), "lib");
      return ["bin", "lib"];
    }),
  );
  files.set(
    "top.tgz",
    await tarball((d) => {
      writeFileSync(join(d, "xupgrade"), "bin");
      writeFileSync(join(d, "README"), "readme");
      return ["xupgrade", "README"];
    }),
  );
  files.set(
    "plain.tar",
    await tarball((d) => {
      writeFileSync(join(d, "whatever-name"), "bin");
      return ["whatever-name"];
    }, false),
  );
  files.set(
    "symlink.tar.gz",
    await tarball((d) => {
      symlinkSync("/etc/passwd", join(d, "xupgrade"));
      return ["xupgrade"];
    }),
  );
  const abs = tempDir();
  writeFileSync(join(abs, "evil"), "x");
  files.set("absolute.tar.gz", await tarball(() => [join(abs, "evil")], true, { preservePaths: true }));
  files.set(
    "dotdot.tar.gz",
    await tarball(
      (d) => {
        mkdirSync(join(d, "sub"));
        writeFileSync(join(d, "x"), "x");
        return ["sub/../x"];
      },
      true,
      { preservePaths: true },
    ),
  );
  files.set("one.zip", await zip([["just-a-file", "bin"]]));
  files.set(
    "three.zip",
    await zip([
      ["a", "1"],
      ["b", "2"],
      ["c/d", "3"],
    ]),
  );
  files.set(
    "bin.zip",
    await zip([
      ["bin/xupgrade", "bin"],
      ["bin/other", "o"],
    ]),
  );
  // yazl refuses "../" names: write "xx/", then patch the bytes (names are not covered by the CRC).
  const evil = await zip([
    ["xx/xx/etc/passwd", "root"],
    ["xupgrade", "bin"],
  ]);
  files.set("traversal.zip", Buffer.from(evil.toString("latin1").replaceAll("xx/xx/etc/passwd", "../../etc/passwd"), "latin1"));
  files.set("bomb.zip", await zip([["xupgrade", Buffer.alloc(2 << 20)]]));
  files.set("single.gz", gzipSync(Buffer.from("bin")));
  files.set("app.tar.bz2", Buffer.from("BZh"));
  files.set("info.json", Buffer.from(info({ any: "" }))); // replaced below
  files.set("empty.json", Buffer.from("  \n"));
  const srv = await httpServer((req, res) => {
    hits++;
    const path = (req.url ?? "/").split("?")[0].slice(1);
    if (path === "loop") {
      res.writeHead(302, { location: "/loop" });
      return res.end();
    }
    if (path === "redirect") {
      res.writeHead(301, { location: "/raw-binary" });
      return res.end();
    }
    if (path === "stall") {
      res.writeHead(200, { "content-length": "100" });
      res.write("abc");
      return; // never ends
    }
    if (path === "trickle") {
      // 8 MiB announced, one byte a second (never trips an idle timeout)
      res.writeHead(200, { "content-length": String(8 << 20) });
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write("a")), 1000);
      res.on("close", () => clearInterval(t));
      return;
    }
    if (path === "truncated") {
      res.writeHead(200, { "content-length": "100" });
      res.write("abc");
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (path === "query-kept") {
      res.writeHead(200);
      return res.end(req.url);
    }
    const body = files.get(path);
    if (!body) {
      res.writeHead(404);
      return res.end("not found");
    }
    res.writeHead(200, { "content-length": String(body.length) });
    res.end(body);
  });
  base = srv.url;
  close = srv.close;
  files.set("info.json", Buffer.from(info({ "linux/amd64": url("raw-binary"), any: url("app.tar.gz") })));
}, 60_000);

afterAll(async () => {
  await close?.();
  removeTempDirs();
});

describe("binaries are downloaded, checked and unpacked", () => {
  it("accepts raw files, archives with bin/<daemon>, <daemon> at the top, or a single file", async () => {
    expect(await problem(info({ "linux/amd64": url("raw-binary") }))).toBe("");
    expect(await problem(info({ any: url("app.tar.gz") }))).toBe("");
    expect(await problem(info({ any: url("top.tgz") }))).toBe("");
    expect(await problem(info({ any: url("plain.tar") }))).toBe("");
    expect(await problem(info({ any: url("one.zip") }))).toBe("");
    expect(await problem(info({ any: url("bin.zip") }))).toBe("");
    expect(await problem(info({ any: url("single.gz") }))).toBe("");
    expect(await problem(info({ any: `${base}/raw-binary?archive=false&checksum=sha256:${sha256(files.get("raw-binary")!)}` }))).toBe("");
    expect(await problem(info({ any: `${base}/redirect?checksum=sha256:${sha256(files.get("raw-binary")!)}` }))).toBe("");
  });

  it("reports a checksum mismatch in three lines", async () => {
    const bad = "0".repeat(64);
    expect(await problem(info({ "linux/amd64": url("raw-binary", bad) }))).toBe(
      `error downloading binary for os/arch linux/amd64: Checksums did not match for raw-binary.\nExpected: ${bad}\nGot: ${sha256(files.get("raw-binary")!)}`,
    );
  });

  it("reports every failing entry, sorted by key", async () => {
    const msg = await problem(info({ "linux/arm64": url("missing", "0".repeat(64)), "darwin/amd64": url("three.zip"), any: url("raw-binary") }));
    expect(msg).toBe(
      [
        `error downloading binary for os/arch darwin/amd64: url "${url("three.zip")}" result does not contain a bin/xupgrade or xupgrade file`,
        "error downloading binary for os/arch linux/arm64: bad response code: 404",
      ].join("\n"),
    );
  });

  it("uses the daemon name", async () => {
    expect(await problem(info({ any: url("app.tar.gz") }), opts({ daemonName: "other" }))).toBe(
      `error downloading binary for os/arch any: url "${url("app.tar.gz")}" result does not contain a bin/other or other file`,
    );
  });

  it("refuses hostile archives", async () => {
    const e = (name: string) => problem(info({ any: url(name) }));
    expect(await e("symlink.tar.gz")).toMatch(
      /^error downloading binary for os\/arch any: refusing archive: entry "xupgrade": SymbolicLink entries are not allowed$/,
    );
    expect(await e("absolute.tar.gz")).toMatch(/refusing archive: entry "\/.*evil": absolute path$/);
    expect(await e("dotdot.tar.gz")).toMatch(/refusing archive: entry "sub\/\.\.\/x": '\.\.' segment$/);
    expect(await e("traversal.zip")).toMatch(
      /(refusing archive: entry "\.\.\/\.\.\/etc\/passwd"|cannot read archive: invalid relative path: \.\.\/\.\.\/etc\/passwd)/,
    );
    expect(await e("bomb.zip")).toMatch(/refusing archive: more than 1048576 bytes extracted/);
    expect(await e("app.tar.bz2")).toBe('error downloading binary for os/arch any: unsupported archive format ".tar.bz2"');
  });

  it("enforces the transfer rules", async () => {
    const h = "0".repeat(64);
    expect(await problem(info({ any: `${base}/loop?checksum=sha256:${h}` }))).toBe("error downloading binary for os/arch any: stopped after 10 redirects");
    expect(await problem(info({ any: url("raw-binary") }), opts({ limits: { maxBytes: 5, idleMs: 5000 } }))).toBe(
      "error downloading binary for os/arch any: download exceeds the limit of 5 bytes (DAEMON_DOWNLOAD_MAX_BYTES)",
    );
    expect(await problem(info({ any: `${base}/stall?checksum=sha256:${h}` }), opts({ limits: { maxBytes: 1 << 20, idleMs: 300 } }))).toBe(
      "error downloading binary for os/arch any: no data received for 300ms (DAEMON_DOWNLOAD_IDLE_TIMEOUT)",
    );
    expect(await problem(info({ any: `${base}/truncated?checksum=sha256:${h}` }))).toMatch(
      /^error downloading binary for os\/arch any: connection closed after 3 of 100 bytes$/,
    );
    expect(await problem(info({ any: `file:///never/gonna/be/a/thing.zip?checksum=sha256:${h}` }))).toBe(
      "error downloading binary for os/arch any: open /never/gonna/be/a/thing.zip: no such file or directory",
    );
    // Not even one request for a statically invalid entry.
    const before = hits;
    expect(await problem(info({ any: `${base}/raw-binary`, "linux/amd64": url("raw-binary") }))).toBe(
      `invalid plan info:\ninvalid url "${base}/raw-binary" in binaries[any]: missing checksum query parameter`,
    );
    expect(hits).toBe(before);
    expect(await problem(info({ any: `${base}/raw-binary` }), opts({ enforceChecksum: false }))).toBe("");
  });

  it("reads local files, also as bare absolute paths", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "bin"), "local");
    const sum = sha256(Buffer.from("local"));
    expect(await problem(info({ any: `file://${dir}/bin?checksum=sha256:${sum}` }))).toBe("");
    expect(await problem(info({ any: `${dir}/bin?checksum=sha256:${sum}` }))).toBe("");
  });
});

describe("info given as a URL (one level)", () => {
  it("is downloaded, checksum-verified and parsed", async () => {
    expect(await problem(url("info.json"))).toBe("");
    expect(await problem(url("info.json", "1".repeat(64)))).toMatch(
      new RegExp(
        `^could not download url "${url("info.json", "1".repeat(64)).replace(/[.?]/g, "\\$&")}": Checksums did not match for info-info\\.json\\.\\nExpected: 1{64}\\nGot: [0-9a-f]{64}$`,
      ),
    );
    expect(await problem(`${base}/info.json`)).toBe(`invalid url "${base}/info.json": missing checksum query parameter`);
    expect(await problem(`${base}/info.json`, opts({ enforceChecksum: false }))).toBe("");
    expect(await problem(url("empty.json"))).toBe(`no content returned by "${url("empty.json")}"`);
    expect(await problem(url("nothing-here", "0".repeat(64)))).toBe(`could not download url "${url("nothing-here", "0".repeat(64))}": bad response code: 404`);
  });

  it("is not followed twice", async () => {
    files.set("indirect.txt", Buffer.from(url("info.json")));
    expect(await problem(url("indirect.txt"))).toMatch(/^could not parse plan info: /);
  });
});

describe("download limits from the environment (docs/spec/sidecar.md §3, §7.2): the CLI's validation uses them too", () => {
  it("defaults, values, and one message for a bad one", () => {
    expect(limitsFromEnv({})).toEqual({ maxBytes: 4294967296, idleMs: 60_000, timeoutMs: 3_600_000, minRate: 1024 });
    expect(limitsFromEnv({ DAEMON_DOWNLOAD_TIMEOUT: "90s", DAEMON_DOWNLOAD_MIN_RATE: "0", DAEMON_DOWNLOAD_IDLE_TIMEOUT: "1.5s" })).toMatchObject({
      timeoutMs: 90_000,
      minRate: 0,
      idleMs: 1500,
    });
    expect(() => limitsFromEnv({ DAEMON_DOWNLOAD_TIMEOUT: "600" })).toThrow(
      `invalid: DAEMON_DOWNLOAD_TIMEOUT: could not parse '600' into a duration: time: missing unit in duration "600"`,
    );
    expect(() => limitsFromEnv({ DAEMON_DOWNLOAD_TIMEOUT: "0s" })).toThrow("invalid: DAEMON_DOWNLOAD_TIMEOUT: must be greater than 0");
    expect(() => limitsFromEnv({ DAEMON_DOWNLOAD_MIN_RATE: "-1" })).toThrow('invalid: DAEMON_DOWNLOAD_MIN_RATE: must be a non-negative integer, got "-1"');
    expect(() => limitsFromEnv({ DAEMON_DOWNLOAD_MIN_RATE: "1kb" })).toThrow('invalid: DAEMON_DOWNLOAD_MIN_RATE: must be a non-negative integer, got "1kb"');
  });

  it("a trickling binary fails the validation at the minimum rate or the deadline, not never", async () => {
    const h = "0".repeat(64);
    const t0 = performance.now();
    expect(await problem(info({ any: `${base}/trickle?checksum=sha256:${h}` }), opts({ limits: { maxBytes: 16 << 20, idleMs: 1500, minRate: 1024 } }))).toMatch(
      /^error downloading binary for os\/arch any: download too slow: \d bytes in the last 1\.\d+s, below 1024 bytes\/s \(DAEMON_DOWNLOAD_MIN_RATE\)$/,
    );
    expect(await problem(info({ any: `${base}/trickle?checksum=sha256:${h}` }), opts({ limits: { maxBytes: 16 << 20, idleMs: 5000, timeoutMs: 1000 } }))).toBe(
      "error downloading binary for os/arch any: download not complete after 1s (DAEMON_DOWNLOAD_TIMEOUT)",
    );
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
