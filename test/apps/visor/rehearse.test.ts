/**
 * `xupgrade visor show-upgrade-info --rehearse` (docs/spec/sidecar.md §9, docs/spec/rehearse.md §5) against a
 * running devnet node with "v2" scheduled on chain through governance: the binary the visor would run —
 * downloaded (a file:// URL with its sha256 in Plan.Info) or staged — is asked to rehearse the upgrade on a
 * copy of the node's state (`<bin> rehearse --home $DAEMON_HOME --plan v2 --height H -o json`):
 *
 * - the v2 release rehearses it: `ready: yes — rehearsed: 3 modules migrated in T`;
 * - a v2 whose handler throws: `ready: no (rehearsal: the upgrade would halt the node with exit code 23: …)`;
 * - a binary that knows no `rehearse`: said so, and the pre-flight's verdict stands;
 * - the real CLI prints the same, in text and JSON; the node keeps running and its home is not written.
 */
import { createHash } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initDevnet, readGenesisKeys } from "../../../bindings/apps/devnet/index.js";
import { parseConfig, type VisorConfig } from "../../../bindings/apps/visor/config/index.js";
import { formatReport, showUpgradeInfo } from "../../../bindings/apps/visor/upgrade/preflight.js";
import { addUpgrade, initVisor } from "../../../bindings/apps/visor/setup.js";
import { builtCliMain, runCli } from "../cli/helpers.js";
import { V1, V2, clients, fixtureApp, proposeAndPass, softwareUpgradeAny, startChild, type DevnetChild } from "../devnet/helpers.js";
import { removeTempDirs, silent, tempDir, waitUntil } from "./helpers.js";

const DAEMON = "xupgraded";
let node: DevnetChild | undefined;
afterAll(async () => {
  await node?.kill();
  removeTempDirs();
});

/** A node binary as the demos make them: the devnet with one app; `rehearse` passed to `devnet rehearse` unless `rehearse` is false. */
function nodeBinary(path: string, app: string, o: { rehearse?: boolean } = {}): string {
  const cli = `'${process.execPath}' '${builtCliMain()}'`;
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      'case "$1" in',
      "  pre-upgrade) exit 0 ;;",
      ...(o.rehearse === false ? [] : [`  rehearse) shift; exec ${cli} devnet rehearse --app '${app}' "$@" ;;`]),
      "esac",
      `exec ${cli} devnet start --app '${app}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

describe("show-upgrade-info --rehearse", { timeout: 120_000 }, () => {
  let home: string;
  let src: string;
  let cfg: VisorConfig;
  let env: Record<string, string>;
  let target: bigint;

  it("downloads the v2 binary of Plan.Info and has it rehearse the upgrade: ready: yes — rehearsed", async () => {
    const dir = tempDir();
    home = join(dir, "node");
    src = join(dir, "src");
    await initDevnet({ home, blockTime: "200ms", votingPeriod: "1s", depositPeriod: "1s", rpc: "127.0.0.1:0", rest: "127.0.0.1:0", grpc: "127.0.0.1:0" });
    const { keys } = await readGenesisKeys(home);
    const { mkdirSync } = await import("node:fs");
    mkdirSync(src);
    const v2 = nodeBinary(join(src, "xupgraded-v2"), V2);
    const sha = createHash("sha256").update(readFileSync(v2)).digest("hex");
    await initVisor({ home, name: DAEMON }, nodeBinary(join(src, "xupgraded-v1"), V1), silent);

    node = startChild(home, V1);
    const serving = await node.waitFor((r) => r.msg === "serving");
    const rpc = serving.rpc as string;
    const c = await clients(rpc);
    target = BigInt((await c.comet.status()).syncInfo.latestBlockHeight) + 300n;
    const info = JSON.stringify({ binaries: { any: `file://${v2}?checksum=sha256:${sha}` } });
    await proposeAndPass(c, keys, [softwareUpgradeAny("v2", target, info)]);
    await waitUntil(async () => (await c.upgrade.CurrentPlan({})).plan, 10_000, "the plan");
    c.comet.disconnect();

    env = {
      DAEMON_HOME: home,
      DAEMON_NAME: DAEMON,
      DAEMON_RPC_ADDRESS: rpc,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
      COSMOVISOR_COLOR_LOGS: "false",
    };
    const parsed = parseConfig(env);
    expect(parsed.errors).toEqual([]);
    cfg = parsed.cfg;

    const r = await showUpgradeInfo(cfg, { verify: true, log: silent, rehearse: true });
    if (!r.found) throw new Error(r.message);
    expect(r.report).toMatchObject({ name: "v2", height: String(target), staged: false, ready: true });
    expect(r.report.reason).toMatch(/^downloaded binaries\[any\] \(\d+ bytes\), sha256 checksum matches, bin\/xupgraded present$/);
    expect(r.report.rehearsal).toMatchObject({ supported: true, rehearsed: true, ok: true, exit_code: 0, error: "", modules_migrated: 3 });
    expect(r.report.rehearsal!.summary).toMatch(/^rehearsed: 3 modules migrated in \d/);
    expect(r.report.rehearsal!.report).toMatchObject({
      format: "xupgrade-rehearsal/1",
      plan: { name: "v2", height: String(target), source: "chain" },
      snapshot: { source: "node" },
    });
    const text = formatReport(r);
    expect(text).toMatch(/^ready: {4}yes — rehearsed: 3 modules migrated in [\d.]+ m?s \(downloaded binaries\[any\]/m);
    expect(text).toMatch(/^rehearsal: the upgrade succeeds on a copy of the state \(snapshot at height \d+, /m);
  });

  it("a staged v2 whose handler throws: ready: no, with the halt it would cause", async () => {
    await addUpgrade({ home, name: DAEMON, disableRecase: false }, "v2", nodeBinary(join(src, "xupgraded-v2-broken"), fixtureApp("v2-broken")), {}, silent);
    const r = await showUpgradeInfo(cfg, { verify: true, log: silent, rehearse: true });
    if (!r.found) throw new Error(r.message);
    expect(r.report).toMatchObject({
      staged: true,
      ready: false,
      reason: "rehearsal: the upgrade would halt the node with exit code 23: boom: the v2 handler failed after migrating",
    });
    expect(r.report.rehearsal).toMatchObject({ rehearsed: true, ok: false, exit_code: 23 });
    expect(formatReport(r)).toContain(
      "ready:    no (rehearsal: the upgrade would halt the node with exit code 23: boom: the v2 handler failed after migrating)",
    );
  });

  it("a binary that knows no `rehearse`: said so, and the staged binary is still ready", async () => {
    await addUpgrade(
      { home, name: DAEMON, disableRecase: false },
      "v2",
      nodeBinary(join(src, "xupgraded-v2-old"), V2, { rehearse: false }),
      { force: true },
      silent,
    );
    const r = await showUpgradeInfo(cfg, { verify: true, log: silent, rehearse: true });
    if (!r.found) throw new Error(r.message);
    expect(r.report).toMatchObject({ staged: true, ready: true, rehearsal: { supported: false, rehearsed: false } });
    expect(r.report.rehearsal!.summary).toMatch(/^not rehearsed: .+\/upgrades\/v2\/bin\/xupgraded does not support `rehearse` \(exit status 1: Error: /);
    const text = formatReport(r);
    expect(text).toMatch(/^ready: {4}yes \(staged binary at .+\/upgrades\/v2\/bin\/xupgraded\)$/m);
    expect(text).toMatch(/^rehearsal: not rehearsed: /m);
    // Without --rehearse nothing is run.
    const plain = await showUpgradeInfo(cfg, { verify: true, log: silent });
    expect(plain.found && plain.report.rehearsal).toBeUndefined();
  });

  it("the CLI: text and JSON, and the node kept committing meanwhile", async () => {
    await addUpgrade({ home, name: DAEMON, disableRecase: false }, "v2", nodeBinary(join(src, "xupgraded-v2-good"), V2), { force: true }, silent);
    const before = node!.records.filter((r) => r.msg === "committed block").length;
    const text = await runCli(["visor", "show-upgrade-info", "--rehearse"], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ready: {4}yes — rehearsed: 3 modules migrated in [\d.]+ m?s \(staged binary at /m);
    expect(text.stderr).toMatch(/INF rehearsing the upgrade with the new binary bin=.+ upgrade=v2 height=\d+ module=visor/);
    const json = await runCli(["visor", "show-upgrade-info", "--rehearse", "-o", "json"], { env });
    expect(json.code).toBe(0);
    const r = JSON.parse(json.stdout) as { ready: boolean; rehearsal: { ok: boolean; modules_migrated: number; report: { format: string } } };
    expect(r).toMatchObject({ ready: true, rehearsal: { ok: true, modules_migrated: 3, report: { format: "xupgrade-rehearsal/1" } } });
    expect(node!.records.filter((x) => x.msg === "committed block").length).toBeGreaterThan(before);
    expect(node!.records.filter((x) => x.msg === "served a state snapshot").length).toBeGreaterThanOrEqual(4);
    expect(node!.proc.exitCode).toBeNull();
  });
});
