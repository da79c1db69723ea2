/**
 * Class "a step of the sidecar that can be held forever, and a stop request that must end it" (issue 10
 * defect 4; docs/spec/sidecar.md §5.4, §6, §7.2), with real processes: the visor as a service manager starts it
 * (its own process group), real signals, real servers.
 *
 * - A download that makes too little progress fails: a trickle (8 MiB announced, 1 byte/s) at
 *   DAEMON_DOWNLOAD_MIN_RATE or at DAEMON_DOWNLOAD_TIMEOUT, a stalled server at the idle timeout.
 * - SIGTERM and SIGINT during each step (the delay, the download — its checksum is computed as it streams —,
 *   the extraction, the backup copy, the custom pre-upgrade, the app's pre-upgrade) end the visor with
 *   128 + the signal's number within a bound, the commands and their children killed, `.tmp` empty, and
 *   `current`, `data/` and the old binary exactly as they were.
 *
 * Bounds: the abort itself is immediate; what remains is removing the work in progress (up to ~30,000
 * extracted files, ~1 s here) and the process's exit — 5 s allows for a busy 2-core machine. A command that
 * ignores the signal is killed after the kill grace (2 s), so its bound is 2 s more.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { osArch } from "../../../bindings/apps/visor/names.js";
import { removeTempDirs as removeCliBuild } from "../cli/helpers.js";
import {
  CHAIN2_DUMMYD,
  fileServer,
  newHome,
  processesMentioning,
  removeTempDirs,
  seal,
  script,
  sha256,
  snapshot,
  spawnVisor,
  stage,
  tarBuffer,
  trickleServer,
  visor,
  waitUntil,
  type Home,
  type Sealed,
} from "./helpers.js";

afterAll(() => {
  removeTempDirs();
  removeCliBuild();
});

const EXIT_BOUND_MS = 5000;
const KILL_GRACE_MS = 2000;
const infoFile = (h: Home) => join(h.home, "data", "upgrade-info.json");
const tmpOf = (h: Home) => join(h.home, "cosmovisor", ".tmp");
const backupsIn = (dir: string) => readdirSync(dir).filter((n) => n.startsWith("data-backup-"));
const plan = (h: Home, url = "") =>
  writeFileSync(
    infoFile(h),
    JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: 49, info: url && JSON.stringify({ binaries: { [osArch()]: url } }) }),
  );

/** `current`, `data/`, the old binary and the world outside the home as they were; nothing in `.tmp`. */
function expectUntouched(h: Home, before: Sealed): void {
  const after = seal(h);
  expect(after.data).toEqual(before.data);
  expect(after.current).toBe(before.current);
  expect(after.bin).toBe(before.bin);
  expect(after.outside).toEqual(before.outside);
  expect(existsSync(tmpOf(h)) ? readdirSync(tmpOf(h)) : []).toEqual([]);
}

const servers: { close(): Promise<void> }[] = [];
let big: { url: string };
beforeAll(async () => {
  // An archive whose extraction takes seconds: 30,000 small files besides bin/dummyd.
  const many = tarBuffer([
    { name: "bin/", type: "5" },
    { name: "bin/dummyd", body: CHAIN2_DUMMYD, mode: 0o755 },
    ...Array.from({ length: 30_000 }, (_, i) => ({ name: `lib/f${i}`, body: "x" })),
  ]);
  const srv = await fileServer(new Map([["v2.tar.gz", many]]));
  servers.push(srv);
  big = { url: `${srv.url}/v2.tar.gz?checksum=sha256:${sha256(many)}` };
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe.concurrent("a download that makes too little progress fails (DAEMON_DOWNLOAD_MIN_RATE, _TIMEOUT, _IDLE_TIMEOUT)", () => {
  const cases: { what: string; server: { chunk: number; headers?: boolean }; env: Record<string, string>; error: RegExp; within: number }[] = [
    {
      what: "a trickle (8 MiB announced, 1 byte/s) at the minimum rate",
      server: { chunk: 1 },
      env: { DAEMON_DOWNLOAD_IDLE_TIMEOUT: "2s", DAEMON_DOWNLOAD_MIN_RATE: "1024" },
      error: /download too slow: [1-3] bytes in the last 2(\.\d+)?s, below 1024 bytes\/s \(DAEMON_DOWNLOAD_MIN_RATE\)/,
      within: 2000,
    },
    {
      what: "a trickle without a minimum rate at the deadline",
      server: { chunk: 1 },
      env: { DAEMON_DOWNLOAD_MIN_RATE: "0", DAEMON_DOWNLOAD_TIMEOUT: "2s" },
      error: /download not complete after 2s \(DAEMON_DOWNLOAD_TIMEOUT\)/,
      within: 2000,
    },
    {
      what: "headers, then silence, at the idle timeout",
      server: { chunk: 0 },
      env: { DAEMON_DOWNLOAD_IDLE_TIMEOUT: "1s" },
      error: /no data received for 1s \(DAEMON_DOWNLOAD_IDLE_TIMEOUT\)/,
      within: 1000,
    },
    {
      what: "not even headers, at the idle timeout",
      server: { chunk: 0, headers: false },
      env: { DAEMON_DOWNLOAD_IDLE_TIMEOUT: "1s" },
      error: /no data received for 1s \(DAEMON_DOWNLOAD_IDLE_TIMEOUT\)/,
      within: 1000,
    },
  ];
  for (const c of cases) {
    it(`${c.what}: exit 1 in time, the node's files unchanged, no backup`, async () => {
      const srv = await trickleServer({ length: 8 << 20, intervalMs: 1000, ...c.server });
      try {
        const h = await newHome("echo v1");
        plan(h, `${srv.url}/v2.bin`);
        const before = seal(h);
        const v = spawnVisor(h, ["start"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true", DAEMON_RESTART_AFTER_UPGRADE: "false", ...c.env });
        await waitUntil(() => v.err().includes("downloading upgrade binary"), 30_000, "the download");
        const t0 = performance.now();
        expect(await v.exited).toBe(1);
        const took = v.exitedAt()! - t0;
        expect(v.err()).toMatch(c.error);
        expect(v.err()).toMatch(/\nError: cannot download binary\. error downloading "[^"]+": .*\n$/);
        expect(took).toBeLessThan(c.within + 2500);
        expectUntouched(h, before);
        expect(existsSync(join(h.home, "cosmovisor", "upgrades", "v2"))).toBe(false);
        expect(backupsIn(h.home)).toEqual([]);
        console.log(`${c.what}: failed ${Math.round(took)} ms after the download started`);
      } finally {
        await srv.close();
      }
    });
  }

  it("the defaults: a 1 h deadline and 1024 bytes/s over every 60 s, listed by `visor config`", async () => {
    const h = await newHome("echo v1");
    const r = await visor(h, ["config"]);
    expect(r.stdout).toContain("  DAEMON_DOWNLOAD_IDLE_TIMEOUT: 1m0s\n  DAEMON_DOWNLOAD_TIMEOUT: 1h0m0s\n  DAEMON_DOWNLOAD_MIN_RATE: 1024\n");
  });
});

interface Step {
  step: string;
  /** Prepares the home; returns extra environment and a check that the step is under way. */
  setup(h: Home, k: string): Promise<{ env?: Record<string, string>; pause?: string; ready: (err: string) => boolean; settleMs?: number }>;
  /** The command ignores the signal: it is killed after the grace. */
  stubborn?: boolean;
}

const STEPS: Step[] = [
  {
    step: "the delay",
    setup: async (h) => {
      await stage(h, "v2", CHAIN2_DUMMYD);
      plan(h);
      return { env: { DAEMON_RESTART_DELAY: "60s" }, ready: (err) => err.includes("waiting DAEMON_RESTART_DELAY") };
    },
  },
  {
    step: "the download (and its checksum)",
    setup: async (h) => {
      const srv = await trickleServer({ length: 8 << 20, chunk: 4096, intervalMs: 100 });
      servers.push(srv);
      plan(h, `${srv.url}/v2.bin?checksum=sha256:${"0".repeat(64)}`);
      return { env: { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" }, ready: (err) => err.includes("downloading upgrade binary") && srv.sent() > 0, settleMs: 200 };
    },
  },
  {
    step: "the extraction",
    setup: async (h) => {
      plan(h, big.url);
      return { env: { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" }, ready: (err) => err.includes("checksum verified"), settleMs: 300 };
    },
  },
  {
    step: "the backup copy",
    setup: async (h) => {
      await stage(h, "v2", CHAIN2_DUMMYD);
      writeFileSync(join(h.home, "data", "more.db"), "more chain state\n");
      plan(h);
      return { pause: "backup", ready: (err) => err.includes("paused at backup") };
    },
  },
  {
    step: "the custom pre-upgrade (and what it started)",
    setup: async (h, k) => {
      await stage(h, "v2", CHAIN2_DUMMYD);
      script(join(h.home, "cosmovisor", "slow.sh"), `touch custom-started\nsleep 300.${k} &\nsleep 301.${k}`);
      plan(h);
      return {
        env: { COSMOVISOR_CUSTOM_PREUPGRADE: "slow.sh" },
        ready: () => existsSync(join(h.home, "custom-started")) && processesMentioning(`301.${k}`).length > 0,
      };
    },
  },
  {
    step: "the app's pre-upgrade (and what it started)",
    setup: async (h, k) => {
      await stage(h, "v2", `if [ "$1" = pre-upgrade ]; then touch "$3/app-started"; sleep 302.${k} & sleep 303.${k}; exit 0; fi\necho v2`);
      plan(h);
      return { ready: () => existsSync(join(h.home, "app-started")) && processesMentioning(`303.${k}`).length > 0 };
    },
  },
  {
    step: "an app pre-upgrade that ignores the signal",
    stubborn: true,
    setup: async (h, k) => {
      await stage(h, "v2", `if [ "$1" = pre-upgrade ]; then trap '' TERM INT; touch "$3/app-started"; sleep 304.${k}; exit 0; fi\necho v2`);
      plan(h);
      return { ready: () => existsSync(join(h.home, "app-started")) && processesMentioning(`304.${k}`).length > 0 };
    },
  },
];

describe.concurrent("SIGTERM and SIGINT during each step of the pipeline: exit 128 + n promptly, nothing changed", () => {
  for (const s of STEPS) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      if (s.stubborn && signal === "SIGINT") continue;
      it(`${signal} during ${s.step}`, async () => {
        const h = await newHome("echo v1");
        const k = String(Math.floor(Math.random() * 1e6)).padStart(6, "0");
        const { env, pause, ready, settleMs } = await s.setup(h, k);
        const before = seal(h);
        const dataBefore = snapshot(join(h.home, "data"));
        const v = spawnVisor(h, ["start"], { DAEMON_RESTART_AFTER_UPGRADE: "false", ...env }, { pause });
        await waitUntil(() => ready(v.err()) || v.exitedAt() !== undefined, 60_000, `${s.step} to be under way`);
        expect(v.exitedAt(), `still running: ${v.err()}`).toBeUndefined();
        if (settleMs) await new Promise((r) => setTimeout(r, settleMs));
        const t0 = performance.now();
        process.kill(v.pid, signal);
        const code = await v.exited;
        const took = v.exitedAt()! - t0;
        expect({ code, err: code === (signal === "SIGTERM" ? 143 : 130) ? "" : v.err() }).toEqual({ code: signal === "SIGTERM" ? 143 : 130, err: "" });
        expect(v.err()).toContain(`upgrade stopped by ${signal}; the next start resumes it`);
        expect(took).toBeLessThan(EXIT_BOUND_MS + (s.stubborn ? KILL_GRACE_MS : 0));
        if (s.stubborn) expect(v.err()).toContain(`did not exit within ${KILL_GRACE_MS}ms of ${signal}, killing it`);
        expectUntouched(h, before);
        expect(snapshot(join(h.home, "data"))).toEqual(dataBefore);
        // No complete backup was made by a step before the backup, or by the interrupted copy.
        if (/delay|download|extraction|backup/.test(s.step)) expect(backupsIn(h.home)).toEqual([]);
        await waitUntil(() => processesMentioning(`.${k}`).length === 0 && processesMentioning(h.home).length === 0, 5000, "no process left");
        console.log(`${signal} during ${s.step}: exit ${code} after ${Math.round(took)} ms`);
      }, 90_000);
    }
  }
});

describe("after an interrupted upgrade, the next start resumes it", () => {
  it("SIGTERM during the download, then a start that completes the upgrade", async () => {
    const body = Buffer.from('#!/bin/sh\necho v2 "$@"\n');
    const srv = await fileServer(new Map([["v2", body]]));
    const trickle = await trickleServer({ length: 8 << 20, chunk: 4096, intervalMs: 100 });
    servers.push(trickle);
    try {
      const h = await newHome("echo v1");
      plan(h, `${trickle.url}/v2`);
      const first = spawnVisor(h, ["go"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true", DAEMON_RESTART_AFTER_UPGRADE: "false" });
      await waitUntil(() => trickle.sent() > 0, 30_000, "the download");
      process.kill(first.pid, "SIGTERM");
      expect(await first.exited).toBe(143);
      plan(h, `${srv.url}/v2?checksum=sha256:${sha256(body)}`);
      const second = await visor(h, ["run", "go"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true", DAEMON_RESTART_AFTER_UPGRADE: "false" });
      expect(second.code).toBe(0);
      expect(readFileSync(join(h.home, "cosmovisor", "upgrades", "v2", "bin", "dummyd"))).toEqual(body);
      expect(backupsIn(h.home)).toHaveLength(1);
    } finally {
      await srv.close();
    }
  }, 60_000);
});
