/**
 * Load on loopback for 10 s, both backends at once: autocannon against each REST gateway and concurrent
 * @grpc/grpc-js clients against each gRPC server, while every keeper's plan (and the chain height) changes
 * under them about every millisecond. The plan is a function of the height, so each answer (height header +
 * body) must be exactly the state of one height: no errors, no torn reads. p50/p99 are printed.
 */
import type { IncomingHttpHeaders } from "node:http";
import * as grpc from "@grpc/grpc-js";
import autocannon from "autocannon";
import { describe, expect, it } from "vitest";
import { createKeeper, type UpgradeKeeper } from "../../bindings/node.js";
import { encodeRequest, type QueryServers } from "../../bindings/services/index.js";
import { BACKENDS, Chain, grpcClient, hex, serve } from "./helpers.js";

const DURATION_S = 10;
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

/** Concurrent unary CurrentPlan calls until the deadline (bounded by count too). */
async function grpcLoad(t: Target, deadline: number, concurrency: number) {
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
    for (let i = 0; i < 1_000_000 && Date.now() < deadline; i++) await one();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  client.close();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN };
}

describe("load", () => {
  it(`REST (autocannon) + gRPC (grpc-js) for ${DURATION_S} s on 127.0.0.1, both backends, plan changing under load`, async () => {
    const targets = await Promise.all(BACKENDS.map(target));
    let changes = 0;
    const mutator = setInterval(() => {
      for (const t of targets) setState(t.keeper, t.chain, t.chain.height + 1n);
      changes++;
    }, 1);
    const deadline = Date.now() + DURATION_S * 1000;
    try {
      const runs = targets.map((t) => {
        // autocannon hands the answer's headers by their raw names; a repeated one is an array: no one height.
        const header = (headers: IncomingHttpHeaders | undefined) => {
          const h = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === "x-cosmos-block-height")?.[1];
          return typeof h === "string" ? h : undefined;
        };
        const rest = autocannon({
          url: t.servers.rest!.url,
          connections: 8,
          pipelining: 1,
          duration: DURATION_S,
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
        });
        return Promise.all([rest, grpcLoad(t, deadline, 4)]);
      });
      const results = await Promise.all(runs);
      clearInterval(mutator);

      const rows = results.map(([rest, g], i) => ({
        backend: targets[i].backend,
        "REST req": rest.requests.total,
        "REST req/s": Math.round(rest.requests.average),
        "REST p50 ms": rest.latency.p50,
        "REST p99 ms": rest.latency.p99,
        "REST max ms": rest.latency.max,
        "REST errors": rest.errors + rest.timeouts + rest.non2xx,
        "gRPC req": g.requests,
        "gRPC p50 ms": Number(g.p50.toFixed(2)),
        "gRPC p99 ms": Number(g.p99.toFixed(2)),
        "gRPC max ms": Number(g.max.toFixed(2)),
        "gRPC errors": g.errors,
        "torn reads": targets[i].torn.length,
      }));
      console.log(`load test: ${DURATION_S} s, ${changes} plan changes per keeper (none/alpha/beta by height)`);
      console.table(rows);

      for (const [i, [rest, g]] of results.entries()) {
        expect(targets[i].torn.slice(0, 5)).toEqual([]);
        expect(rest.errors + rest.timeouts + rest.non2xx).toBe(0);
        expect(g.errors).toBe(0);
        expect(rest.requests.total).toBeGreaterThan(1000);
        expect(targets[i].checked.rest).toBeGreaterThan(300);
        expect(targets[i].checked.grpc).toBe(g.requests);
        expect(g.requests).toBeGreaterThan(1000);
      }
      expect(changes).toBeGreaterThan(500);
    } finally {
      clearInterval(mutator);
      await Promise.all(targets.map((t) => t.servers.close(2000)));
    }
  }, 60_000);
});
