/**
 * Case 2, the query services: requests/s and latency of `current_plan`, `applied_plan/{name}` and
 * `module_versions`, over REST and over gRPC, xupgrade's servers (serveQueries, serve-xupgrade.ts) against
 * simd v0.50's (its grpc-gateway API server and its gRPC server), on the same state, at several concurrencies.
 *
 * Fairness on two cores: both servers run pinned to the same core (taskset; simd's Go runtime then sizes
 * GOMAXPROCS to it), the load generators to the other; one server is loaded at a time, with the same client
 * process and the same settings for both; the two sides alternate run by run (A B, then B A). REST is loaded by
 * autocannon (load-rest.ts), gRPC by ghz (from `npm run peers`) with one connection and `c` concurrent calls.
 */
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { NODE_FLAGS } from "../../bindings/apps/cli/node-flags.js";
import { getJson, log, median, quantile, stop, track, type Pinning } from "./util.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const ROOT = here("../../");
const PROTOSET = `${ROOT}bindings/services/descriptors.binpb`;

/** The state both servers answer from (the simd chain's, captured over its REST). */
export interface ServerState {
  backend: "wasm" | "js";
  height: number;
  applied: { name: string; height: number };
  plan: { name: string; height: string; info: string };
  moduleVersions: { name: string; version: string }[];
}

export type Side = "xupgrade" | "simd";
export type Protocol = "rest" | "grpc";

export interface Endpoint {
  id: "current_plan" | "applied_plan" | "module_versions";
  rest: string;
  grpcMethod: string;
  /** ghz's request, JSON. */
  grpcData: string;
  /** The same request, protobuf (for the correctness check). */
  grpcBytes: Buffer;
}

export function endpoints(appliedName: string): Endpoint[] {
  const nameField = Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(appliedName)]), Buffer.from(appliedName)]);
  return [
    { id: "current_plan", rest: "/cosmos/upgrade/v1beta1/current_plan", grpcMethod: "CurrentPlan", grpcData: "{}", grpcBytes: Buffer.alloc(0) },
    {
      id: "applied_plan",
      rest: `/cosmos/upgrade/v1beta1/applied_plan/${appliedName}`,
      grpcMethod: "AppliedPlan",
      grpcData: JSON.stringify({ name: appliedName }),
      grpcBytes: nameField,
    },
    { id: "module_versions", rest: "/cosmos/upgrade/v1beta1/module_versions", grpcMethod: "ModuleVersions", grpcData: "{}", grpcBytes: Buffer.alloc(0) },
  ];
}

export interface Servers {
  rest: string;
  grpc: string;
}

export interface XupgradeServer extends Servers {
  /** The stand-in CometBFT RPC (serve-xupgrade.ts), for the CLI case without simd. */
  rpc: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts serve-xupgrade.ts (pinned like simd) and waits for its READY line. */
export async function startXupgradeServer(state: ServerState, pin: Pinning | undefined): Promise<XupgradeServer> {
  // With the V8 flags the package's bin gives a devnet node, the process that serves these queries to users.
  const cmd = [...(pin?.server ?? []), process.execPath, ...NODE_FLAGS.devnet, "--import", "tsx", here("./serve-xupgrade.ts"), JSON.stringify(state)];
  const child = track(spawn(cmd[0], cmd.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] }));
  const ready = await new Promise<Servers & { rpc: string }>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /^READY (.*)$/m.exec(out);
      if (m) resolve(JSON.parse(m[1]) as Servers & { rpc: string });
    });
    child.once("exit", (code) => reject(new Error(`serve-xupgrade exited (${code}) before it was ready`)));
  });
  return { ...ready, pid: child.pid!, stop: () => stop(child) };
}

export interface LoadRun {
  side: Side;
  protocol: Protocol;
  endpoint: Endpoint["id"];
  concurrency: number;
  round: number;
  rps: number;
  /** ms */
  p50: number;
  /** ms */
  p99: number;
  requests: number;
  errors: number;
}

function lastJsonLine(stdout: string, prefix: string): unknown {
  const line = stdout.split("\n").find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`no ${prefix.trim()} line in: ${stdout.slice(-400)}`);
  return JSON.parse(line.slice(prefix.length));
}

/** One REST run: autocannon in its own process on the client core. */
function restRun(pin: Pinning | undefined, url: string, concurrency: number, seconds: number) {
  const cmd = [...(pin?.client ?? []), process.execPath, "--import", "tsx", here("./load-rest.ts"), url, String(concurrency), String(seconds)];
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: ROOT, encoding: "utf8", timeout: (seconds + 60) * 1000 });
  if (r.status !== 0) throw new Error(`load-rest ${url} failed (exit ${r.status}): ${r.stderr}`);
  const x = lastJsonLine(r.stdout, "RESULT ") as { rps: number; p50: number; p99: number; requests: number; non2xx: number; errors: number };
  return { rps: x.rps, p50: x.p50, p99: x.p99, requests: x.requests, errors: x.non2xx + x.errors };
}

/** One gRPC run: ghz, one connection, `concurrency` calls in flight, on the client core. */
function grpcRun(pin: Pinning | undefined, ghz: string, target: string, e: Endpoint, concurrency: number, seconds: number) {
  const args = [
    "--insecure",
    "--protoset",
    PROTOSET,
    "--call",
    `cosmos.upgrade.v1beta1.Query.${e.grpcMethod}`,
    "-d",
    e.grpcData,
    "-c",
    String(concurrency),
    "--connections",
    "1",
    "-z",
    `${seconds}s`,
    "-O",
    "json",
    target,
  ];
  const cmd = [...(pin?.client ?? []), ghz, ...args];
  const r = spawnSync(cmd[0], cmd.slice(1), { encoding: "utf8", timeout: (seconds + 60) * 1000, maxBuffer: 64 << 20 });
  if (r.status !== 0 && !r.stdout) throw new Error(`ghz ${e.grpcMethod} ${target} failed (exit ${r.status}): ${r.stderr}`);
  const x = JSON.parse(r.stdout) as {
    rps: number;
    total: number;
    statusCodeDistribution: Record<string, number>;
    latencyDistribution: { percentage: number; latency: number }[] | null;
  };
  const ok = x.statusCodeDistribution.OK ?? 0;
  // With -z, the calls still in flight when the time is up end "Unavailable: transport is closing": not errors.
  const errors = Object.entries(x.statusCodeDistribution)
    .filter(([k]) => k !== "OK" && k !== "Unavailable")
    .reduce((a, [, v]) => a + v, 0);
  const pct = (p: number) => (x.latencyDistribution?.find((d) => d.percentage === p)?.latency ?? NaN) / 1e6;
  return { rps: ok / (x.total / 1e9), p50: pct(50), p99: pct(99), requests: ok, errors };
}

/** Both servers answer every endpoint alike (REST: the same JSON; gRPC: the same bytes). */
export async function checkSameAnswers(
  eps: Endpoint[],
  x: Servers,
  s: Servers,
): Promise<{ endpoint: string; protocol: Protocol; same: boolean; detail?: string }[]> {
  const out: { endpoint: string; protocol: Protocol; same: boolean; detail?: string }[] = [];
  for (const e of eps) {
    const [a, b] = [await getJson(x.rest + e.rest), await getJson(s.rest + e.rest)];
    const same = a.status === b.status && JSON.stringify(a.body) === JSON.stringify(b.body);
    out.push({
      endpoint: e.id,
      protocol: "rest",
      same,
      detail: same ? undefined : `xupgrade ${a.status} ${JSON.stringify(a.body).slice(0, 200)} / simd ${b.status} ${JSON.stringify(b.body).slice(0, 200)}`,
    });
    const [ga, gb] = [await grpcCall(x.grpc, e), await grpcCall(s.grpc, e)];
    const gsame = ga.equals(gb);
    out.push({
      endpoint: e.id,
      protocol: "grpc",
      same: gsame,
      detail: gsame ? undefined : `xupgrade ${ga.toString("hex").slice(0, 120)} / simd ${gb.toString("hex").slice(0, 120)}`,
    });
  }
  return out;
}

function grpcCall(target: string, e: Endpoint): Promise<Buffer> {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const id = (b: Buffer) => b;
  return new Promise<Buffer>((resolve, reject) => {
    client.makeUnaryRequest(
      `/cosmos.upgrade.v1beta1.Query/${e.grpcMethod}`,
      id,
      id,
      e.grpcBytes,
      new grpc.Metadata(),
      { deadline: Date.now() + 10_000 },
      (err, v) => {
        client.close();
        if (err) reject(err);
        else resolve(v!);
      },
    );
  });
}

export interface ServicesConfig {
  concurrencies: number[];
  seconds: number;
  warmupSeconds: number;
  rounds: number;
}

export interface ServicesSummary {
  protocol: Protocol;
  endpoint: Endpoint["id"];
  concurrency: number;
  xupgrade: { rps: number; rpsRange: [number, number]; p50: number; p99: number };
  simd?: { rps: number; rpsRange: [number, number]; p50: number; p99: number };
  /** xupgrade req/s ÷ simd req/s (target ≥ 1). */
  rpsRatio?: number;
  /** xupgrade p99 ÷ simd p99 (target ≤ 1). */
  p99Ratio?: number;
}

export interface ServicesTargets {
  x: Servers;
  s?: Servers;
  ghz?: string;
  pin?: Pinning;
}

/** Runs the whole case; `s` absent: xupgrade alone (quick mode without peers); `ghz` absent: REST only. */
export async function servicesCase(t: ServicesTargets, eps: Endpoint[], cfg: ServicesConfig): Promise<{ runs: LoadRun[]; summary: ServicesSummary[] }> {
  const protocols: Protocol[] = t.ghz ? ["rest", "grpc"] : ["rest"];
  const sides: [Side, Servers][] = [["xupgrade", t.x], ...(t.s ? ([["simd", t.s]] as [Side, Servers][]) : [])];
  const one = (side: Side, srv: Servers, p: Protocol, e: Endpoint, c: number, seconds: number) =>
    p === "rest" ? restRun(t.pin, srv.rest + e.rest, c, seconds) : grpcRun(t.pin, t.ghz!, srv.grpc, e, c, seconds);
  const runs: LoadRun[] = [];
  for (const p of protocols) {
    for (const e of eps) {
      // Warm-up: each server, this endpoint, once (JIT, connection pools, caches).
      if (cfg.warmupSeconds > 0) for (const [side, srv] of sides) one(side, srv, p, e, Math.max(...cfg.concurrencies), cfg.warmupSeconds);
      for (const c of cfg.concurrencies) {
        for (let round = 0; round < cfg.rounds; round++) {
          const order = round % 2 ? [...sides].reverse() : sides;
          for (const [side, srv] of order) {
            const r = one(side, srv, p, e, c, cfg.seconds);
            runs.push({ side, protocol: p, endpoint: e.id, concurrency: c, round, ...r });
          }
        }
        const cell = runs.filter((r) => r.protocol === p && r.endpoint === e.id && r.concurrency === c);
        const show = (side: Side) => {
          const rs = cell.filter((r) => r.side === side);
          return rs.length ? `${side} ${median(rs.map((r) => r.rps)).toFixed(0)} req/s p99 ${median(rs.map((r) => r.p99)).toFixed(2)} ms` : "";
        };
        log(`  ${p} ${e.id} c=${c}: ${show("xupgrade")}${t.s ? `; ${show("simd")}` : ""}`);
      }
    }
  }
  return { runs, summary: summarize(runs) };
}

export function summarize(runs: LoadRun[]): ServicesSummary[] {
  const keys = [...new Set(runs.map((r) => `${r.protocol}|${r.endpoint}|${r.concurrency}`))];
  return keys.map((k) => {
    const [protocol, endpoint, c] = k.split("|");
    const cell = runs.filter((r) => `${r.protocol}|${r.endpoint}|${r.concurrency}` === k);
    const side = (s: Side) => {
      const rs = cell.filter((r) => r.side === s);
      if (rs.length === 0) return undefined;
      const rps = rs.map((r) => r.rps);
      return {
        rps: median(rps),
        rpsRange: [Math.min(...rps), Math.max(...rps)] as [number, number],
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
      };
    };
    const x = side("xupgrade")!;
    const s = side("simd");
    return {
      protocol: protocol as Protocol,
      endpoint: endpoint as Endpoint["id"],
      concurrency: Number(c),
      xupgrade: x,
      simd: s,
      rpsRatio: s ? x.rps / s.rps : undefined,
      p99Ratio: s ? x.p99 / s.p99 : undefined,
    };
  });
}

/** autocannon's own ceiling on the client core: a server that answers a fixed body at once. */
export async function restClientCeiling(pin: Pinning | undefined, concurrency: number, seconds: number): Promise<number> {
  const code = `const b=Buffer.from(${JSON.stringify(JSON.stringify({ plan: null }))});require("http").createServer((q,s)=>{s.writeHead(200,{"content-type":"application/json","content-length":b.length});s.end(b)}).listen(0,"127.0.0.1",function(){console.log("READY "+this.address().port)})`;
  const cmd = [...(pin?.server ?? []), process.execPath, "-e", code];
  const child = track(spawn(cmd[0], cmd.slice(1), { stdio: ["ignore", "pipe", "inherit"] }));
  const port = await new Promise<number>((resolve) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
  });
  try {
    return restRun(pin, `http://127.0.0.1:${port}/`, concurrency, seconds).rps;
  } finally {
    await stop(child);
  }
}

export { quantile };
