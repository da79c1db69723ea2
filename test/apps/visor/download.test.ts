/**
 * Plan.Info, downloads and archives as the visor uses them (docs/spec/sidecar.md §7, §10.4 D1–D14, docs/spec/sidecar.md §10.5 X1–X6,
 * R5, R10, R11): a local HTTP server and file:// URLs; every failure leaves neither `upgrades/<dir>` nor
 * anything in `.tmp/`, and nothing outside DAEMON_HOME.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchUpgrade } from "../../../bindings/apps/visor/download/fetch.js";
import { checkUrl, checksumOf } from "../../../bindings/module/plan-info/check.js";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { osArch } from "../../../bindings/apps/visor/names.js";
import { prepareUpgrade } from "../../../bindings/apps/visor/upgrade/preflight.js";
import { installBinary } from "../../../bindings/module/plan-info/archive.js";
import type { DownloadLimits } from "../../../bindings/module/plan-info/download.js";
import {
  captureLog,
  config,
  fakeRpc,
  fileServer,
  newHome,
  removeTempDirs,
  sha256,
  snapshot,
  tarBuffer,
  tempDir,
  trickleServer,
  waitUntil,
  zipBuffer,
  zipWithName,
  type Home,
} from "./helpers.js";

const files = new Map<string, Buffer>();
let server: Awaited<ReturnType<typeof fileServer>>;
const url = (name: string, checksum: string | undefined = sha256(files.get(name) ?? Buffer.alloc(0)), algo = "sha256") =>
  `${server.url}/${name}${checksum === undefined ? "" : `?checksum=${algo}:${checksum}`}`;
const info = (binaries: Record<string, string>) => JSON.stringify({ binaries });
const here = osArch();

beforeAll(async () => {
  files.set("raw", Buffer.from("#!/bin/sh\necho raw v2\n"));
  files.set(
    "app.tar.gz",
    tarBuffer([
      { name: "bin/", type: "5" },
      { name: "bin/dummyd", body: "#!/bin/sh\necho tar v2\n", mode: 0o755 },
      { name: "lib/libx.so", body: "lib" },
    ]),
  );
  files.set(
    "top.tar.gz",
    tarBuffer([
      { name: "dummyd", body: "#!/bin/sh\necho top\n", mode: 0o755 },
      { name: "README", body: "readme" },
    ]),
  );
  files.set("binsome.zip", await zipBuffer([["binsome-file", "some-file content"]]));
  files.set("just.zip", await zipBuffer([["just-a-file", "just a file"]]));
  files.set(
    "three.zip",
    await zipBuffer([
      ["a", "1"],
      ["b", "2"],
      ["c/d", "3"],
    ]),
  );
  files.set("empty", Buffer.alloc(0));
  files.set(
    "traversal.zip",
    await zipWithName(
      [
        ["xx/xx/etc/passwd", "root::0:0"],
        ["dummyd", "bin"],
      ],
      "xx/xx/etc/passwd",
      "../../etc/passwd",
    ),
  );
  files.set(
    "absolute.tar.gz",
    tarBuffer([
      { name: "/etc/cron.d/x", body: "* * * * * root rm -rf /" },
      { name: "dummyd", body: "bin" },
    ]),
  );
  files.set(
    "symlink-root.tar.gz",
    tarBuffer([
      { name: "evil", type: "2", linkname: "/" },
      { name: "evil/etc/cron.d/x", body: "pwned" },
      { name: "dummyd", body: "bin" },
    ]),
  );
  files.set(
    "hardlink.tar.gz",
    tarBuffer([
      { name: "dummyd", type: "1", linkname: "/etc/passwd" },
      { name: "README", body: "x" },
    ]),
  );
  files.set(
    "fifo.tar.gz",
    tarBuffer([
      { name: "pipe", type: "6" },
      { name: "dummyd", body: "bin" },
    ]),
  );
  files.set(
    "dotdot.tar.gz",
    tarBuffer([
      { name: "bin/../../../outside/x", body: "x" },
      { name: "dummyd", body: "bin" },
    ]),
  );
  files.set("bomb.zip", await zipBuffer([["dummyd", Buffer.alloc(4 << 20)]]));
  files.set("many.tar.gz", tarBuffer(Array.from({ length: 200_000 }, (_, i) => ({ name: `f${i}` }))));
  files.set("setuid.tar.gz", tarBuffer([{ name: "dummyd", body: "#!/bin/sh\necho setuid\n", mode: 0o6755 }]));
  files.set("single.gz", gzipSync(Buffer.from("#!/bin/sh\necho gz\n")));
  server = await fileServer(files);
  // (files referring to the server's URL are set after it listens)
  files.set("info.json", Buffer.from(info({ [here]: url("raw") })));
  files.set("info-nested.json", Buffer.from(url("info.json")));
}, 60_000);

afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

async function home(): Promise<Home> {
  return newHome("echo v1");
}

/** fetchUpgrade for plan `name`; the error text, or the installed binary. Checks no leftovers on failure. */
async function get(
  h: Home,
  name: string,
  planInfo: string,
  o: { must?: boolean; maxBytes?: number; idleMs?: number; daemon?: string; limits?: Partial<DownloadLimits> } = {},
) {
  const layout = new Layout({ home: h.home, name: o.daemon ?? h.name, disableRecase: false });
  const logs = captureLog();
  const outside = snapshot(h.parent, ["home"]);
  try {
    const r = await fetchUpgrade(name, planInfo, {
      layout,
      daemonName: o.daemon ?? h.name,
      mustHaveChecksum: o.must ?? false,
      limits: { maxBytes: o.maxBytes ?? 64 << 20, idleMs: o.idleMs ?? 5000, ...o.limits },
      log: logs.log,
      temp: () => {},
    });
    return { bin: r.bin, error: "", logs: logs.text() };
  } catch (e) {
    expect(existsSync(layout.upgradeDir(name))).toBe(false);
    expect(readdirSync(layout.tmpDir)).toEqual([]);
    expect(snapshot(h.parent, ["home"])).toEqual(outside);
    return { bin: "", error: (e as Error).message, logs: logs.text() };
  }
}

describe("downloads that succeed", () => {
  it("D1: a raw file with a correct sha256 becomes an executable bin/<daemon>", async () => {
    const h = await home();
    const r = await get(h, "v2", info({ [here]: url("raw") }));
    expect(r.error).toBe("");
    expect(r.bin).toBe(join(h.home, "cosmovisor/upgrades/v2/bin/dummyd"));
    expect(readFileSync(r.bin)).toEqual(files.get("raw"));
    expect(statSync(r.bin).mode & 0o111).toBe(0o111);
    expect(readdirSync(join(h.home, "cosmovisor/.tmp"))).toEqual([]);
    expect(r.logs).toContain("checksum verified algo=sha256");
  });

  it("sha512, a bare hex checksum and file:// URLs work too", async () => {
    const h = await home();
    const { createHash } = await import("node:crypto");
    const s512 = createHash("sha512").update(files.get("raw")!).digest("hex");
    expect((await get(h, "a", info({ any: url("raw", s512, "sha512") }))).error).toBe("");
    expect((await get(h, "b", info({ any: `${server.url}/raw?checksum=${sha256(files.get("raw")!)}` }))).error).toBe("");
    const local = join(h.parent, "src", "local-bin");
    writeFileSync(local, files.get("raw")!);
    expect((await get(h, "c", info({ any: `file://${local}?checksum=sha256:${sha256(files.get("raw")!)}` }))).error).toBe("");
    expect((await get(h, "d", info({ any: local }))).error).toBe(""); // a bare absolute path
  });

  it("D3–D4: a zip with one file becomes bin/<daemon> whatever its name", async () => {
    const h = await home();
    const a = await get(h, "v3", info({ any: url("binsome.zip") }), { daemon: "some-file" });
    expect(readFileSync(a.bin, "utf8")).toBe("some-file content");
    expect(a.bin.endsWith("upgrades/v3/bin/some-file")).toBe(true);
    const b = await get(h, "v4", info({ any: url("just.zip") }), { daemon: "just-a-file" });
    expect(readFileSync(b.bin, "utf8")).toBe("just a file");
  });

  it("D6/R11: tar.gz with bin/<daemon> and libraries is used as is; <daemon> at the top is moved into bin/", async () => {
    const h = await home();
    const a = await get(h, "v6", info({ any: url("app.tar.gz") }));
    expect(readFileSync(a.bin, "utf8")).toContain("tar v2");
    expect(existsSync(join(h.home, "cosmovisor/upgrades/v6/lib/libx.so"))).toBe(true);
    const b = await get(h, "v7", info({ any: url("top.tar.gz") }));
    expect(b.bin).toBe(join(h.home, "cosmovisor/upgrades/v7/bin/dummyd"));
    expect(readFileSync(b.bin, "utf8")).toContain("top");
    expect(existsSync(join(h.home, "cosmovisor/upgrades/v7/dummyd"))).toBe(false);
    const c = await get(h, "v8", info({ any: url("single.gz") }));
    expect(readFileSync(c.bin, "utf8")).toContain("echo gz");
  });

  it("D9: an info URL with its own checksum is followed once; a URL inside it is not followed again", async () => {
    const h = await home();
    expect((await get(h, "v9", url("info.json"), { must: true })).error).toBe("");
    const nested = await get(h, "v10", url("info-nested.json"));
    expect(nested.error).toMatch(/^cannot parse upgrade info: could not parse plan info: /);
  });

  it("D12/R5: a broken entry for another platform does not matter; only this platform's binary is downloaded", async () => {
    const h = await home();
    const other = here === "linux/amd64" ? "darwin/arm64" : "linux/amd64";
    const before = server.hits();
    const r = await get(h, "v12", info({ [here]: url("raw"), [other]: `${server.url}/raw?checksum=sha256:${"0".repeat(64)}`, "windows/amd64": "ftp://nope" }), {
      must: true,
    });
    expect(r.error).toBe("");
    expect(server.hits() - before).toBe(1);
    // `any` is the fallback when this platform has no entry.
    expect((await get(h, "v13", info({ [other]: url("empty"), any: url("raw") }))).error).toBe("");
  });
});

describe("downloads that fail: clear errors, nothing left behind", () => {
  it("D2: a checksum mismatch", async () => {
    const h = await home();
    const bad = "1".repeat(64);
    const r = await get(h, "v2", info({ [here]: url("raw", bad) }));
    expect(r.error).toContain("Checksums did not match");
    expect(r.error).toContain(`\nExpected: ${bad}`);
    expect(r.error).toContain(`\nGot: ${sha256(files.get("raw")!)}`);
  });

  it("D5: a zip of three files without the daemon", async () => {
    const h = await home();
    const r = await get(h, "v5", info({ any: url("three.zip") }), { daemon: "not-expected" });
    expect(r.error).toContain("result does not contain a bin/not-expected or not-expected file");
  });

  it("D7: a URL that does not exist (file:// and HTTP 404)", async () => {
    const h = await home();
    const missing = `file:///never/gonna/be/a/thing.zip?checksum=sha256:${"a".repeat(64)}`;
    const a = await get(h, "v7", info({ any: missing }));
    expect(a.error).toContain(missing);
    expect(a.error).toContain("no such file or directory");
    const b = await get(h, "v7", info({ any: url("nothing-here", "b".repeat(64)) }));
    expect(b.error).toContain("bad response code: 404");
    expect(b.error).toContain(`${server.url}/nothing-here`);
  });

  it("D8: a URL without a checksum when one is required (binary URL and info URL)", async () => {
    const h = await home();
    expect((await get(h, "v8", info({ any: `${server.url}/raw` }), { must: true })).error).toBe(
      `invalid binaries: invalid url "${server.url}/raw" in binaries[any]: missing checksum query parameter`,
    );
    expect((await get(h, "v8", `${server.url}/info.json`, { must: true })).error).toBe(
      `cannot parse upgrade info: invalid url "${server.url}/info.json": missing checksum query parameter`,
    );
  });

  it("D11: an info URL to an empty file with a correct checksum", async () => {
    const h = await home();
    expect((await get(h, "v11", url("empty"))).error).toContain(`no content returned by "${url("empty")}"`);
  });

  it("D13: a truncated transfer, a body over the limit, a silent server", async () => {
    const h = await home();
    const t = await get(h, "v13", info({ any: `${server.url}/truncated` }));
    expect(t.error).toMatch(/cannot download binary\. .*(connection closed after 10 of 10000 bytes|connection reset by peer|aborted)/);
    const big = await get(h, "v13", info({ any: `${server.url}/huge` }), { maxBytes: 1 << 20 });
    expect(big.error).toContain("download exceeds the limit of 1048576 bytes (DAEMON_DOWNLOAD_MAX_BYTES)");
    const len = await get(h, "v13", info({ any: url("app.tar.gz") }), { maxBytes: 10 });
    expect(len.error).toContain("download exceeds the limit of 10 bytes");
    const silent = await get(h, "v13", info({ any: `${server.url}/silent` }), { idleMs: 300 });
    expect(silent.error).toContain("no data received for 300ms (DAEMON_DOWNLOAD_IDLE_TIMEOUT)");
  });

  it("D15 ★: a trickle (8 MiB announced, 1 byte/s) fails at the minimum rate, or at the deadline; a stall at the idle timeout", async () => {
    const trickle = await trickleServer({ length: 8 << 20, chunk: 1, intervalMs: 1000 });
    const stalled = await trickleServer({ length: 8 << 20, chunk: 0 });
    const mute = await trickleServer({ length: 8 << 20, chunk: 0, headers: false });
    try {
      const h = await home();
      const timed = async (planInfo: string, limits: Partial<DownloadLimits>) => {
        const t0 = performance.now();
        const r = await get(h, "v15", planInfo, { limits });
        return { ...r, ms: performance.now() - t0 };
      };
      const bin = (srv: { url: string }) => info({ any: `${srv.url}/v2.bin` });
      // Every 1.5 s span must bring 1.5 × 1024 bytes: the first check after 1.5 s fails it (a tick is 375 ms).
      const slow = await timed(bin(trickle), { idleMs: 1500, minRate: 1024 });
      expect(slow.error).toMatch(
        /^cannot download binary\. error downloading ".*": download too slow: [1-2] bytes in the last 1\.\d+s, below 1024 bytes\/s \(DAEMON_DOWNLOAD_MIN_RATE\)$/,
      );
      expect(slow.ms).toBeGreaterThanOrEqual(1500);
      expect(slow.ms).toBeLessThan(3000);
      // Without a minimum rate, the overall deadline ends it.
      const late = await timed(bin(trickle), { idleMs: 5000, minRate: 0, timeoutMs: 1500 });
      expect(late.error).toMatch(/download not complete after 1\.5s \(DAEMON_DOWNLOAD_TIMEOUT\)$/);
      expect(late.ms).toBeGreaterThanOrEqual(1500);
      expect(late.ms).toBeLessThan(3000);
      // Headers, then nothing; no headers at all: the idle timeout.
      for (const srv of [stalled, mute]) {
        const idle = await timed(bin(srv), { idleMs: 500, minRate: 0, timeoutMs: 60_000 });
        expect(idle.error).toMatch(/no data received for 500ms \(DAEMON_DOWNLOAD_IDLE_TIMEOUT\)$/);
        expect(idle.ms).toBeLessThan(2000);
      }
      // A fast download is not troubled by the same limits.
      expect((await get(h, "v16", info({ any: url("raw") }), { limits: { idleMs: 1500, minRate: 1024, timeoutMs: 1500 } })).error).toBe("");
    } finally {
      await Promise.all([trickle.close(), stalled.close(), mute.close()]);
    }
  });

  it("D16 ★: the caller's signal stops a transfer, an info download and an extraction at once, with its own reason", async () => {
    const trickle = await trickleServer({ length: 8 << 20, chunk: 1024, intervalMs: 50 });
    try {
      const h = await home();
      for (const planInfo of [info({ any: `${trickle.url}/v2.bin` }), `${trickle.url}/info.json`, info({ any: url("many.tar.gz") })]) {
        const ctl = new AbortController();
        const timer = setTimeout(() => ctl.abort(new Error("interrupted by SIGTERM")), 300);
        const t0 = performance.now();
        const r = await get(h, "v17", planInfo, { limits: { signal: ctl.signal } });
        clearTimeout(timer);
        expect(r.error).toMatch(/interrupted by SIGTERM$/);
        expect(performance.now() - t0).toBeLessThan(2000);
      }
    } finally {
      await trickle.close();
    }
  });

  it("D16: an extraction stopped by the signal writes no more files (its clean-up is not raced for seconds)", async () => {
    // 30,000 one-byte files compress to ~300 KB: one read of the archive holds thousands of parsed entries.
    const many = tarBuffer([
      { name: "bin/", type: "5" },
      { name: "bin/dummyd", body: "#!/bin/sh\n", mode: 0o755 },
      ...Array.from({ length: 30_000 }, (_, i) => ({ name: `lib/f${i}`, body: "x" })),
    ]);
    const dir = tempDir();
    writeFileSync(join(dir, "v2.tar.gz"), many);
    const out = join(dir, "out");
    const written = () => (existsSync(join(out, "lib")) ? readdirSync(join(out, "lib")).length : 0);
    const ctl = new AbortController();
    const extracting = installBinary(join(dir, "v2.tar.gz"), "tar.gz", out, "dummyd", "v2.tar.gz", { maxBytes: 1 << 30, idleMs: 60_000, signal: ctl.signal });
    const settled = extracting.then(
      () => "extracted",
      (e: Error) => e.message,
    );
    await waitUntil(() => written() > 0, 30_000, "the extraction to write files");
    ctl.abort(new Error("interrupted by SIGTERM"));
    expect(await settled).toBe("interrupted by SIGTERM");
    const atAbort = written();
    // What was in flight may still land; before the fix every parsed entry did (thousands within the second).
    await new Promise((r) => setTimeout(r, 1000));
    expect(written() - atAbort).toBeLessThan(50);
    expect(written()).toBeLessThan(30_000);
  });

  it("D14: a redirect loop, an https → http redirect, an ftp:// URL", async () => {
    const h = await home();
    expect((await get(h, "v14", info({ any: `${server.url}/loop` }))).error).toContain("stopped after 10 redirects");
    expect((await get(h, "v14", info({ any: "ftp://127.0.0.1/dummyd" }))).error).toBe(
      'invalid binaries: invalid url "ftp://127.0.0.1/dummyd" in binaries[any]: unsupported URL scheme "ftp"',
    );
    expect(checkUrl("gopher://x/y", false, "sidecar")).toEqual({ problem: 'unsupported URL scheme "gopher"' });
  });

  it.skipIf(spawnSync("openssl", ["version"]).status !== 0)("D14: an https → http redirect is refused", async () => {
    // A throw-away self-signed certificate for 127.0.0.1, trusted by this process's https agent only.
    const dir = tempDir();
    const gen = spawnSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]);
    expect(gen.status).toBe(0);
    const cert = readFileSync(join(dir, "cert.pem"));
    const tls = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      if (req.url?.startsWith("/ok")) return res.end(files.get("raw"));
      res.writeHead(302, { location: `${server.url}/raw` });
      res.end();
    });
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
    const base = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const ca = https.globalAgent.options.ca;
    https.globalAgent.options.ca = cert;
    try {
      const h = await home();
      expect((await get(h, "v14", info({ any: `${base}/ok` }))).error).toBe(""); // the TLS setup works
      expect((await get(h, "v15", info({ any: `${base}/redirect` }))).error).toContain(`refusing redirect from https to http: ${server.url}/raw`);
    } finally {
      https.globalAgent.options.ca = ca;
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
    }
  });

  it("the checksum forms of docs/spec/sidecar.md §7.3", () => {
    expect(checksumOf("sha256:" + "A".repeat(64), "sidecar")).toEqual({ algo: "sha256", hex: "a".repeat(64) });
    expect(checksumOf("b".repeat(128), "sidecar")).toMatchObject({ algo: "sha512" });
    expect(checksumOf("c".repeat(40), "sidecar")).toMatchObject({ algo: "sha1" });
    expect(checksumOf("d".repeat(32), "sidecar")).toMatchObject({ algo: "md5" });
    expect(checksumOf("file:https://x/SHA256SUMS", "sidecar")).toEqual({ problem: 'unsupported checksum form "file:https://x/SHA256SUMS"' });
    expect(checksumOf("sha256:abc", "sidecar")).toEqual({ problem: 'invalid checksum "sha256:abc"' });
    expect(checksumOf("crc32:00000000", "sidecar")).toEqual({ problem: 'invalid checksum "crc32:00000000"' });
    // The CLI's validation takes the prefixed form only (docs/spec/interfaces.md §9).
    expect(checksumOf("b".repeat(128))).toEqual({ problem: `invalid checksum "${"b".repeat(128)}"` });
  });

  it("info without binaries, or none for this platform", async () => {
    const h = await home();
    expect((await get(h, "v1", "")).error).toBe("cannot parse upgrade info: plan info must not be blank");
    expect((await get(h, "v1", "{}")).error).toBe('invalid binaries: no "binaries" entries found');
    expect((await get(h, "v1", info({ "plan9/mips": url("raw") }))).error).toBe(`cannot find binary for os/arch: neither ${here}, nor any`);
  });
});

describe("hostile archives (X1–X6) are refused whole", () => {
  it("X1: a zip entry ../../etc/passwd", async () => {
    const h = await home();
    const r = await get(h, "x1", info({ any: url("traversal.zip") }));
    expect(r.error).toMatch(/cannot download binary\. .*(refusing archive|invalid relative path)/);
    expect(existsSync(join(h.home, "cosmovisor/etc/passwd"))).toBe(false);
    expect(existsSync(join(h.home, "etc"))).toBe(false);
  });

  it("X2: a tar entry /etc/cron.d/x; a ../ entry", async () => {
    const h = await home();
    expect((await get(h, "x2", info({ any: url("absolute.tar.gz") }))).error).toContain('refusing archive: entry "/etc/cron.d/x": absolute path');
    expect((await get(h, "x2", info({ any: url("dotdot.tar.gz") }))).error).toContain("refusing archive: entry \"bin/../../../outside/x\": '..' segment");
  });

  it("X3: a tarball with a symlink to / and a file written through it", async () => {
    const h = await home();
    const r = await get(h, "x3", info({ any: url("symlink-root.tar.gz") }));
    expect(r.error).toContain('refusing archive: entry "evil": SymbolicLink entries are not allowed');
  });

  it("X4: a hard link to an outside path; a FIFO", async () => {
    const h = await home();
    expect((await get(h, "x4", info({ any: url("hardlink.tar.gz") }))).error).toContain('refusing archive: entry "dummyd": Link entries are not allowed');
    expect((await get(h, "x4", info({ any: url("fifo.tar.gz") }))).error).toContain('refusing archive: entry "pipe": FIFO entries are not allowed');
  });

  it("X5: a zip bomb past the limit; 200,000 entries", async () => {
    const h = await home();
    expect((await get(h, "x5", info({ any: url("bomb.zip") }), { maxBytes: 1 << 20 })).error).toContain("refusing archive: more than 1048576 bytes extracted");
    expect((await get(h, "x5", info({ any: url("many.tar.gz") }))).error).toContain("refusing archive: more than 100000 entries");
  }, 30_000);

  it("X6: a setuid binary is installed without the setuid bit", async () => {
    const h = await home();
    const r = await get(h, "x6", info({ any: url("setuid.tar.gz") }));
    expect(r.error).toBe("");
    expect(statSync(r.bin).mode & 0o7000).toBe(0);
    expect(statSync(r.bin).mode & 0o111).toBe(0o111);
  });
});

describe("R10: prepare-upgrade stages the scheduled plan in the recased directory", () => {
  it("plan V2 with a non-archive URL → upgrades/v2/bin/<daemon>", async () => {
    const h = await home();
    const rpc = await fakeRpc({ height: 10n, plan: { name: "V2", height: 100n, info: info({ [here]: url("raw") }) } });
    try {
      const logs = captureLog();
      expect(await prepareUpgrade(config(h, { DAEMON_RPC_ADDRESS: rpc.url }), { log: logs.log })).toBe(true);
      const bin = join(h.home, "cosmovisor/upgrades/v2/bin/dummyd");
      expect(readFileSync(bin)).toEqual(files.get("raw"));
      expect(logs.text()).toContain("Preparing for upgrade name=V2 height=100");
      expect(logs.text()).toContain(`Downloading upgrade binary url=${url("raw")}`);
      expect(logs.text()).toContain("Upgrade preparation complete");
      rpc.state.plan = undefined;
      const none = captureLog();
      expect(await prepareUpgrade(config(h, { DAEMON_RPC_ADDRESS: rpc.url }), { log: none.log })).toBe(false);
      expect(none.text()).toContain("No active upgrade plan found");
    } finally {
      await rpc.close();
    }
  });
});
