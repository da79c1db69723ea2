/**
 * The visor's readiness attestation (docs/spec/readiness.md §3), against a running devnet node with "v2"
 * scheduled through governance:
 *
 * - `ReadinessAttester.tick()` with nothing staged attests a failed pre-flight; once v2 is staged it rehearses
 *   it and attests the binary's sha256, the rehearsal's app hash and snapshot height; the same plan and binary
 *   are not rehearsed again; a restaged binary is;
 * - `show-upgrade-info --rehearse` writes the same attestation, and `--no-attest` does not;
 * - `/readiness` on the visor's loopback endpoint (DAEMON_HTTP_ADDRESS) serves the file (404 before, 405 for
 *   other methods), also when `visor run` registers it;
 * - `attestationOf` maps every pre-flight outcome to an attestation that passes the shape check.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initDevnet, readGenesisKeys } from "../../../bindings/apps/devnet/index.js";
import { parseConfig, type VisorConfig } from "../../../bindings/apps/visor/config/index.js";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import type { UpgradeReport } from "../../../bindings/apps/visor/upgrade/preflight.js";
import { startEndpoint } from "../../../bindings/apps/visor/telling/endpoint.js";
import { ReadinessAttester, attestationOf, readinessRoute } from "../../../bindings/apps/visor/telling/readiness.js";
import { addUpgrade, initVisor } from "../../../bindings/apps/visor/setup.js";
import { readinessFilePath } from "../../../bindings/module/readiness/file.js";
import { attestationFromJson, checkAttestation, encodeVoteExtension, decodeVoteExtension } from "../../../bindings/module/readiness/index.js";
import { builtCliMain, runCli } from "../cli/helpers.js";
import { V1, V2, clients, fixtureApp, proposeAndPass, softwareUpgradeAny, startChild, type DevnetChild } from "../devnet/helpers.js";
import { removeTempDirs, silent, tempDir, waitUntil } from "./helpers.js";

const DAEMON = "xupgraded";
let node: DevnetChild | undefined;
afterAll(async () => {
  await node?.kill();
  removeTempDirs();
});

function nodeBinary(path: string, app: string): string {
  const cli = `'${process.execPath}' '${builtCliMain()}'`;
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      'case "$1" in',
      `  rehearse) shift; exec ${cli} devnet rehearse --app '${app}' "$@" ;;`,
      "esac",
      `exec ${cli} devnet start --app '${app}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("the visor's readiness attestation", { timeout: 180_000 }, () => {
  let home: string;
  let src: string;
  let cfg: VisorConfig;
  let env: Record<string, string>;
  let target: bigint;

  it("the loop attests a failed pre-flight while nothing is staged, then the staged v2's rehearsal; once per binary", async () => {
    const dir = tempDir();
    home = join(dir, "node");
    src = join(dir, "src");
    mkdirSync(src);
    await initDevnet({ home, blockTime: "200ms", votingPeriod: "1s", depositPeriod: "1s", rpc: "127.0.0.1:0", rest: "127.0.0.1:0", grpc: "127.0.0.1:0" });
    const { keys } = await readGenesisKeys(home);
    await initVisor({ home, name: DAEMON }, nodeBinary(join(src, "xupgraded-v1"), V1), silent);
    node = startChild(home, V1);
    const rpc = (await node.waitFor((r) => r.msg === "serving")).rpc as string;
    const c = await clients(rpc);
    target = BigInt((await c.comet.status()).syncInfo.latestBlockHeight) + 400n;
    await proposeAndPass(c, keys, [softwareUpgradeAny("v2", target)]);
    await waitUntil(async () => (await c.upgrade.CurrentPlan({})).plan, 20_000, "the plan");
    c.comet.disconnect();
    env = {
      DAEMON_HOME: home,
      DAEMON_NAME: DAEMON,
      DAEMON_RPC_ADDRESS: rpc,
      DAEMON_READINESS: "true",
      DAEMON_RPC_POLL_INTERVAL: "1s",
      COSMOVISOR_COLOR_LOGS: "false",
    };
    const parsed = parseConfig(env);
    expect(parsed.errors).toEqual([]);
    cfg = parsed.cfg;
    expect([cfg.readiness, cfg.rpcPollInterval, cfg.httpAddress]).toEqual([true, 1_000_000_000n, ""]);
    expect(parseConfig({ ...env, DAEMON_READINESS: "" }).cfg.readiness).toBe(false);

    const file = readinessFilePath(home);
    const lines: string[] = [];
    const log = { ...silent, info: (m: string) => void lines.push(m) };
    const attester = new ReadinessAttester({ cfg, log, layout: new Layout(cfg) });
    await attester.tick();
    const none = readJson(file);
    expect(none).toMatchObject({
      format: "xupgrade-readiness/1",
      plan: { name: "v2", height: String(target) },
      binary: { sha256: "" },
      preflight: { ok: false },
      rehearsal: { verdict: "not_rehearsed" },
    });
    expect(none.preflight.reason).toContain("is not staged");

    const v2 = nodeBinary(join(src, "xupgraded-v2"), V2);
    await addUpgrade({ home, name: DAEMON, disableRecase: false }, "v2", v2, {}, silent);
    // Not retried at once: a verdict that may change by itself waits ten intervals — but the staged binary is a change.
    await attester.tick();
    const staged = readJson(file);
    expect(staged).toMatchObject({
      plan: { name: "v2", height: String(target) },
      binary: { sha256: sha256(v2), version: "example-v2 2.0.0" },
      preflight: { ok: true },
      rehearsal: { verdict: "passed", exit_code: 0 },
    });
    expect(staged.rehearsal.app_hash).toMatch(/^[0-9A-F]{64}$/);
    expect(BigInt(staged.rehearsal.snapshot_height)).toBeLessThan(target);
    const a = attestationFromJson(staged);
    expect(decodeVoteExtension(encodeVoteExtension(a))).toEqual(a);

    // Nothing changed: no new rehearsal, the file is the same.
    const mtime = statSync(file).mtimeMs;
    const rehearsals = lines.filter((l) => l.startsWith("pre-flight and rehearsal")).length;
    await attester.tick();
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(lines.filter((l) => l.startsWith("pre-flight and rehearsal")).length).toBe(rehearsals);

    // A restaged binary (v2 with a failing handler) is rehearsed again: the attestation says it would halt.
    await addUpgrade(
      { home, name: DAEMON, disableRecase: false },
      "v2",
      nodeBinary(join(src, "xupgraded-v2-broken"), fixtureApp("v2-broken")),
      { force: true },
      silent,
    );
    await attester.tick();
    expect(readJson(file)).toMatchObject({ preflight: { ok: true }, rehearsal: { verdict: "failed", exit_code: 23, app_hash: "" } });
    await attester.stop();
  });

  it("show-upgrade-info --rehearse writes the attestation (JSON and text say so); --no-attest does not", async () => {
    await addUpgrade({ home, name: DAEMON, disableRecase: false }, "v2", nodeBinary(join(src, "xupgraded-v2"), V2), { force: true }, silent);
    rmSync(readinessFilePath(home));
    const cliEnv = { ...env, DAEMON_READINESS: "" };
    const none = await runCli(["visor", "show-upgrade-info", "--rehearse", "--no-attest"], { env: cliEnv });
    expect(none.code).toBe(0);
    expect(existsSync(readinessFilePath(home))).toBe(false);
    const json = await runCli(["visor", "show-upgrade-info", "--rehearse", "-o", "json"], { env: cliEnv });
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ preflight_ok: true, binary_sha256: sha256(join(src, "xupgraded-v2")), attestation: { rehearsal: { verdict: "passed" } } });
    expect(readJson(readinessFilePath(home))).toEqual(out.attestation);
    const text = await runCli(["visor", "show-upgrade-info", "--rehearse"], { env: cliEnv });
    expect(text.stdout).toContain(`attested: ${readinessFilePath(home)} (the node's votes carry it)`);
  });

  it("serves the attestation at /readiness on the visor's endpoint (404 before there is one, 405 for other methods)", async () => {
    const saved = readFileSync(readinessFilePath(home), "utf8");
    rmSync(readinessFilePath(home));
    const server = await startEndpoint("127.0.0.1:0", silent);
    server.route("/readiness", readinessRoute(cfg));
    try {
      const url = `${server.url}/readiness`;
      expect((await fetch(url)).status).toBe(404);
      writeFileSync(readinessFilePath(home), saved);
      const ok = await fetch(url);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual(JSON.parse(saved));
      expect((await fetch(url, { method: "POST", body: "x" })).status).toBe(405);
      expect(await (await fetch(`${server.url}/other`)).json()).toEqual({ error: "not found: /other", routes: ["/readiness"] });
    } finally {
      await server.close();
    }
  });
});

describe("attestationOf", () => {
  const base: UpgradeReport = {
    name: "v2",
    height: "300",
    info: "",
    source: "chain",
    binary: "/x/bin",
    staged: true,
    platform: "linux/amd64",
    url: "",
    checksum: "",
    ready: true,
    reason: "staged",
    preflight_ok: true,
    binary_sha256: "ab".repeat(32),
  };
  const rehearsal = (over: Record<string, unknown>) => ({
    supported: true,
    rehearsed: true,
    ok: true,
    exit_code: 0,
    error: "",
    modules_migrated: 3,
    upgrade_ms: 1,
    duration_ms: 2,
    snapshot_height: "120",
    summary: "s",
    report: { app: { name: "example-v2", version: "2.0.0" }, app_hash_after: "CD".repeat(32) },
    ...over,
  });

  it("maps a passed, a failed and a missing rehearsal, and a missing binary; each passes the shape check", () => {
    const passed = attestationOf({ ...base, rehearsal: rehearsal({}) });
    expect(passed).toMatchObject({ rehearsal: "passed", snapshotHeight: 120n, binaryVersion: "example-v2 2.0.0" });
    const failed = attestationOf({ ...base, ready: false, rehearsal: rehearsal({ ok: false, exit_code: 23, report: {} }) });
    expect(failed).toMatchObject({ rehearsal: "failed", rehearsalExitCode: 23, appHash: new Uint8Array(0) });
    const unsupported = attestationOf({ ...base, rehearsal: rehearsal({ supported: false, rehearsed: false, snapshot_height: "" }) });
    expect(unsupported).toMatchObject({ rehearsal: "not_rehearsed", snapshotHeight: 0n });
    const noBinary = attestationOf({ ...base, ready: false, preflight_ok: false, binary_sha256: "", staged: false });
    expect(noBinary).toMatchObject({ preflightOk: false, binarySha256: new Uint8Array(0), rehearsal: "not_rehearsed" });
    for (const a of [passed, failed, unsupported, noBinary]) expect(() => checkAttestation(a)).not.toThrow();
  });
});
