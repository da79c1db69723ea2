/** Shared fixtures for the query-service tests: keepers, servers on ephemeral ports, real-client adapters. */
import { request as httpRequest } from "node:http";
import * as grpc from "@grpc/grpc-js";
import type { Rpc } from "cosmjs-types/helpers";
import { createKeeper, type UpgradeKeeper } from "../../bindings/node.js";
import { serveQueries, type QueryServers, type ServeQueriesOptions } from "../../bindings/services/index.js";
import wire from "../vectors/wire.json" with { type: "json" };

export { wire };
export const BACKENDS = ["wasm", "js"] as const;
export type BackendName = (typeof BACKENDS)[number];
export { GOV_AUTHORITY as GOV } from "../../bindings/module/authority.js";

export const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
export const fromHex = (h: string) => Uint8Array.from(Buffer.from(h, "hex"));

/** A mutable chain height the servers report. */
export class Chain {
  constructor(public height = 1n) {}
  readonly provider = () => this.height;
}

/**
 * The "rich" fixture: version map {auth:5, bank:2, upgrade:2}, upgrade `v1` applied at 30, plan {test, 100}
 * scheduled; chain height 40.
 */
export async function richKeeper(backend: BackendName): Promise<{ keeper: UpgradeKeeper; chain: Chain }> {
  const keeper = await createKeeper({ backend });
  keeper.setModuleVersionMap({ auth: 5, bank: 2, upgrade: 2 });
  keeper.setUpgradeHandler("v1", (_ctx, _plan, vm) => vm);
  await keeper.applyUpgrade({ name: "v1", height: 30 }, 30);
  keeper.scheduleUpgrade({ name: "test", height: 100 }, 31);
  return { keeper, chain: new Chain(40n) };
}

export async function serve(keeper: UpgradeKeeper, chain: Chain, extra: Partial<ServeQueriesOptions> = {}): Promise<QueryServers> {
  return serveQueries({
    keeper,
    heightProvider: chain.provider,
    grpc: { address: "127.0.0.1:0" },
    rest: { address: "127.0.0.1:0" },
    ...extra,
  });
}

const identity = (b: Buffer) => b;

/** The cosmjs-types Rpc over @grpc/grpc-js (docs/spec/interfaces.md §11): makeUnaryRequest with identity serializers. */
export function grpcRpc(client: grpc.Client, opts: { metadata?: grpc.Metadata; rename?: (service: string) => string } = {}): Rpc {
  return {
    request(service, method, data) {
      const svc = opts.rename ? opts.rename(service) : service;
      return new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          `/${svc}/${method}`,
          identity,
          identity,
          Buffer.from(data),
          opts.metadata ?? new grpc.Metadata(),
          { deadline: Date.now() + 10_000 },
          (err, value) => (err ? reject(err) : resolve(new Uint8Array(value!))),
        );
      });
    },
  };
}

/** A raw unary call returning status, message bytes and the response header metadata. */
export function rawUnary(
  client: grpc.Client,
  path: string,
  body: Uint8Array,
  metadata = new grpc.Metadata(),
): Promise<{ err: grpc.ServiceError | null; value?: Buffer; headers?: grpc.Metadata }> {
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = client.makeUnaryRequest(path, identity, identity, Buffer.from(body), metadata, { deadline: Date.now() + 10_000 }, (err, value) =>
      resolve({ err, value, headers }),
    );
    call.on("metadata", (md) => (headers = md));
  });
}

export function grpcClient(address: string): grpc.Client {
  return new grpc.Client(address, grpc.credentials.createInsecure());
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Node's built-in HTTP client with a raw, un-normalised path (fetch would normalise `..`). */
export function rawGet(url: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path, method: options.method ?? "GET", headers: options.headers, agent: false, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Writes raw bytes on a fresh TCP connection and collects what comes back until the server closes (bounded). */
export { exchange as rawExchange } from "../support/sockets.js";
