/**
 * The bad inputs, each through the whole run loop (`visor run` in process): a clear error, the old
 * binary, `current` and the data directory intact, nothing written outside DAEMON_HOME, no temporary
 * files or half-made upgrade directory, and the old binary still runs.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { osArch } from "../../../bindings/apps/visor/names.js";
import { expectIntact, fileServer, newHome, removeTempDirs, runVisorIn, seal, sha256, stage, tarBuffer, zipWithName } from "./helpers.js";

const files = new Map<string, Buffer>();
let server: Awaited<ReturnType<typeof fileServer>>;

beforeAll(async () => {
  files.set("v2", Buffer.from("#!/bin/sh\necho v2\n"));
  files.set(
    "traversal.zip",
    await zipWithName(
      [
        ["xx/xx/etc/passwd", "root::0:0"],
        ["dummyd", "#!/bin/sh\n"],
      ],
      "xx/xx/etc/passwd",
      "../../etc/passwd",
    ),
  );
  files.set(
    "symlink.tar.gz",
    tarBuffer([
      { name: "bin", type: "2", linkname: "/" },
      { name: "bin/dummyd", body: "#!/bin/sh\n" },
    ]),
  );
  files.set(
    "nodaemon.tar.gz",
    tarBuffer([
      { name: "README", body: "r" },
      { name: "lib/x.so", body: "x" },
    ]),
  );
  server = await fileServer(files);
});

afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

const V1 = 'echo "v1 $@"';
const withChecksum = (name: string, hex = sha256(files.get(name)!)) => `${server.url}/${name}?checksum=sha256:${hex}`;
const infoFor = (url: string) => JSON.stringify({ binaries: { [osArch()]: url } });

/** A home whose node halted for "v2" with `info`; runs the visor; checks everything survived. */
async function failedUpgrade(info: string, env: Record<string, string> = {}) {
  const h = await newHome(V1);
  writeFileSync(join(h.home, "data", "upgrade-info.json"), JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: 49, info }));
  const before = seal(h);
  const r = await runVisorIn(h, ["start"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true", ...env });
  expect(r.code).toBeUndefined();
  expectIntact(h, before, "v2");
  return r.error ?? "";
}

describe.concurrent(
  "bad info files found at start: set aside (the node writes the file again at its halt), never fatal; the node runs on its old binary",
  () => {
    for (const [what, text, message] of [
      ["garbage", "garbage{", "invalid character 'g' looking for beginning of value"],
      ["an empty name", '{"name":"","height":49}', "invalid upgrade-info.json content: name cannot be empty: invalid request"],
      ["a height as a string", '{"name":"v2","height":"49"}', "json: cannot unmarshal string into Go struct field Plan.height of type int64"],
    ] as const) {
      it(`an info file with ${what}`, async () => {
        const h = await newHome(V1);
        writeFileSync(join(h.home, "data", "upgrade-info.json"), text);
        const before = seal(h);
        const r = await runVisorIn(h, ["start"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" });
        expect(r.code).toBe(0);
        expect(r.stdout).toBe("v1 start\n");
        expect(r.logs).toContain(message);
        const aside = join(h.home, "cosmovisor", "upgrade-info.json.unreadable");
        expect(readFileSync(aside, "utf8")).toBe(text);
        expect(r.logs).toContain(`the unreadable upgrade-info.json was moved to ${aside}`);
        renameSync(aside, join(h.home, "data", "upgrade-info.json")); // back, for the comparison of data/
        expectIntact(h, before, "v2");
      });
    }
  },
);

describe.concurrent("bad downloads and binaries: the pipeline stops with a clear error, nothing changed", () => {
  it("a URL without a checksum when one is required", async () => {
    expect(await failedUpgrade(infoFor(`${server.url}/v2`), { DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true" })).toBe(
      `invalid binaries: invalid url "${server.url}/v2" in binaries[${osArch()}]: missing checksum query parameter`,
    );
  });

  it("a checksum mismatch", async () => {
    const error = await failedUpgrade(infoFor(withChecksum("v2", "0".repeat(64))));
    expect(error).toContain(`Checksums did not match for v2.\nExpected: ${"0".repeat(64)}\nGot: ${sha256(files.get("v2")!)}`);
  });

  it("a 404", async () => {
    expect(await failedUpgrade(infoFor(withChecksum("v2", "1".repeat(64)).replace("/v2?", "/gone?")))).toMatch(
      /^cannot download binary\. error downloading ".*\/gone\?checksum=.*": bad response code: 404$/,
    );
  });

  it("a truncated download", async () => {
    expect(await failedUpgrade(infoFor(`${server.url}/truncated?checksum=sha256:${"2".repeat(64)}`))).toMatch(
      /cannot download binary\. .*(connection closed after 10 of 10000 bytes|connection reset by peer|aborted)/,
    );
  });

  it("a zip with ../../etc/passwd", async () => {
    expect(await failedUpgrade(infoFor(withChecksum("traversal.zip")))).toMatch(
      /cannot download binary\. .*(refusing archive: entry "\.\.\/\.\.\/etc\/passwd"|invalid relative path)/,
    );
  });

  it("a tarball with a symlink to /", async () => {
    expect(await failedUpgrade(infoFor(withChecksum("symlink.tar.gz")))).toContain('refusing archive: entry "bin": SymbolicLink entries are not allowed');
  });

  it("a missing binary: not staged with downloads off; an archive without it", async () => {
    expect(await failedUpgrade("", { DAEMON_ALLOW_DOWNLOAD_BINARIES: "false" })).toMatch(
      /^binary not present, downloading disabled: stat .*upgrades\/v2\/bin\/dummyd: no such file or directory$/,
    );
    expect(await failedUpgrade(infoFor(withChecksum("nodaemon.tar.gz")))).toMatch(/result does not contain a bin\/dummyd or dummyd file$/);
  });

  it("a pre-upgrade that always exits 31", async () => {
    const h = await newHome(V1);
    await stage(h, "v2", 'if [ "$1" = pre-upgrade ]; then exit 31; fi\necho v2');
    writeFileSync(join(h.home, "data", "upgrade-info.json"), '{"name":"v2","height":49}');
    const before = seal(h);
    const r = await runVisorIn(h, ["start"], { DAEMON_PREUPGRADE_MAX_RETRIES: "3" });
    expect(r.error).toBe("pre-upgrade command failed. reached max attempt of retries - 3");
    expect(r.logs.match(/pre-upgrade result attempt=\d exit_code=31/g)).toHaveLength(4);
    expectIntact(h, before);
  });
});
