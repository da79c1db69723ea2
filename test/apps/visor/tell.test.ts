/**
 * Telling people (docs/spec/sidecar.md §11): webhooks POSTed to a local receiver at each stage of a real
 * upgrade under the visor, in order, retried with a bound; the loopback endpoint with its Prometheus text
 * (the plan, the stage, the heights, the timings) and the routes other features register on it. The node
 * stand-ins wait for what the test has seen before they go on, so every interleaving is driven, none timed.
 */
import { existsSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../bindings/apps/visor/config/index.js";
import type { VisorEndpoint } from "../../../bindings/apps/visor/telling/endpoint.js";
import { VisorEvents } from "../../../bindings/apps/visor/telling/events.js";
import { Webhooks } from "../../../bindings/apps/visor/telling/webhooks.js";
import { captureLog, fakeRpc, httpServer, newHome, removeTempDirs, stage, startVisor, waitUntil } from "./helpers.js";

afterAll(() => removeTempDirs());

interface Received {
  event: string;
  time: string;
  plan: { name: string; height: string } | null;
  details: Record<string, unknown>;
  daemon: string;
  home: string;
  host: string;
}

/** A webhook receiver: answers `fail` times with 500 first, then 204; keeps every body it accepted and every attempt. */
async function receiver(fail = 0) {
  const accepted: Received[] = [];
  const attempts: string[] = [];
  let failures = fail;
  const srv = await httpServer(async (req: IncomingMessage, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const e = JSON.parse(body) as Received;
    attempts.push(e.event);
    if (failures > 0) {
      failures--;
      res.writeHead(500);
      return res.end();
    }
    accepted.push(e);
    res.writeHead(204);
    res.end();
  });
  return { ...srv, accepted, attempts, events: () => accepted.map((e) => e.event) };
}

/** `curl` of the endpoint. */
async function get(url: string, init: RequestInit = {}): Promise<{ status: number; type: string; body: string }> {
  const r = await fetch(url, init);
  return { status: r.status, type: r.headers.get("content-type") ?? "", body: await r.text() };
}

/** A Prometheus text sample's value (`name{labels} value`). */
function sample(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}

describe("webhooks and metrics through a whole upgrade", () => {
  it("plan seen → halt → binary staged → backup → switch → first block: POSTed in order; /metrics follows; routes can be added", async () => {
    const hooks = await receiver(2); // the first two attempts fail: retried, delivered
    const rpc = await fakeRpc({ height: 40n, plan: { name: "chain2", height: 49n, info: "" } });
    const h = await newHome("");
    const releaseHalt = join(h.parent, "release-halt");
    const releaseV2 = join(h.parent, "release-v2");
    // The old node runs until the test has seen `plan_seen`, then halts at 49 as the devnet does (file, exit 20).
    writeFileSync(
      join(h.home, "cosmovisor/genesis/bin/dummyd"),
      `#!/bin/sh\nuntil [ -e "${releaseHalt}" ]; do sleep 0.05; done\nprintf '{"name":"chain2","time":"0001-01-01T00:00:00Z","height":49}' > "${h.home}/data/upgrade-info.json"\nexit 20\n`,
    );
    // The new binary runs until the test has seen `first_block`.
    await stage(h, "chain2", `[ "$1" = pre-upgrade ] && exit 0\nuntil [ -e "${releaseV2}" ]; do sleep 0.05; done\necho v2 done`);
    let endpoint: VisorEndpoint | undefined;
    const v = startVisor(
      h,
      [],
      {
        DAEMON_WEBHOOK_URL: hooks.url,
        DAEMON_WEBHOOK_RETRIES: "3",
        DAEMON_HTTP_ADDRESS: "127.0.0.1:0",
        DAEMON_RPC_ADDRESS: rpc.url,
        DAEMON_RPC_POLL_INTERVAL: "50ms",
      },
      { onEndpoint: (e) => (endpoint = e), hooks: { platform: "linux/amd64" } },
    );
    try {
      await waitUntil(() => endpoint, 20_000, "the endpoint");
      endpoint!.route("/readiness", () => ({ status: 200, type: "application/json", body: '{"ready":true}\n' }));

      const before = await get(`${endpoint!.url}/metrics`);
      expect(before.status).toBe(200);
      expect(before.type).toContain("text/plain");
      expect(sample(before.body, "xupgrade_visor_stage", '{stage="running"}')).toBe(1);
      expect(sample(before.body, "xupgrade_visor_current_upgrade", '{name="genesis"}')).toBe(1);

      await waitUntil(() => hooks.events().includes("plan_seen"), 20_000, "plan_seen");
      const seen = await get(`${endpoint!.url}/metrics`);
      expect(sample(seen.body, "xupgrade_visor_upgrade_height")).toBe(49);
      expect(sample(seen.body, "xupgrade_visor_upgrade_plan", '{name="chain2"}')).toBe(49);
      expect(sample(seen.body, "xupgrade_visor_node_height")).toBe(40);

      rpc.state.height = 48n;
      writeFileSync(releaseHalt, "");
      await waitUntil(() => hooks.events().includes("switch"), 30_000, "switch");
      rpc.state.height = 49n; // the new binary committed the upgrade height
      await waitUntil(() => hooks.events().includes("first_block"), 30_000, "first_block");
      const after = await get(`${endpoint!.url}/metrics`);
      writeFileSync(releaseV2, "");
      const r = await v.result;
      expect(r.error, v.logs.text()).toBeUndefined();
      expect(r.code).toBe(0);

      expect(hooks.events()).toEqual(["plan_seen", "halt", "binary_staged", "backup", "switch", "first_block"]);
      expect(hooks.attempts.slice(0, 3)).toEqual(["plan_seen", "plan_seen", "plan_seen"]);
      const byEvent = Object.fromEntries(hooks.accepted.map((e) => [e.event, e]));
      expect(byEvent.halt).toMatchObject({ plan: { name: "chain2", height: "49" }, daemon: "dummyd", home: h.home });
      // The watcher's tick or the node's exit 20, whichever the visor saw first: both are the halt.
      expect([{ node: "running" }, { node: "exited", exit_code: 20 }]).toContainEqual(byEvent.halt.details);
      expect(byEvent.binary_staged.details).toMatchObject({ source: "staged" });
      expect(byEvent.backup.details).toMatchObject({ files: 2, bytes_copied: 84, bytes_linked: 0 }); // state.db and upgrade-info.json;
      expect(byEvent.switch.details).toMatchObject({ current: "upgrades/chain2" });
      expect(byEvent.first_block.details).toMatchObject({ height: 49 });
      expect(Date.parse(byEvent.first_block.time)).toBeGreaterThanOrEqual(Date.parse(byEvent.halt.time));
      // The done marker the next start reads.
      expect(existsSync(join(h.home, "cosmovisor/upgrades/chain2/.xupgrade-done.json"))).toBe(true);

      expect(sample(after.body, "xupgrade_visor_stage", '{stage="running"}')).toBe(1);
      expect(sample(after.body, "xupgrade_visor_stage", '{stage="switch"}')).toBe(0);
      expect(sample(after.body, "xupgrade_visor_current_upgrade", '{name="chain2"}')).toBe(1);
      expect(sample(after.body, "xupgrade_visor_upgrades_total")).toBe(1);
      expect(sample(after.body, "xupgrade_visor_node_starts_total")).toBe(2);
      expect(sample(after.body, "xupgrade_visor_backup_bytes", `{how="copied"}`)).toBe(84);
      expect(sample(after.body, "xupgrade_visor_halt_to_switch_seconds")).toBeGreaterThan(0);
      expect(sample(after.body, "xupgrade_visor_halt_to_first_block_seconds")).toBeGreaterThanOrEqual(
        sample(after.body, "xupgrade_visor_halt_to_switch_seconds")!,
      );
      expect(sample(after.body, "xupgrade_visor_stage_timestamp_seconds", '{stage="halt"}')).toBeCloseTo(Date.parse(byEvent.halt.time) / 1000, 0);
    } finally {
      writeFileSync(releaseHalt, "");
      writeFileSync(releaseV2, "");
      await v.result;
      await hooks.close();
      await rpc.close();
    }
    // Closed with the visor.
    await expect(fetch(`${endpoint!.url}/metrics`)).rejects.toThrow();
  }, 90_000);

  it("the endpoint: other routes, 404 with the list, 405 for anything but GET and HEAD", async () => {
    const h = await newHome(`until [ -e "$1" ]; do sleep 0.05; done`);
    const release = join(h.parent, "release");
    let endpoint: VisorEndpoint | undefined;
    const v = startVisor(h, [release], { DAEMON_HTTP_ADDRESS: "127.0.0.1:0" }, { onEndpoint: (e) => (endpoint = e) });
    try {
      await waitUntil(() => endpoint, 20_000, "the endpoint");
      endpoint!.route("/readiness", () => ({ status: 200, type: "application/json", body: '{"ready":true}\n' }));
      expect(await get(`${endpoint!.url}/readiness`)).toEqual({ status: 200, type: "application/json", body: '{"ready":true}\n' });
      const missing = await get(`${endpoint!.url}/nope`);
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body)).toEqual({ error: "not found: /nope", routes: ["/metrics", "/readiness"] });
      expect((await get(`${endpoint!.url}/metrics`, { method: "POST", body: "x" })).status).toBe(405);
      const head = await get(`${endpoint!.url}/metrics`, { method: "HEAD" });
      expect([head.status, head.body]).toEqual([200, ""]);
      expect(endpoint!.address).toMatch(/^127\.0\.0\.1:\d+$/);
    } finally {
      writeFileSync(release, "");
      await v.result;
    }
  }, 60_000);
});

describe("webhook delivery", () => {
  it("gives up after DAEMON_WEBHOOK_RETRIES + 1 attempts, with a warning; the next stage is still delivered in order", async () => {
    const hooks = await receiver(3);
    const logs = captureLog();
    const w = new Webhooks({ urls: [hooks.url], retries: 2, timeoutMs: 2000, log: logs.log, daemon: "d", home: "/h", backoffMs: 10 });
    const events = new VisorEvents();
    events.on(w.observe);
    events.emit("halt", { name: "v2", height: 10n });
    events.emit("switch", { name: "v2", height: 10n });
    events.emit("node_height", undefined, { height: 11 }); // an observation: no webhook
    await w.flush(10_000);
    await hooks.close();
    expect(hooks.attempts).toEqual(["halt", "halt", "halt", "switch"]);
    expect(hooks.events()).toEqual(["switch"]);
    expect(logs.text()).toMatch(/WRN webhook halt not delivered url=http:\/\/127\.0\.0\.1:\d+ attempts=3 err="HTTP 500"/);
  });

  it("an unreachable receiver and one that never answers: bounded, each said once", async () => {
    const silent = await httpServer(() => new Promise(() => undefined));
    const closed = await httpServer(() => undefined);
    const closedUrl = closed.url;
    await closed.close();
    const logs = captureLog();
    const w = new Webhooks({ urls: [closedUrl, silent.url], retries: 1, timeoutMs: 200, log: logs.log, daemon: "d", home: "/h", backoffMs: 10 });
    const started = Date.now();
    w.observe({ stage: "failure", at: Date.now(), details: { error: "x" } });
    await w.flush(10_000);
    expect(Date.now() - started).toBeLessThan(8000);
    await silent.close();
    expect(logs.text()).toMatch(/webhook failure not delivered url=http:\/\/127\.0\.0\.1:\d+ attempts=2 err=ECONNREFUSED/);
    expect(logs.text()).toMatch(/webhook failure not delivered url=http:\/\/127\.0\.0\.1:\d+ attempts=2 err="no answer within 200 ms"/);
  });
});

describe("the rehearsal stage", () => {
  it("show-upgrade-info --rehearse tells the rehearsal's verdict", async () => {
    const h = await newHome("echo v1");
    const report = {
      format: "xupgrade-rehearsal/1",
      rehearsed: true,
      ok: false,
      exit_code: 23,
      error: "handler failed",
      modules_migrated: 0,
      upgrade_ms: 3,
      snapshot: { height: "48" },
    };
    await stage(h, "v2", `[ "$1" = rehearse ] && { echo '${JSON.stringify(report)}'; exit 0; }\necho v2`);
    writeFileSync(join(h.home, "data/upgrade-info.json"), '{"name":"v2","time":"0001-01-01T00:00:00Z","height":49}');
    const events = new VisorEvents();
    const seen: unknown[] = [];
    events.on((e) => seen.push({ stage: e.stage, plan: e.plan, details: e.details }));
    const { showUpgradeInfo } = await import("../../../bindings/apps/visor/upgrade/preflight.js");
    const { config } = await import("./helpers.js");
    const r = await showUpgradeInfo(config(h), { verify: false, log: captureLog().log, rehearse: true, events });
    expect(r.found && r.report.ready).toBe(false);
    expect(seen).toEqual([
      {
        stage: "rehearsal",
        plan: { name: "v2", height: 49n },
        details: { ok: false, rehearsed: true, exit_code: 23, summary: "the upgrade would halt the node with exit code 23: handler failed" },
      },
    ]);
  });
});

describe("configuration of the endpoint and the webhooks", () => {
  const base = { DAEMON_HOME: "/h", DAEMON_NAME: "d" };
  it("loopback only; URLs http(s); counts are integers", () => {
    const bad = parseConfig({
      ...base,
      DAEMON_HTTP_ADDRESS: "0.0.0.0:9000",
      DAEMON_WEBHOOK_URL: "ftp://x,http://ok",
      DAEMON_WEBHOOK_RETRIES: "-1",
      DAEMON_DATA_BACKUP_KEEP: "x",
    });
    expect(bad.errors).toEqual([
      'invalid: DAEMON_HTTP_ADDRESS: "0.0.0.0:9000" is not a loopback address (127.0.0.1, [::1] or localhost)',
      'invalid: DAEMON_WEBHOOK_URL: "ftp://x" is not an http:// or https:// URL',
      'invalid: DAEMON_WEBHOOK_RETRIES: must be a non-negative integer, got "-1"',
      'invalid: DAEMON_DATA_BACKUP_KEEP: must be a non-negative integer, got "x"',
    ]);
    const ok = parseConfig({ ...base, DAEMON_HTTP_ADDRESS: "[::1]:0", DAEMON_WEBHOOK_URL: "http://a/x, https://b/y" });
    expect(ok.errors).toEqual([]);
    expect(ok.cfg.webhookUrls).toEqual(["http://a/x", "https://b/y"]);
    expect(parseConfig(base).cfg).toMatchObject({ httpAddress: "", webhookUrls: [], webhookRetries: 5, dataBackupKeep: 0 });
  });
});
