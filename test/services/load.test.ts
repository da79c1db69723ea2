/**
 * Load on loopback for 10 s — and on until each load made its share of requests, however busy the machine — both
 * backends at once: autocannon against each REST gateway and concurrent @grpc/grpc-js clients against each gRPC
 * server, while every keeper's plan (and the chain height) changes under them about every millisecond. The plan
 * is a function of the height, so each answer (height header + body) must be exactly the state of one height: no
 * errors, no torn reads. p50/p99 are printed (speed itself is the benchmarks' to measure, not this test's).
 */
import type { IncomingHttpHeaders } from "node:http";
import * as grpc from "@grpc/grpc-js";
import autocannon from "autocannon";
import { describe, expect, it } from "vitest";
import { createKeeper, type UpgradeKeeper } from "../../bindings/node.js";
import { encodeRequest, type QueryServers } from "../../bindings/services/index.js";
import { BACKENDS, Chain, grpcClient, hex, serve } from "./helpers.js";

const DURATION_S = 10;
/** Requests each load makes at the least (it goes on past DURATION_S until then), and the most it may take. */
const MIN_REQUESTS = 1500;
const CAP_S = 50;
const P = "/cosmos/upgrade/v1beta1";
const INFO_A = JSON.stringify({ binaries: { "linux/amd64": "https://example.com/a.tar.gz?checksum=sha256:" + "a".repeat(64) } });
const INFO_B = "b".repeat(300);

/** The plan the chain has at height h: none, alpha or beta. */
function planAt(h: bigint) {
  switch (Number(h % 3n)) {
    case 1:
      return { name: "alpha", height: 1_000_000_000_000n, info: INFO_A };
    case 2:
      return { name: "beta-upgrade", height: 2_000_000_000_000n, info: INFO_B };
    default:
      return undefined;
  }
}

function setState(keeper: UpgradeKeeper, chain: Chain, h: bigint) {
  const plan = planAt(h);
  if (plan) keeper.scheduleUpgrade(plan, h);
  else keeper.clearUpgradePlan();
  chain.height = h;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Target {
  backend: string;
  keeper: UpgradeKeeper;
  chain: Chain;
  servers: QueryServers;
  expectedJson: (h: bigint) => string;
  expectedBytes: (h: bigint) => string;
  torn: string[];
  /** Answers checked against the state of their height. */
  checked: { rest: number; grpc: number };
}

async function target(backend: (typeof BACKENDS)[number]): Promise<Target> {
  const keeper = await createKeeper({ backend });
  keeper.setModuleVersionMap({ auth: 5, bank: 2, upgrade: 2 });
  const chain = new Chain(1n);
  setState(keeper, chain, 1n);
  const servers = await serve(keeper, chain);
  const json = new Map<number, string>();
  const bytes = new Map<number, string>();
  for (let r = 0; r < 3; r++) {
    setState(keeper, chain, BigInt(r + 3));
    json.set(r, await (await fetch(`${servers.rest!.url}${P}/current_plan`)).text());
    bytes.set(r, hex(servers.abci.query("/cosmos.upgrade.v1beta1.Query/CurrentPlan").value));
  }
  setState(keeper, chain, 10n);
  return {
    backend,
    keeper,
    chain,
    servers,
    expectedJson: (h) => json.get(Number(h % 3n))!,
    expectedBytes: (h) => bytes.get(Number(h % 3n))!,
    torn: [],
    checked: { rest: 0, grpc: 0 },
  };
}

/** Concurrent unary CurrentPlan calls until `minEnd` and MIN_REQUESTS, or `capEnd`. */
async function grpcLoad(t: Target, minEnd: number, capEnd: number, concurrency: number) {
  const client = grpcClient(t.servers.grpc!.address);
  const latencies: number[] = [];
  let errors = 0;
  const id = (b: Buffer) => b;
  const body = Buffer.from(encodeRequest("CurrentPlan", {}));
  const one = () =>
    new Promise<void>((resolve) => {
      const start = performance.now();
      let height: string | undefined;
      const call = client.makeUnaryRequest(
        "/cosmos.upgrade.v1beta1.Query/CurrentPlan",
        id,
        id,
        body,
        new grpc.Metadata(),
        { deadline: Date.now() + 5000 },
        (err, value) => {
          latencies.push(performance.now() - start);
          if (err) errors++;
          else {
            t.checked.grpc++;
            if (height === undefined || hex(value!) !== t.expectedBytes(BigInt(height))) {
              t.torn.push(`grpc h=${height} ${hex(value!).slice(0, 40)}`);
            }
          }
          resolve();
        },
      );
      call.on("metadata", (md) => (height = md.get("x-cosmos-block-height")[0] as string | undefined));
    });
  const worker = async () => {
    while (Date.now() < capEnd && (Date.now() < minEnd || latencies.length < MIN_REQUESTS)) await one();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  client.close();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN };
}

/** autocannon rounds against one gateway: DURATION_S, then more of the missing amount until MIN_REQUESTS or `capEnd`. */
async function restLoad(options: autocannon.Options, capEnd: number) {
  let first: autocannon.Result | undefined;
  let total = 0;
  let errors = 0;
  while (!first || (total < MIN_REQUESTS && Date.now() < capEnd)) {
    const r = await autocannon(first ? { ...options, amount: MIN_REQUESTS - total } : { ...options, duration: DURATION_S });
    first ??= r;
    total += r.requests.total;
    errors += r.errors + r.timeouts + r.non2xx;
  }
  return { first, total, errors };
}

describe("load", () => {
  it(`REST (autocannon) + gRPC (grpc-js) for ${DURATION_S} s on 127.0.0.1, both backends, plan changing under load`, async () => {
    const targets = await Promise.all(BACKENDS.map(target));
    let changes = 0;
    const mutator = setInterval(() => {
      for (const t of targets) setState(t.keeper, t.chain, t.chain.height + 1n);
      changes++;
    }, 1);
    const started = Date.now();
    const minEnd = started + DURATION_S * 1000;
    const capEnd = started + CAP_S * 1000;
    try {
      const runs = targets.map((t) => {
        // autocannon hands the answer's headers by their raw names; a repeated one is an array: no one height.
        const header = (headers: IncomingHttpHeaders | undefined) => {
          const h = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === "x-cosmos-block-height")?.[1];
          return typeof h === "string" ? h : undefined;
        };
        const rest = restLoad(
          {
            url: t.servers.rest!.url,
            connections: 8,
            pipelining: 1,
            timeout: 5,
            requests: [
              {
                method: "GET",
                path: `${P}/current_plan`,
                onResponse: (status, body, _ctx, headers) => {
                  const h = header(headers);
                  t.checked.rest++;
                  if (status !== 200 || h === undefined || body !== t.expectedJson(BigInt(h))) {
                    t.torn.push(`rest ${status} h=${h} ${body.slice(0, 60)}`);
                  }
                },
              },
              { method: "GET", path: `${P}/module_versions?module_name=bank` },
              { method: "GET", path: `${P}/authority` },
            ],
          },
          capEnd,
        );
        return Promise.all([rest, grpcLoad(t, minEnd, capEnd, 4)]);
      });
      const results = await Promise.all(runs);
      clearInterval(mutator);

      const rows = results.map(([rest, g], i) => ({
        backend: targets[i].backend,
        "REST req": rest.total,
        "REST req/s": Math.round(rest.first.requests.average),
        "REST p50 ms": rest.first.latency.p50,
        "REST p99 ms": rest.first.latency.p99,
        "REST max ms": rest.first.latency.max,
        "REST errors": rest.errors,
        "gRPC req": g.requests,
        "gRPC p50 ms": Number(g.p50.toFixed(2)),
        "gRPC p99 ms": Number(g.p99.toFixed(2)),
        "gRPC max ms": Number(g.max.toFixed(2)),
        "gRPC errors": g.errors,
        "torn reads": targets[i].torn.length,
      }));
      console.log(`load test: ${((Date.now() - started) / 1000).toFixed(1)} s, ${changes} plan changes per keeper (none/alpha/beta by height)`);
      console.table(rows);

      for (const [i, [rest, g]] of results.entries()) {
        expect(targets[i].torn.slice(0, 5)).toEqual([]);
        expect(rest.errors).toBe(0);
        expect(g.errors).toBe(0);
        // Not speed: each load went on until it had made its requests (or CAP_S passed, which these would say).
        expect(rest.total).toBeGreaterThanOrEqual(MIN_REQUESTS);
        expect(targets[i].checked.rest).toBeGreaterThan(300);
        expect(targets[i].checked.grpc).toBe(g.requests);
        expect(g.requests).toBeGreaterThanOrEqual(MIN_REQUESTS);
      }
      expect(changes).toBeGreaterThan(500);
    } finally {
      clearInterval(mutator);
      await Promise.all(targets.map((t) => t.servers.close(2000)));
    }
  }, 90_000);
});
