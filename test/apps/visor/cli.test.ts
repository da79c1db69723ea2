/**
 * `xupgrade visor …` as operators run it: the real CLI in its own process (docs/spec/sidecar.md §10.3 F1, docs/spec/sidecar.md §10.6
 * S1–S2, docs/spec/sidecar.md §10.7 R7–R8), with real signals, exit codes and stdout/stderr separation, and the pre-flight and
 * configuration commands.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/helpers.js";
import { osArch } from "../../../bindings/apps/visor/names.js";
import {
  CHAIN2_DUMMYD,
  GENESIS_DUMMYD,
  fakeRpc,
  httpServer,
  newHome,
  processesMentioning,
  removeTempDirs,
  sha256,
  spawnVisor,
  stage,
  visor,
  waitUntil,
} from "./helpers.js";
import { removeTempDirs as removeCliBuild } from "../cli/helpers.js";

afterAll(() => {
  removeTempDirs();
  removeCliBuild();
});

const VISOR_LINE = /^\S* ?(INF|WRN|ERR) .* module=visor$/;

describe.concurrent("F1 through the CLI", () => {
  it("stdout is the node's exactly; stderr empty with COSMOVISOR_DISABLE_LOGS, else only the visor's lines", async () => {
    const h = await newHome(GENESIS_DUMMYD);
    await stage(h, "chain2", CHAIN2_DUMMYD);
    const file = join(h.home, "data", "upgrade-info.json");
    const quiet = { COSMOVISOR_DISABLE_LOGS: "true", DAEMON_RESTART_AFTER_UPGRADE: "false", UNSAFE_SKIP_BACKUP: "true" };
    const r = await visor(h, ["run", "foo", "bar", "1234", file], quiet);
    expect(r).toEqual({ code: 0, stdout: `Genesis foo bar 1234 ${file}\nUPGRADE "chain2" NEEDED at height: 49: {}\n`, stderr: "" });
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("upgrades/chain2");
    const second = await visor(h, ["run", "second", "run", "--verbose"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("Chain 2 is live!\nArgs: second run --verbose\nFinished successfully\n");
    const lines = second.stderr.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(VISOR_LINE);
    expect(second.stderr).not.toContain("upgrading to");
  });
});

describe.concurrent("signals (S1, S2, R8)", () => {
  const TRAPS = (tag: string) => `[ "$1" = pre-upgrade ] && exit 0
trap 'echo "${tag} got TERM"; exit 7' TERM
trap 'echo "${tag} got INT"; exit 3' INT
trap 'echo "${tag} got QUIT"; exit 5' QUIT
echo "${tag} up"
i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done`;

  it("S1/R8: SIGTERM reaches the node — also the one started after a relaunch; the visor exits with its status; no orphan", async () => {
    const h = await newHome(`printf '{"name":"chain2","height":49}' > "$1/data/upgrade-info.json"; exit 20`);
    await stage(h, "chain2", TRAPS("chain2"));
    const v = spawnVisor(h, [h.home], { UNSAFE_SKIP_BACKUP: "true" });
    await waitUntil(() => v.out().includes("chain2 up"), 20_000, "the relaunched node");
    process.kill(v.pid, "SIGTERM");
    expect(await v.exited).toBe(7);
    expect(v.out()).toContain("chain2 got TERM");
    expect(v.err()).toContain("received SIGTERM, forwarding it to the child process");
    await waitUntil(() => processesMentioning(h.home).length === 0, 5000, "no process left");
  });

  it("S2: SIGINT to the visor alone (not its group) is forwarded; SIGQUIT too", async () => {
    const h = await newHome(TRAPS("v1"));
    const a = spawnVisor(h, []);
    await waitUntil(() => a.out().includes("v1 up"), 20_000, "the node");
    process.kill(a.pid, "SIGINT");
    expect(await a.exited).toBe(3);
    expect(a.out()).toContain("v1 got INT");
    const b = spawnVisor(h, []);
    await waitUntil(() => b.out().includes("v1 up"), 20_000, "the node");
    process.kill(b.pid, "SIGQUIT");
    expect(await b.exited).toBe(5);
    await waitUntil(() => processesMentioning(h.home).length === 0, 5000, "no process left");
  });
});

describe.concurrent("R7: a download killed half-way does not block the retry", () => {
  it("SIGKILL during the download; the next start removes the partial files and completes", async () => {
    const body = Buffer.concat([Buffer.from('#!/bin/sh\necho v2 "$@"\n# '), Buffer.alloc(256 * 1024, 0x61), Buffer.from("\n")]);
    let stall = true;
    const srv = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": String(body.length) });
      if (!stall) return res.end(body);
      res.write(body.subarray(0, 64 * 1024)); // then nothing: the visor is killed meanwhile
    });
    try {
      const h = await newHome('echo "v1 $@"');
      const info = JSON.stringify({ binaries: { [osArch()]: `${srv.url}/v2?checksum=sha256:${sha256(body)}` } });
      writeFileSync(join(h.home, "data", "upgrade-info.json"), JSON.stringify({ name: "v2", height: 49, info }));
      const env = { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true", UNSAFE_SKIP_BACKUP: "true", DAEMON_RESTART_AFTER_UPGRADE: "false" };
      const first = spawnVisor(h, ["go"], env);
      const tmp = join(h.home, "cosmovisor", ".tmp");
      await waitUntil(
        () => existsSync(tmp) && readdirSync(tmp).some((d) => d.startsWith("v2-")) && first.err().includes("downloading upgrade binary"),
        20_000,
        "the download",
      );
      await new Promise((r) => setTimeout(r, 200));
      process.kill(first.pid, "SIGKILL");
      await first.exited;
      expect(existsSync(join(h.home, "cosmovisor", "upgrades", "v2"))).toBe(false);
      expect(readdirSync(tmp).length).toBeGreaterThan(0);
      stall = false;
      const second = await visor(h, ["run", "go"], env);
      expect(second.code).toBe(0);
      expect(second.stderr).toContain("removed temporary files of an earlier run");
      expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("upgrades/v2");
      expect(readFileSync(join(h.home, "cosmovisor", "upgrades", "v2", "bin", "dummyd"))).toEqual(body);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      await srv.close();
    }
  });
});

describe.concurrent("the other commands", () => {
  it("config, version, and configuration errors as one Error line each", async () => {
    const h = await newHome('if [ "$1" = version ]; then echo "dummyd v1.2.3"; fi');
    const cfg = await visor(h, ["config"], { DAEMON_POLL_INTERVAL: "406ms" });
    expect(cfg.code).toBe(0);
    for (const piece of [
      "Configurable Values:",
      "DAEMON_POLL_INTERVAL: 406ms",
      "Derived Values:",
      `Root Dir: ${h.home}/cosmovisor`,
      "Monitored File:",
      "Data Backup Dir:",
    ])
      expect(cfg.stdout).toContain(piece);
    const v = await visor(h, ["version"]);
    expect(v).toMatchObject({ code: 0, stdout: expect.stringMatching(/^xupgrade visor version: \d+\.\d+\.\d+\ndummyd v1\.2\.3\n$/) });
    const bad = await runCli(["visor", "run", "x"], {
      env: {
        DAEMON_HOME: "",
        DAEMON_NAME: "",
        DAEMON_ALLOW_DOWNLOAD_BINARIES: "bad",
        DAEMON_RESTART_AFTER_UPGRADE: "bad",
        DAEMON_RESTART_DELAY: "bad",
        UNSAFE_SKIP_BACKUP: "bad",
        DAEMON_DATA_BACKUP_DIR: "bad",
        DAEMON_POLL_INTERVAL: "bad",
        DAEMON_PREUPGRADE_MAX_RETRIES: "bad",
        COSMOVISOR_DISABLE_LOGS: "bad",
        COSMOVISOR_COLOR_LOGS: "bad",
        COSMOVISOR_TIMEFORMAT_LOGS: "bad",
        COSMOVISOR_DISABLE_RECASE: "bad",
      },
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr.startsWith("Error: ")).toBe(true);
    expect(bad.stderr.trimEnd().split("\n")).toHaveLength(13);
    const noName = await runCli(["visor", "version"], { env: { DAEMON_HOME: h.home } });
    expect(noName).toMatchObject({ code: 1, stderr: "Error: DAEMON_NAME is not set\n" });
  });

  it("init and add-upgrade through the CLI, with a config file", async () => {
    const h = await newHome("echo v1");
    const toml = join(h.parent, "visor.toml");
    writeFileSync(toml, `daemon_home = "${h.home}"\ndaemon_name = "${h.name}"\n`);
    const src = join(h.src, "genesis");
    const add = await runCli(["visor", "add-upgrade", "V3", src, "--upgrade-height", "300", "--cosmovisor-config", toml], { env: {} });
    expect(add.code).toBe(0);
    expect(add.stderr).toContain("Upgrade binary located at");
    expect(existsSync(join(h.home, "cosmovisor/upgrades/v3/bin/dummyd"))).toBe(true);
    expect(readFileSync(join(h.home, "data/upgrade-info.json"), "utf8")).toBe('{"name":"V3","time":"0001-01-01T00:00:00Z","height":300}');
    const again = await runCli(["visor", "-c", toml, "add-upgrade", "V3", src], { env: {} });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      new RegExp(`INF Using .* for V3 upgrade module=visor\nError: file already exists at ${h.home}/cosmovisor/upgrades/v3/bin/dummyd\n$`),
    );
    const bad = await runCli(["visor", "add-upgrade", "..", src, "-c", toml], { env: {} });
    expect(bad).toMatchObject({ code: 1, stderr: 'Error: invalid upgrade name ".."\n' });
    const init = await runCli(["visor", "init"], { env: { DAEMON_HOME: join(h.parent, "other"), DAEMON_NAME: "appd" } });
    expect(init).toMatchObject({ code: 1, stderr: "Error: no <path to executable> provided\n" });
    const rel = await runCli(["visor", "init", src], { env: { DAEMON_HOME: "relative", DAEMON_NAME: "" } });
    expect(rel).toMatchObject({ code: 1, stderr: "Error: DAEMON_NAME is not set\nDAEMON_HOME must be an absolute path\n" });
  });

  it("show-upgrade-info: nothing found, a staged plan, the chain's plan downloaded and verified, and a bad one", async () => {
    const body = Buffer.from("#!/bin/sh\necho v2\n");
    const srv = await httpServer((req, res) => (req.url?.startsWith("/v2") ? res.end(body) : (res.writeHead(404), res.end())));
    const h = await newHome("echo v1");
    const rpc = await fakeRpc({});
    try {
      const env = { DAEMON_RPC_ADDRESS: rpc.url, DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" };
      const none = await visor(h, ["show-upgrade-info"], env);
      expect(none).toMatchObject({ code: 0, stdout: `No upgrade info found at ${h.home}/data/upgrade-info.json\n` });

      rpc.state.plan = { name: "V2", height: 500n, info: JSON.stringify({ binaries: { [osArch()]: `${srv.url}/v2?checksum=sha256:${sha256(body)}` } }) };
      const chain = await visor(h, ["show-upgrade-info"], env);
      expect(chain.code).toBe(0);
      expect(chain.stdout).toContain("upgrade:  V2\nheight:   500\n");
      expect(chain.stdout).toContain(`source:   chain (CurrentPlan at ${rpc.url})`);
      expect(chain.stdout).toContain(`binary:   ${h.home}/cosmovisor/upgrades/v2/bin/dummyd\nstaged:   no\n`);
      expect(chain.stdout).toContain(`checksum: sha256:${sha256(body)}\n`);
      expect(chain.stdout).toMatch(/ready: {4}yes \(downloaded binaries\[.*\] \(\d+ bytes\), sha256 checksum matches, bin\/dummyd present\)\n$/);
      expect(existsSync(join(h.home, "cosmovisor/upgrades/v2"))).toBe(false);
      expect(readdirSync(join(h.home, "cosmovisor/.tmp"))).toEqual([]);

      const json = await visor(h, ["show-upgrade-info", "-o", "json", "--no-download"], { ...env, DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true" });
      expect(JSON.parse(json.stdout)).toMatchObject({ name: "V2", height: "500", staged: false, ready: true });

      rpc.state.plan.info = JSON.stringify({ binaries: { [osArch()]: `${srv.url}/v2` } });
      const noSum = await visor(h, ["show-upgrade-info"], { ...env, DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true" });
      expect(noSum.stdout).toMatch(/ready: {4}no \(invalid binaries: .*missing checksum query parameter\)\n$/);
      const off = await visor(h, ["show-upgrade-info"], { DAEMON_RPC_ADDRESS: rpc.url });
      expect(off.stdout).toContain("ready:    no (the binary is not staged at");

      writeFileSync(join(h.home, "data/upgrade-info.json"), '{"name":"chain2","height":49}');
      await stage(h, "chain2", "echo chain2");
      const staged = await visor(h, ["show-upgrade-info"], env);
      expect(staged.stdout).toContain(`source:   ${h.home}/data/upgrade-info.json\n`);
      expect(staged.stdout).toContain("staged:   yes\n");
      expect(staged.stdout).toContain(`ready:    yes (staged binary at ${h.home}/cosmovisor/upgrades/chain2/bin/dummyd)`);
    } finally {
      await srv.close();
      await rpc.close();
    }
  });
});
