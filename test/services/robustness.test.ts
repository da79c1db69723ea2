/**
 * Slow, half-open and misbehaving clients never block others; close() is graceful (in-flight requests
 * finish, new ones are refused) and bounded (a client that never finishes is cut after the grace period).
 */
import { connect as h2connect } from "node:http2";
import { connect, type Socket } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { QueryClientImpl } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { describe, expect, it } from "vitest";
import { serveQueries } from "../../bindings/services/index.js";
import { BACKENDS, GOV, grpcClient, grpcRpc, rawGet, richKeeper, serve, wire } from "./helpers.js";

const P = "/cosmos/upgrade/v1beta1";

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.on("error", reject);
  });
}

const closed = (s: Socket) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    s.on("data", (c) => chunks.push(c));
    s.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
  });

describe.each(BACKENDS)("robustness, %s backend", (backend) => {
  it("REST: slow and half-open clients do not block others; slow heads get 408 after headersTimeout", async () => {
    const { keeper, chain } = await richKeeper(backend);
    const servers = await serve(keeper, chain, { grpc: false, rest: { address: "127.0.0.1:0", headersTimeoutMs: 1000, requestTimeoutMs: 2000 } });
    const sockets: Socket[] = [];
    try {
      // 20 clients that send half a request line and stop; 5 that pipeline requests and never read.
      for (let i = 0; i < 20; i++) {
        const s = await openSocket(servers.rest!.port);
        s.write(`GET ${P}/curr`);
        sockets.push(s);
      }
      for (let i = 0; i < 5; i++) {
        const s = await openSocket(servers.rest!.port);
        s.pause();
        s.write(`GET ${P}/module_versions HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(200));
        sockets.push(s);
      }
      const slowDone = closed(sockets[0]);
      const t0 = performance.now();
      for (let i = 0; i < 50; i++) {
        const r = await fetch(`${servers.rest!.url}${P}/authority`, { signal: AbortSignal.timeout(5000) });
        expect(await r.text()).toBe(wire.rest_json.authority);
      }
      expect(performance.now() - t0).toBeLessThan(5000);
      const answer = await Promise.race([slowDone, new Promise<string>((r) => setTimeout(() => r("still open"), 6000))]);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      for (const s of sockets) s.destroy();
      await servers.close(1000);
    }
  }, 20_000);

  it("gRPC: half-open TCP, a stalled HTTP/2 stream and an open reflection stream do not block others", async () => {
    const { keeper, chain } = await richKeeper(backend);
    const servers = await serve(keeper, chain, { rest: false });
    const address = servers.grpc!.address;
    const sockets: Socket[] = [];
    const session = h2connect(`http://${address}`);
    session.on("error", () => undefined);
    try {
      for (let i = 0; i < 10; i++) {
        const s = await openSocket(servers.grpc!.port);
        s.write("PRI * HTTP/2.0\r\n"); // half a preface, then silence
        sockets.push(s);
      }
      // A gRPC stream whose message never completes (length prefix says 100 bytes, 3 arrive).
      const stalled = session.request({
        ":method": "POST",
        ":path": "/cosmos.upgrade.v1beta1.Query/AppliedPlan",
        "content-type": "application/grpc",
        te: "trailers",
      });
      stalled.on("error", () => undefined);
      stalled.write(Buffer.from([0, 0, 0, 0, 100, 0x0a, 0x01, 0x61]));

      const client = grpcClient(address);
      const q = new QueryClientImpl(grpcRpc(client));
      const t0 = performance.now();
      for (let i = 0; i < 50; i++) expect((await q.Authority({})).address).toBe(GOV);
      expect(performance.now() - t0).toBeLessThan(5000);
      client.close();
      stalled.close();
    } finally {
      for (const s of sockets) s.destroy();
      session.destroy();
      await servers.close(1000);
    }
  }, 20_000);

  it("graceful close: the request in flight when close() starts is answered; later connections are refused", async () => {
    const { keeper } = await richKeeper(backend);
    let calls = 0;
    let closing: Promise<void> | undefined;
    const heightProvider = () => {
      calls++;
      if (calls === 3) closing = servers.close(3000); // close while this request is being handled
      return 40n;
    };
    const servers = await serveQueries({ keeper, heightProvider, grpc: { address: "127.0.0.1:0" }, rest: { address: "127.0.0.1:0" } });
    const restUrl = servers.rest!.url;
    const grpcAddress = servers.grpc!.address;

    expect(await (await fetch(`${restUrl}${P}/authority`)).text()).toBe(wire.rest_json.authority); // call 1
    const client = grpcClient(grpcAddress);
    const q = new QueryClientImpl(grpcRpc(client));
    expect((await q.Authority({})).address).toBe(GOV); // call 2
    const inflight = await rawGet(restUrl, `${P}/current_plan`); // call 3 triggers close()
    expect([inflight.status, inflight.body]).toEqual([200, wire.rest_json.current_plan_test_100]);
    expect(closing).toBeDefined();
    const t0 = performance.now();
    await closing;
    expect(performance.now() - t0).toBeLessThan(2900); // finished gracefully, not by the grace timer
    await expect(fetch(`${restUrl}${P}/authority`)).rejects.toThrow();
    const after = await q.Authority({}).catch((e) => e);
    expect(after.code).toBe(grpc.status.UNAVAILABLE);
    client.close();
  }, 20_000);

  it("graceful close on gRPC: an open reflection stream is still answered, then close() completes", async () => {
    const { keeper, chain } = await richKeeper(backend);
    const servers = await serve(keeper, chain, { rest: false });
    const client = grpcClient(servers.grpc!.address);
    const id = (b: Buffer) => b;
    const call = client.makeBidiStreamRequest("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", id, id, new grpc.Metadata(), {
      deadline: Date.now() + 10_000,
    });
    const responses: Buffer[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      call.on("data", (d: Buffer) => responses.push(d));
      call.on("end", resolve);
      call.on("error", reject);
    });
    const listServices = Buffer.from([0x3a, 0x00]);
    call.write(listServices);
    await new Promise((r) => setTimeout(r, 100));
    const closing = servers.close(5000);
    let closedEarly = false;
    void closing.then(() => (closedEarly = true));
    call.write(listServices); // still in flight on the open stream
    await new Promise((r) => setTimeout(r, 200));
    expect(closedEarly).toBe(false);
    call.end();
    await ended;
    const t0 = performance.now();
    await closing;
    expect(performance.now() - t0).toBeLessThan(4000);
    expect(responses).toHaveLength(2);
    client.close();
  }, 20_000);

  it("close() is bounded: clients that never finish are cut after the grace period", async () => {
    const { keeper, chain } = await richKeeper(backend);
    const servers = await serve(keeper, chain);
    const rest = await openSocket(servers.rest!.port);
    rest.write(`GET ${P}/authority HTTP/1.1\r\nHost: x\r\n`); // headers never finished
    const client = grpcClient(servers.grpc!.address);
    const id = (b: Buffer) => b;
    const stream = client.makeBidiStreamRequest("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", id, id, new grpc.Metadata());
    stream.on("error", () => undefined);
    stream.write(Buffer.from([0x3a, 0x00]));
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    await servers.close(500);
    expect(performance.now() - t0).toBeLessThan(3000);
    rest.destroy();
    client.close();
  }, 20_000);
});
