/**
 * The run loop and the upgrade pipeline in process (docs/spec/sidecar.md §5–§6, §10.3, §10.6 H1–H4 and S3, docs/spec/sidecar.md §10.7
 * R1, R3, R9): shell-script nodes, the visor's logs and the nodes' output captured. The tests wait on
 * sleeping scripts, so they run concurrently.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { runCustomPreUpgrade } from "../../../bindings/apps/visor/upgrade/preupgrade.js";
import { Supervisor } from "../../../bindings/apps/visor/node/child.js";
import { CHAIN2_DUMMYD, GENESIS_DUMMYD, captureLog, newHome, removeTempDirs, runVisorIn, script, stage, startVisor, waitUntil, type Home } from "./helpers.js";

afterAll(removeTempDirs);

const current = (h: Home) => readlinkSync(join(h.home, "cosmovisor", "current"));
const infoFile = (h: Home) => join(h.home, "data", "upgrade-info.json");
const NO_RESTART = { DAEMON_RESTART_AFTER_UPGRADE: "false", UNSAFE_SKIP_BACKUP: "true" };

describe.concurrent("process flow (docs/spec/sidecar.md §10.3)", () => {
  it("F1 in process: the node is stopped before its last line, current → upgrades/chain2, the second run starts chain2", async () => {
    const h = await newHome(GENESIS_DUMMYD);
    await stage(h, "chain2", CHAIN2_DUMMYD);
    const r = await runVisorIn(h, ["foo", "bar", "1234", infoFile(h)], NO_RESTART);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Genesis foo bar 1234 ${infoFile(h)}\nUPGRADE "chain2" NEEDED at height: 49: {}\n`);
    expect(current(h)).toBe("upgrades/chain2");
    expect(r.logs).toContain("daemon shutting down in an attempt to restart");
    expect(r.logs).toContain("upgrade detected, DAEMON_RESTART_AFTER_UPGRADE is off. Verify new upgrade and start the visor again.");
    const second = await runVisorIn(h, ["second", "run", "--verbose"], NO_RESTART);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("Chain 2 is live!\nArgs: second run --verbose\nFinished successfully\n");
    expect(second.logs).not.toContain("upgrading to");
  });

  it("F2: plan Chain2 with recase disabled → current → upgrades/Chain2", async () => {
    const h = await newHome(GENESIS_DUMMYD.replaceAll("chain2", "Chain2"));
    await stage(h, "Chain2", CHAIN2_DUMMYD, { disableRecase: true });
    const r = await runVisorIn(h, ["a", "b", "c", infoFile(h)], { ...NO_RESTART, COSMOVISOR_DISABLE_RECASE: "true" });
    expect(r.code).toBe(0);
    expect(current(h)).toBe("upgrades/Chain2");
  });

  it("F3: DAEMON_RESTART_DELAY=5s makes the run take at least 5 s", async () => {
    const h = await newHome('echo "v1 $@"; exit 20');
    await stage(h, "chain2", CHAIN2_DUMMYD);
    writeFileSync(infoFile(h), '{"name":"chain2","height":49}');
    const started = Date.now();
    const r = await runVisorIn(h, [], { ...NO_RESTART, DAEMON_RESTART_DELAY: "5s" });
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
    expect(current(h)).toBe("upgrades/chain2");
  }, 20_000);

  it("F4: with DAEMON_SHUTDOWN_GRACE the node gets SIGINT and may flush before it exits", async () => {
    const h = await newHome(
      `trap 'echo "WARN Need Flush"; sleep 1; echo Flushed; exit 0' INT
printf '{"name":"chain2","height":49}' > "${join("$HOME_DIR", "data", "upgrade-info.json")}"
while true; do sleep 0.1; done`.replace("$HOME_DIR", "$1"),
    );
    await stage(h, "chain2", CHAIN2_DUMMYD);
    const r = await runVisorIn(h, [h.home], { ...NO_RESTART, DAEMON_SHUTDOWN_GRACE: "2s" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("WARN Need Flush\nFlushed\n");
    expect(r.logs).toContain("sent interrupt to app, waiting for exit");
    expect(r.logs).toContain("app exited normally");
    expect(r.logs).not.toContain("killing app");
    expect(current(h)).toBe("upgrades/chain2");
  });

  it("F4': a node outliving the grace is killed", async () => {
    const h = await newHome(`trap '' INT
printf '{"name":"chain2","height":49}' > "$1/data/upgrade-info.json"
while true; do sleep 0.1; done`);
    await stage(h, "chain2", CHAIN2_DUMMYD);
    const r = await runVisorIn(h, [h.home], { ...NO_RESTART, DAEMON_SHUTDOWN_GRACE: "300ms" });
    expect(r.code).toBe(0);
    expect(r.logs).toContain("DAEMON_SHUTDOWN_GRACE exceeded, killing app");
    expect(current(h)).toBe("upgrades/chain2");
  });

  it("F5: a missing COSMOVISOR_CUSTOM_PREUPGRADE is a not-found error naming it; current unchanged", async () => {
    const h = await newHome("exit 20");
    await stage(h, "chain2", CHAIN2_DUMMYD);
    writeFileSync(infoFile(h), '{"name":"chain2","height":49}');
    const r = await runVisorIn(h, [], { ...NO_RESTART, COSMOVISOR_CUSTOM_PREUPGRADE: "missing.sh" });
    expect(r.error).toMatch(/^COSMOVISOR_CUSTOM_PREUPGRADE: missing\.sh: stat .*missing\.sh: no such file or directory$/);
    expect(current(h)).toBe("genesis");
    const layout = new Layout({ home: h.home, name: h.name, disableRecase: false });
    const err = await runCustomPreUpgrade({
      layout,
      script: "missing.sh",
      plan: { name: "chain2", rawName: "chain2", height: 49n, info: "" },
      supervisor: new Supervisor({ log: captureLog().log }),
      log: captureLog().log,
    }).catch((e: Error & { code?: string }) => e);
    expect((err as { code?: string }).code).toBe("ENOENT");
  });

  it("F6: the custom pre-upgrade script runs in DAEMON_HOME with the plan's name (as written) and height", async () => {
    const h = await newHome("exit 20");
    await stage(h, "chain2", CHAIN2_DUMMYD);
    writeFileSync(join(h.home, "cosmovisor", "preupgrade.sh"), '#!/bin/sh\necho "preparing $1 at $2"\ntouch "upgrade_name_$1_height_$2"\n', { mode: 0o644 });
    writeFileSync(infoFile(h), '{"name":"Chain2","height":49}');
    const r = await runVisorIn(h, [], { ...NO_RESTART, COSMOVISOR_CUSTOM_PREUPGRADE: "preupgrade.sh" });
    expect(r.code).toBe(0);
    expect(existsSync(join(h.home, "upgrade_name_Chain2_height_49"))).toBe(true);
    expect(r.logs).toMatch(/COSMOVISOR_CUSTOM_PREUPGRADE result .*result="preparing Chain2 at 49"/);
  });

  it("F10: downloads allowed but no info, or a hand-made dir without the binary: errors; staged chain2/chain3 switch", async () => {
    const h = await newHome("exit 20");
    const env = { ...NO_RESTART, DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" };
    writeFileSync(infoFile(h), '{"name":"missing","height":10}');
    expect((await runVisorIn(h, [], env)).error).toBe("cannot parse upgrade info: plan info must not be blank");
    const nobin = join(h.home, "cosmovisor", "upgrades", "nobin");
    script(join(nobin, ".keep"), "");
    writeFileSync(infoFile(h), '{"name":"nobin","height":11}');
    expect((await runVisorIn(h, [], env)).error).toBe(`upgrade dir ${nobin} already exists without bin/dummyd; won't overwrite`);
    writeFileSync(infoFile(h), '{"name":"nobin","height":11}');
    expect((await runVisorIn(h, [], { ...NO_RESTART })).error).toBe(
      `binary not present, downloading disabled: stat ${join(nobin, "bin", "dummyd")}: no such file or directory`,
    );
    expect(current(h)).toBe("genesis");
    await stage(h, "chain2", CHAIN2_DUMMYD);
    await stage(h, "chain3", "echo chain3");
    writeFileSync(infoFile(h), '{"name":"chain2","height":12}');
    expect((await runVisorIn(h, [], env)).code).toBe(0);
    expect(current(h)).toBe("upgrades/chain2");
    writeFileSync(infoFile(h), '{"name":"chain3","height":13}');
    expect((await runVisorIn(h, [], env)).code).toBe(0);
    expect(current(h)).toBe("upgrades/chain3");
    expect(JSON.parse(readFileSync(join(h.home, "cosmovisor/current/upgrade-info.json"), "utf8"))).toMatchObject({ name: "chain3", height: 13 });
  });

  it("a half-written file after the node died: waited for (≤ 2 s), then the upgrade", async () => {
    const h = await newHome(`printf '{"name":"chain2","hei' > "$1/data/upgrade-info.json"
(sleep 0.5; printf '{"name":"chain2","height":49}' > "$1/data/upgrade-info.json") >/dev/null 2>&1 &
exit 20`);
    await stage(h, "chain2", CHAIN2_DUMMYD);
    const r = await runVisorIn(h, [h.home], { UNSAFE_SKIP_BACKUP: "true" });
    expect(r.code).toBe(0);
    expect(current(h)).toBe("upgrades/chain2");
    expect(r.stdout).toBe(`Chain 2 is live!\nArgs: ${h.home}\nFinished successfully\n`);
    expect(r.logs).toContain("unexpected end of JSON input");
  });

  it("a signal during the pipeline aborts the step in progress (here the delay): exit 128 + n, nothing half-done", async () => {
    const h = await newHome("exit 20");
    await stage(h, "chain2", CHAIN2_DUMMYD);
    writeFileSync(infoFile(h), '{"name":"chain2","height":49}');
    const v = startVisor(h, [], { DAEMON_RESTART_DELAY: "10s" });
    await waitUntil(() => v.logs.text().includes("waiting DAEMON_RESTART_DELAY"), 5000, "the delay");
    v.supervisor.onSignal("SIGTERM");
    expect((await v.result).code).toBe(143);
    expect(current(h)).toBe("genesis");
    const tmp = join(h.home, "cosmovisor", ".tmp");
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
    expect(readdirSync(h.home).filter((n) => n.startsWith("data-backup"))).toEqual([]);
  });
});

describe.concurrent("pre-upgrade of the new binary (H1–H4)", () => {
  it("a signal while the pre-upgrade runs is forwarded to it; the upgrade stops, exit 128 + n, current unchanged", async () => {
    const h = await newHome("exit 20");
    await stage(h, "chain2", 'if [ "$1" = pre-upgrade ]; then exec sleep 20; fi\necho chain2');
    writeFileSync(infoFile(h), '{"name":"chain2","height":49}');
    const v = startVisor(h, [], NO_RESTART);
    await waitUntil(() => v.logs.text().includes("running the new binary's pre-upgrade"), 5000, "the pre-upgrade");
    await new Promise((r) => setTimeout(r, 100));
    v.supervisor.onSignal("SIGTERM");
    expect((await v.result).code).toBe(143);
    expect(v.logs.text()).toContain("received SIGTERM, forwarding it to the child process");
    expect(current(h)).toBe("genesis");
  });

  const withPreUpgrade = async (code: string, env: Record<string, string> = {}) => {
    const h = await newHome("exit 20");
    await stage(h, "chain2", `if [ "$1" = pre-upgrade ]; then echo "pre-upgrade $2 $3 in $(pwd)" >> "$3/pre-upgrade.log"; ${code}; fi\necho chain2`);
    writeFileSync(infoFile(h), '{"name":"chain2","height":49}');
    const r = await runVisorIn(h, [], { ...NO_RESTART, ...env });
    const attempts = existsSync(join(h.home, "pre-upgrade.log")) ? readFileSync(join(h.home, "pre-upgrade.log"), "utf8").trim().split("\n") : [];
    return { h, r, attempts };
  };

  it("H1: exit 0 and exit 1 continue the upgrade; the command gets --home and runs in the root", async () => {
    const ok = await withPreUpgrade("exit 0");
    expect(ok.r.code).toBe(0);
    expect(ok.r.logs).toContain("pre-upgrade successful. continuing the upgrade.");
    expect(ok.attempts).toEqual([`pre-upgrade --home ${ok.h.home} in ${join(ok.h.home, "cosmovisor")}`]);
    expect(current(ok.h)).toBe("upgrades/chain2");
    const none = await withPreUpgrade("exit 1");
    expect(none.r.code).toBe(0);
    expect(none.r.logs).toContain("pre-upgrade command does not exist. continuing the upgrade.");
    expect(current(none.h)).toBe("upgrades/chain2");
  });

  it("H2: exit 30 aborts before the switch", async () => {
    const r = await withPreUpgrade("exit 30");
    expect(r.r.error).toBe("pre-upgrade command failed : exit status 30");
    expect(current(r.h)).toBe("genesis");
  });

  it("H3: always 31 with DAEMON_PREUPGRADE_MAX_RETRIES=2 → 3 attempts, then the error; current unchanged", async () => {
    const r = await withPreUpgrade("exit 31", { DAEMON_PREUPGRADE_MAX_RETRIES: "2" });
    expect(r.attempts).toHaveLength(3);
    expect(r.r.error).toBe("pre-upgrade command failed. reached max attempt of retries - 2");
    expect(r.r.logs.match(/pre-upgrade command failed\. retrying/g)).toHaveLength(2);
    expect(current(r.h)).toBe("genesis");
  });

  it("H4: an unexpected exit code aborts", async () => {
    const r = await withPreUpgrade("exit 7");
    expect(r.r.error).toBe("pre-upgrade command failed with unexpected exit code 7");
    expect(current(r.h)).toBe("genesis");
  });
});

describe.concurrent("exit status and regressions (S3, R1, R3, R9)", () => {
  it("S3: the node's own exit status is the visor's when nothing is pending", async () => {
    const one = await newHome("exit 1");
    expect((await runVisorIn(one, [])).code).toBe(1);
    const h42 = await newHome("exit 42");
    expect((await runVisorIn(h42, [])).code).toBe(42);
    const killed = await newHome("kill -KILL $$");
    expect((await runVisorIn(killed, [])).code).toBe(137);
    const ok = await newHome("echo fine");
    const r = await runVisorIn(ok, []);
    expect([r.code, r.stdout]).toEqual([0, "fine\n"]);
  });

  it("R1 (#25861): restarted inside the upgrade window, the new binary starts first and the old one never runs", async () => {
    const h = await newHome('echo old >> "$1/old-ran"; exit 20');
    await stage(h, "chain2", CHAIN2_DUMMYD);
    writeFileSync(infoFile(h), '{"name":"chain2","time":"0001-01-01T00:00:00Z","height":49}'); // the halted node wrote it; the visor was killed
    const r = await runVisorIn(h, [h.home], { UNSAFE_SKIP_BACKUP: "true" });
    expect(r.code).toBe(0);
    expect(existsSync(join(h.home, "old-ran"))).toBe(false);
    expect(r.stdout).toBe(`Chain 2 is live!\nArgs: ${h.home}\nFinished successfully\n`);
    expect(r.logs).toContain('pending upgrade "chain2" at height 49: upgrading before starting the node');
  });

  it("R3 (#22731): a node that dies at the height at once, again and again, is upgraded once", async () => {
    const h = await newHome(`printf '{"name":"chain2","height":49}' > "$1/data/upgrade-info.json"; exit 20`);
    await stage(h, "chain2", 'echo "chain2 ran"');
    const first = await runVisorIn(h, [h.home]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("chain2 ran\n");
    const again = await runVisorIn(h, [h.home]);
    expect(again.stdout).toBe("chain2 ran\n");
    expect(`${first.logs}${again.logs}`.match(/upgrading to "chain2"/g)).toHaveLength(1);
    expect(readdirSync(h.home).filter((n) => n.startsWith("data-backup"))).toHaveLength(1);
  });

  it("R9: a plan at a height in --unsafe-skip-upgrades leaves the node running", async () => {
    const h2 = await newHome(`printf '{"name":"chain2","height":49}' > "$3/data/upgrade-info.json"; sleep 0.6; echo still running`);
    await stage(h2, "chain2", CHAIN2_DUMMYD);
    const r2 = await runVisorIn(h2, ["--unsafe-skip-upgrades", "49", h2.home]);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe("still running\n");
    expect(current(h2)).toBe("genesis");
    expect(r2.logs).toContain("is skipped (--unsafe-skip-upgrades): not stopping the node");
  });
});
