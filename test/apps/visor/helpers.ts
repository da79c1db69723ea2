/**
 * Shared pieces of the visor suites: homes laid out under a parent directory (so "nothing written outside
 * DAEMON_HOME" can be checked by snapshotting the parent), test binaries as small POSIX shell scripts
 * (docs/spec/sidecar.md §10), the visor run in process with its logs and the node's output captured, a local HTTP
 * server, a fake CometBFT RPC, and archive builders (hand-made tar headers, so hostile entries can be
 * written exactly).
 */
import { createHash } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { QueryCurrentPlanResponse } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { expect } from "vitest";
import { Supervisor } from "../../../bindings/apps/visor/node/child.js";
import { parseConfig, type VisorConfig } from "../../../bindings/apps/visor/config/index.js";
import { createLogger, type VisorLogger } from "../../../bindings/apps/visor/log.js";
import { runVisor, type RunOptions } from "../../../bindings/apps/visor/run.js";
import { addUpgrade, initVisor } from "../../../bindings/apps/visor/setup.js";
import { cliArgs, runCli, type CliResult } from "../cli/helpers.js";
import { tarBuffer, zipBuffer, zipWithName, type TarEntry } from "../../support/archives.js";
import { httpServer } from "../../support/http.js";
import { ROOT } from "../../support/paths.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";
import { waitUntil } from "../../support/wait.js";

export { httpServer, removeTempDirs, tarBuffer, tempDir, waitUntil, zipBuffer, zipWithName, type TarEntry };

export const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** Writes an executable shell script. */
export function script(path: string, body: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The genesis dummyd of docs/spec/sidecar.md §10: prints, writes the plan to `$4`, and must be stopped before its last line. */
export const GENESIS_DUMMYD = `echo Genesis "$@"
sleep 1
test -z "$4" && exit 1
echo 'UPGRADE "chain2" NEEDED at height: 49: {}'
printf '{"name":"chain2","height":49,"info":""}' > "$4"
sleep 2
echo 'Never should be printed!!!'`;

/** upgrades/chain2's dummyd of docs/spec/sidecar.md §10. */
export const CHAIN2_DUMMYD = `echo 'Chain 2 is live!'
echo Args: "$@"
echo Finished successfully`;

export interface Home {
  /** The parent directory: holds `home/` and `outside/` (a sentinel that must never change). */
  parent: string;
  home: string;
  name: string;
  /** Where the test binaries are written before being installed. */
  src: string;
}

/** A fresh DAEMON_HOME (with data/) under its own parent, `visor init` done with `genesis`. */
export async function newHome(genesis: string, o: { name?: string } = {}): Promise<Home> {
  const parent = tempDir();
  const home = join(parent, "home");
  const name = o.name ?? "dummyd";
  mkdirSync(join(home, "data"), { recursive: true });
  writeFileSync(join(home, "data", "state.db"), "chain state at height 48\n");
  mkdirSync(join(parent, "outside"));
  writeFileSync(join(parent, "outside", "keep"), "sentinel\n");
  const src = join(parent, "src");
  await initVisor({ home, name }, script(join(src, "genesis"), genesis), silent);
  return { parent, home, name, src };
}

/** `visor add-upgrade <upgrade> <script>` in process. */
export async function stage(h: Home, upgrade: string, body: string, o: { disableRecase?: boolean } = {}): Promise<string> {
  return addUpgrade({ home: h.home, name: h.name, disableRecase: o.disableRecase ?? false }, upgrade, script(join(h.src, `${upgrade}-bin`), body), {}, silent);
}

/** A configuration as the environment would give it (fast polls, no colours). */
export function config(h: Home, env: Record<string, string> = {}): VisorConfig {
  const { cfg, errors } = parseConfig({
    DAEMON_HOME: h.home,
    DAEMON_NAME: h.name,
    DAEMON_POLL_INTERVAL: "50ms",
    COSMOVISOR_COLOR_LOGS: "false",
    DAEMON_RPC_ADDRESS: "http://127.0.0.1:9", // nothing listens there: "not reachable"
    ...env,
  });
  if (errors.length > 0) throw new Error(errors.join("\n"));
  return cfg;
}

export const silent: VisorLogger = createLogger({ disabled: true });

export interface Captured {
  log: VisorLogger;
  lines: string[];
  text(): string;
}

export function captureLog(): Captured {
  const lines: string[] = [];
  const log = createLogger({ timeFormat: "", color: false, write: (l) => lines.push(l) });
  return { log, lines, text: () => lines.join("") };
}

export interface VisorRun {
  /** The exit status, or the error it failed with. */
  result: Promise<{ code?: number; error?: string }>;
  logs: Captured;
  /** Everything the node processes wrote to stdout. */
  stdout(): string;
  supervisor: Supervisor;
}

/** `visor run <args>` in process. */
export function startVisor(h: Home, args: string[], env: Record<string, string> = {}, o: Partial<RunOptions> = {}): VisorRun {
  const logs = captureLog();
  let out = "";
  const supervisor = new Supervisor({
    log: logs.log,
    stdio: ["ignore", "pipe", "pipe"],
    onNode: (p) => {
      p.stdout?.on("data", (d: Buffer) => (out += d.toString()));
      p.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    },
  });
  const result = runVisor({ cfg: config(h, env), args, log: logs.log, supervisor, ...o }).then(
    (code) => ({ code }),
    (e: Error) => ({ error: e.message }),
  );
  return { result, logs, stdout: () => out, supervisor };
}

export const runVisorIn = (h: Home, args: string[], env: Record<string, string> = {}, o: Partial<RunOptions> = {}) => {
  const r = startVisor(h, args, env, o);
  return r.result.then((res) => ({ ...res, logs: r.logs.text(), stdout: r.stdout() }));
};

// ---- snapshots: "nothing outside DAEMON_HOME", "old binary and data intact" ----

/** path → a description (type, size and hash, or link target) of everything under `dir`. */
export function snapshot(dir: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const n of readdirSync(join(dir, rel)).sort()) {
      const r = rel === "" ? n : `${rel}/${n}`;
      if (skip.includes(r)) continue;
      const st = lstatSync(join(dir, r));
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(join(dir, r))}`;
      else if (st.isDirectory()) {
        out[r] = "dir";
        walk(r);
      } else out[r] = `file ${st.size} ${sha256(readFileSync(join(dir, r)))} ${(st.mode & 0o7777).toString(8)}`;
    }
  };
  walk("");
  return out;
}

export interface Sealed {
  outside: Record<string, string>;
  data: Record<string, string>;
  current: string;
  bin: string;
}

/** What must survive a failed upgrade: the parent minus the home, data/, `current` and its binary. */
export function seal(h: Home): Sealed {
  const current = readlinkSync(join(h.home, "cosmovisor", "current"));
  return {
    outside: snapshot(h.parent, ["home"]),
    data: snapshot(join(h.home, "data")),
    current,
    bin: sha256(readFileSync(join(h.home, "cosmovisor", current, "bin", h.name))),
  };
}

/**
 * The old binary and data are intact and nothing was written outside DAEMON_HOME; no temporary files are
 * left, no half-made upgrade directory, and the old binary still runs.
 */
export function expectIntact(h: Home, before: Sealed, upgrade?: string): void {
  const after = seal(h);
  expect(after.outside).toEqual(before.outside);
  expect(after.data).toEqual(before.data);
  expect(after.current).toBe(before.current);
  expect(after.bin).toBe(before.bin);
  const tmp = join(h.home, "cosmovisor", ".tmp");
  expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
  if (upgrade !== undefined) expect(existsSync(join(h.home, "cosmovisor", "upgrades", upgrade))).toBe(false);
  const run = spawnSync(join(h.home, "cosmovisor", "current", "bin", h.name), ["version"], { timeout: 10_000 });
  expect(run.error).toBeUndefined();
}

// ---- servers ----

/** Serves `files` (path → body) on 127.0.0.1, plus the misbehaving routes the download tests need. */
export async function fileServer(files: Map<string, Buffer>) {
  let hits = 0;
  const srv = await httpServer((req: IncomingMessage, res: ServerResponse) => {
    hits++;
    const path = (req.url ?? "/").split("?")[0].slice(1);
    if (path === "loop") {
      res.writeHead(302, { location: "/loop" });
      return res.end();
    }
    if (path === "truncated") {
      res.writeHead(200, { "content-length": "10000" });
      res.write("#!/bin/sh\n");
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (path === "silent") {
      res.writeHead(200, { "content-length": "100" });
      res.write("#!");
      return; // nothing more, ever
    }
    if (path === "huge") {
      res.writeHead(200); // no Content-Length: the limit is hit while streaming
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const push = () => {
        while (sent < 8 << 20) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", push);
        }
        res.end();
      };
      res.on("error", () => {});
      return push();
    }
    const body = files.get(path);
    if (!body) {
      res.writeHead(404);
      return res.end("not found");
    }
    res.writeHead(200, { "content-length": String(body.length) });
    res.end(body);
  });
  return { ...srv, hits: () => hits };
}

/** A fake CometBFT RPC: `status` at a settable height and `abci_query` CurrentPlan. */
export async function fakeRpc(o: { height?: bigint; plan?: { name: string; height: bigint; info: string } }) {
  const state = { height: o.height ?? 1n, plan: o.plan };
  const srv = await httpServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const call = JSON.parse(body) as { id: number; method: string; params: { path?: string } };
      let result: unknown;
      if (call.method === "status") result = { sync_info: { latest_block_height: String(state.height) } };
      else if (call.method === "abci_query" && call.params.path === "/cosmos.upgrade.v1beta1.Query/CurrentPlan") {
        const plan = state.plan && { ...state.plan, time: { seconds: -62135596800n, nanos: 0 }, upgradedClientState: undefined };
        const value = Buffer.from(QueryCurrentPlanResponse.encode({ plan }).finish()).toString("base64");
        result = { response: { code: 0, value, height: String(state.height) } };
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          result === undefined
            ? { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "Method not found" } }
            : { jsonrpc: "2.0", id: call.id, result },
        ),
      );
    });
  });
  return { ...srv, state };
}

/**
 * A server that announces `length` bytes and then sends `chunk` bytes every `intervalMs` (a trickle), or
 * nothing more after the headers (`chunk: 0`: stalled), or not even headers (`headers: false`).
 */
export async function trickleServer(o: { length: number; chunk: number; intervalMs?: number; headers?: boolean }) {
  let sent = 0;
  const timers = new Set<NodeJS.Timeout>();
  const srv = await httpServer((req, res) => {
    req.socket.on("error", () => undefined);
    if (o.headers === false) return; // accept, then silence
    res.writeHead(200, { "content-length": String(o.length) });
    res.flushHeaders();
    if (o.chunk === 0) return;
    const timer = setInterval(() => {
      if (res.destroyed || sent >= o.length) return void clearInterval(timer);
      res.write(Buffer.alloc(o.chunk, 0x61));
      sent += o.chunk;
    }, o.intervalMs ?? 1000);
    timers.add(timer);
    res.on("close", () => clearInterval(timer));
  });
  return {
    ...srv,
    sent: () => sent,
    close: async () => {
      for (const t of timers) clearInterval(t);
      await srv.close();
    },
  };
}

// ---- the visor as its own process ----

export const visorEnv = (h: Home, extra: Record<string, string> = {}) => ({
  DAEMON_HOME: h.home,
  DAEMON_NAME: h.name,
  DAEMON_POLL_INTERVAL: "50ms",
  COSMOVISOR_COLOR_LOGS: "false",
  ...extra,
});

/** `xupgrade visor <args>` through the real CLI, to completion. */
export const visor = (h: Home, args: string[], extra: Record<string, string> = {}): Promise<CliResult> =>
  runCli(["visor", ...args], { env: visorEnv(h, extra) });

export interface Spawned {
  pid: number;
  out: () => string;
  err: () => string;
  /** The exit code, or the signal name. */
  exited: Promise<number | string>;
  /** performance.now() when it exited. */
  exitedAt(): number | undefined;
}

const HOOKED = join(ROOT, "test/apps/visor/fixtures/hooked-visor.ts");

/**
 * `xupgrade visor run …` left running (its own process group, as a service manager would start it). With
 * `pause`, the hooked launcher (fixtures/hooked-visor.ts) runs instead of the CLI and holds the pipeline there.
 */
export function spawnVisor(h: Home, args: string[], extra: Record<string, string> = {}, o: { pause?: string } = {}): Spawned {
  const entry = o.pause === undefined ? [...cliArgs(), "visor", "run"] : ["--import", "tsx", HOOKED];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...visorEnv(h, extra), ...(o.pause === undefined ? {} : { VISOR_TEST_PAUSE: o.pause }) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  let at: number | undefined;
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | string>((r) =>
    child.on("close", (code, signal) => {
      at = performance.now();
      r(code ?? signal ?? -1);
    }),
  );
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  void exited.then(() => clearTimeout(timer));
  return { pid: child.pid!, out: () => out, err: () => err, exited, exitedAt: () => at };
}

export { processesMentioning } from "../../support/processes.js";
