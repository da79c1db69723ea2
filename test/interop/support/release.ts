/**
 * A "release" of a real binary for the download step of an upgrade: a tar.gz holding `bin/<name>`, served on
 * 127.0.0.1, with the Plan.Info that names it (`{"binaries":{"<os>/<arch>":"<url>?checksum=sha256:<hex>"}}`),
 * which both `xupgrade visor` and cosmovisor download, verify and unpack. The tarball of a given binary is
 * made once and kept in node_modules/.cache/xupgrade-interop/ (simd v0.50 is 122 MiB; gzip -1 takes a few
 * seconds on two cores), keyed by the binary's size and mtime.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import * as tar from "tar";
import { httpServer, type TestServer } from "../../support/http.js";
import { ROOT } from "../../support/paths.js";
import { tempDir } from "../../support/temp.js";

export const CACHE_DIR = join(ROOT, "node_modules/.cache/xupgrade-interop");

export const GOOS = ({ linux: "linux", darwin: "darwin", win32: "windows" } as Record<string, string>)[process.platform] ?? process.platform;
export const GOARCH = ({ x64: "amd64", arm64: "arm64", ia32: "386", arm: "arm" } as Record<string, string>)[process.arch] ?? process.arch;

export interface Release {
  /** The download URL with its `?checksum=sha256:<hex>`. */
  url: string;
  sha256: string;
  bytes: number;
  /** Plan.Info naming the URL for this platform. */
  info: string;
  /** How many times the tarball was fetched (GET; HEAD requests are counted apart). */
  downloads(): number;
  /** Every request for the tarball: `<method> <range header or "-">`. */
  requests(): string[];
  close(): Promise<void>;
}

async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  await pipeline(createReadStream(path), h);
  return h.digest("hex");
}

/** The tar.gz of `binary` as `bin/<name>`: cached (made when missing), or in a temporary directory with `cache: false`. */
export async function releaseTarball(binary: string, name: string, label: string, cache = true): Promise<string> {
  const st = statSync(binary);
  const dir = cache ? CACHE_DIR : tempDir("xupgrade-interop-tarball-");
  const file = join(dir, `${label}-${st.size}-${Math.floor(st.mtimeMs)}.tar.gz`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const staging = tempDir("xupgrade-interop-release-");
  mkdirSync(join(staging, "bin"));
  symlinkSync(binary, join(staging, "bin", name));
  const partial = `${file}.${process.pid}.partial`;
  try {
    await tar.c({ file: partial, cwd: staging, gzip: { level: 1 }, portable: true, follow: true }, ["bin"]);
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
    rmSync(staging, { recursive: true, force: true });
  }
  return file;
}

/** Serves the tarball of `binary` on 127.0.0.1 until close(). */
export async function serveRelease(binary: string, o: { name: string; label: string; cache?: boolean }): Promise<Release> {
  const file = await releaseTarball(binary, o.name, o.label, o.cache ?? true);
  const sha256 = await sha256File(file);
  const bytes = statSync(file).size;
  const path = `/${o.label}.tar.gz`;
  let count = 0;
  const seen: string[] = [];
  const server: TestServer = await httpServer(async (req, res) => {
    if ((req.url ?? "").split("?")[0] !== path) {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not found");
    }
    seen.push(`${req.method} ${req.headers.range ?? "-"}`);
    res.writeHead(200, { "content-type": "application/gzip", "content-length": bytes });
    if (req.method === "HEAD") return res.end();
    count++;
    await pipeline(createReadStream(file), res);
  });
  const url = `${server.url}${path}?checksum=sha256:${sha256}`;
  return {
    url,
    sha256,
    bytes,
    info: JSON.stringify({ binaries: { [`${GOOS}/${GOARCH}`]: url } }),
    downloads: () => count,
    requests: () => [...seen],
    close: () => server.close(),
  };
}
