/**
 * The visor as a container's entry point (docs/spec/sidecar.md §12.1), run as the container would run it
 * (no Docker engine here): examples/container/entrypoint.sh in its own process group, the volume a
 * directory, the image's node binary elsewhere, the container's stop a SIGTERM to the entry point's
 * process. The first container inits the volume, the node halts, the visor downloads v2 into the volume and
 * switches; a recreated container (another image directory) finds v2 and runs it. The Dockerfile and the
 * compose file name the paths and variables the entry point reads.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../support/paths.js";
import { builtCliMain, removeTempDirs as removeCliBuild } from "../cli/helpers.js";
import { processesMentioning, removeTempDirs, script, sha256, tempDir, waitUntil } from "./helpers.js";

afterAll(() => {
  removeTempDirs();
  removeCliBuild();
});

const DIR = join(ROOT, "examples/container");
const ENTRY = join(DIR, "entrypoint.sh");

/** One "container": the entry point with the image's environment, stopped by a SIGTERM to its process. */
function container(env: Record<string, string>, args: string[]) {
  const child = spawn(ENTRY, args, { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | string>((r) => child.on("close", (code, signal) => r(code ?? signal ?? -1)));
  return { pid: child.pid!, out: () => out, err: () => err, exited, stop: () => process.kill(child.pid!, "SIGTERM") };
}

describe("the visor as a container's entry point", () => {
  it("init on the volume, an upgrade downloaded into it, SIGTERM forwarded; a recreated container runs v2 from the volume", async () => {
    const root = tempDir();
    const volume = join(root, "volume");
    mkdirSync(join(volume, "data"), { recursive: true }); // the node's init made it
    const plan = join(root, "plan.json");
    // v2, as a release server would publish it (a file URL here), and its checksum in the plan's info.
    const v2 = script(
      join(root, "release", "mychaind-v2"),
      `[ "$1" = pre-upgrade ] && exit 0\ntrap 'echo "v2 stopped"; exit 0' TERM\necho "v2 running"\nwhile :; do sleep 0.1; done`,
    );
    const info = JSON.stringify({ binaries: { any: `file://${v2}?checksum=sha256:${sha256(readFileSync(v2))}` } });
    writeFileSync(plan, JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: 10, info }));
    // The image's v1 halts at the height: it writes upgrade-info.json (as the keeper does) and exits 20.
    const image = (n: number) =>
      script(join(root, `image${n}`, "usr/local/bin/mychaind"), `echo "v1 ran"\ncp ${JSON.stringify(plan)} "$3/data/upgrade-info.json"\nexit 20`);
    const env = (bin: string) => ({
      DAEMON_HOME: volume,
      DAEMON_NAME: "mychaind",
      DAEMON_DATA_BACKUP_DIR: volume,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      DAEMON_POLL_INTERVAL: "50ms",
      DAEMON_RPC_ADDRESS: "http://127.0.0.1:9",
      COSMOVISOR_COLOR_LOGS: "false",
      XUPGRADE_GENESIS_BINARY: bin,
      XUPGRADE: `${process.execPath} ${builtCliMain()}`,
    });

    const first = container(env(image(1)), ["start", "--home", volume]);
    await waitUntil(() => first.out().includes("v2 running"), 90_000, "v2 to run in the first container");
    expect(first.out()).toContain("v1 ran");
    first.stop();
    expect(await first.exited).toBe(0);
    expect(first.out()).toContain("v2 stopped"); // the SIGTERM reached the node
    expect(first.err()).toContain(`copying executable into place: ${JSON.stringify(join(volume, "cosmovisor/genesis/bin/mychaind"))}`); // init, on the volume
    expect(readlinkSync(join(volume, "cosmovisor/current"))).toBe("upgrades/v2");
    expect(readdirSync(volume).filter((n) => n.startsWith("data-backup-"))).toHaveLength(1);

    // The container recreated from another image directory: the volume's v2 runs, the image's v1 never.
    const second = container(env(image(2)), ["start", "--home", volume]);
    await waitUntil(() => second.out().includes("v2 running"), 90_000, "v2 to run in the second container");
    second.stop();
    expect(await second.exited).toBe(0);
    expect(second.out()).not.toContain("v1 ran");
    expect(second.err()).toMatch(/start: found upgrade-info\.json=v2@10 current=upgrades\/v2 \(v2\)/);
    expect(processesMentioning(volume)).toEqual([]);
  }, 180_000);

  it("the Dockerfile and the compose file give the entry point what it reads, the volume at DAEMON_HOME", () => {
    const docker = readFileSync(join(DIR, "Dockerfile"), "utf8");
    const compose = readFileSync(join(DIR, "compose.yaml"), "utf8");
    const entry = readFileSync(ENTRY, "utf8");
    const home = /DAEMON_HOME=(\S+)/.exec(docker)![1];
    const name = /DAEMON_NAME=(\S+)/.exec(docker)![1];
    const genesis = /XUPGRADE_GENESIS_BINARY=(\S+)/.exec(docker)![1];
    for (const v of ["DAEMON_HOME", "DAEMON_NAME", "XUPGRADE_GENESIS_BINARY"]) expect(entry).toContain(`\${${v}`);
    expect(docker).toContain(`COPY \${NODE_BINARY} ${genesis}`);
    expect(docker).toContain("COPY examples/container/entrypoint.sh /usr/local/bin/xupgrade-entrypoint");
    expect(docker).toContain('ENTRYPOINT ["/usr/local/bin/xupgrade-entrypoint"]');
    expect(docker).toContain(`VOLUME ${home}`);
    expect(docker).toContain(`CMD ["start", "--home", "${home}"]`);
    expect(docker).toContain(`DAEMON_DATA_BACKUP_DIR=${home}`); // backups on the volume: hard-linked
    expect(compose).toContain(`DAEMON_HOME: ${home}`);
    expect(compose).toContain(`DAEMON_NAME: ${name}`);
    expect(compose).toContain(`XUPGRADE_GENESIS_BINARY: ${genesis}`);
    expect(compose).toContain(`- chain:${home}`);
    expect(compose).toContain(`command: ["start", "--home", "${home}"]`);
    expect(compose).toContain("init: true");
  });
});
