/**
 * Class "every HTTP server gets the same hardening from one place" (docs/spec/interfaces.md §12.2; the instance
 * that found it: the devnet RPC kept slow and idle connections until Node's 30 s sweep): on the REST gateway and
 * on the devnet's CometBFT RPC, measured with real sockets on loopback, 100 slowloris connections (a header line a
 * second) and 10 idle ones are closed within the configured headers timeout, idle keep-alive connections within the
 * keep-alive timeout (+ the 1 s Node adds), slow bodies within the request timeout; heads and bodies over the limits
 * get 431/413; a connection over the cap gets 503.
 *
 * Margin: Node closes an expired connection at its first sweep after the deadline, and the sweep runs every
 * min(1 s, timeout / 4) (checkingIntervalMs); on top of that, 1 s for timers and socket teardown on a busy
 * 2-core machine running other suites (measured here: ≤ 30 ms past the sweep). So a connection must close in
 * [timeout − 50 ms, timeout + interval + 1 s] — before the fix the devnet RPC's were closed at Node's 30 s sweep.
 */
import { afterAll, describe, expect, it } from "vitest";
import { RPC_HTTP_DEFAULTS } from "../../bindings/apps/devnet/node/rpc/server.js";
import { HTTP_DEFAULTS, checkingIntervalMs, resolveHttpLimits, type ResolvedHttpLimits } from "../../bindings/services/index.js";
import { destroyAll, exchange, idleClients, slowlorisClients, type WatchedSocket } from "../support/sockets.js";
import { removeTempDirs } from "../support/temp.js";
import { startAll, type AllServers } from "./servers.js";

afterAll(removeTempDirs);

const MARGIN_MS = 1000;
const ports = (s: AllServers) => ({ rest: s.queries.rest!.port, rpc: (s.rpc.server.address() as { port: number }).port });

/** Waits (bounded) until every socket is closed; returns the close times per server. */
async function closedWithin(groups: Record<string, WatchedSocket[]>, boundMs: number): Promise<Record<string, number[]>> {
  const all = Object.values(groups).flat();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(all.map((w) => w.closed)), new Promise((r) => (timer = setTimeout(r, boundMs)))]);
  clearTimeout(timer);
  return Object.fromEntries(Object.entries(groups).map(([k, ws]) => [k, ws.map((w) => w.closedAfter ?? Infinity)]));
}

/** 100 slowloris + 10 idle connections on each server; all closed inside the window of the module comment. */
async function attack(s: AllServers, limits: ResolvedHttpLimits): Promise<Record<string, { slowloris: number[]; idle: number[] }>> {
  const t0 = performance.now();
  const { rest, rpc } = ports(s);
  const groups: Record<string, WatchedSocket[]> = {
    "rest slowloris": await slowlorisClients(rest, 100, { t0, path: "/cosmos/upgrade/v1beta1/authority" }),
    "rest idle": await idleClients(rest, 10, t0),
    "rpc slowloris": await slowlorisClients(rpc, 100, { t0, path: "/status" }),
    "rpc idle": await idleClients(rpc, 10, t0),
  };
  try {
    // The attack does not keep the servers from answering others.
    expect((await exchange(rest, "GET /cosmos/upgrade/v1beta1/authority HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 200 ")).toBe(
      true,
    );
    expect((await exchange(rpc, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 200 ")).toBe(true);
    const upper = limits.headersTimeoutMs + checkingIntervalMs(limits) + MARGIN_MS;
    const times = await closedWithin(groups, upper + 2000);
    for (const [name, ts] of Object.entries(times)) {
      expect(Math.max(...ts), `${name}: the last one closed`).toBeLessThanOrEqual(upper);
      expect(Math.min(...ts), `${name}: the first one closed`).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
    }
    // A slowloris client that is still writable is told why.
    for (const w of [...groups["rest slowloris"], ...groups["rpc slowloris"]]) expect(w.received()).toMatch(/^(HTTP\/1\.1 408 Request Timeout\r\n|)/);
    expect(groups["rest slowloris"].some((w) => w.received().startsWith("HTTP/1.1 408 "))).toBe(true);
    return {
      rest: { slowloris: times["rest slowloris"], idle: times["rest idle"] },
      rpc: { slowloris: times["rpc slowloris"], idle: times["rpc idle"] },
    };
  } finally {
    destroyAll(Object.values(groups).flat());
  }
}

const summary = (t: Record<string, { slowloris: number[]; idle: number[] }>) =>
  Object.entries(t)
    .map(
      ([k, v]) =>
        `${k}: slowloris ${Math.round(Math.min(...v.slowloris))}–${Math.round(Math.max(...v.slowloris))} ms, idle ${Math.round(Math.min(...v.idle))}–${Math.round(Math.max(...v.idle))} ms`,
    )
    .join("; ");

describe("HTTP hardening on every HTTP server (REST gateway, devnet RPC)", () => {
  const SHORT = { headersTimeoutMs: 2000, requestTimeoutMs: 3000, keepAliveTimeoutMs: 1000, maxConnections: 400 };

  it("configured 2 s heads: 100 slowloris and 10 idle connections per server are closed at 2 s (+ sweep + margin)", async () => {
    const s = await startAll({ http: SHORT });
    try {
      const t = await attack(s, resolveHttpLimits(SHORT));
      console.log(`closed after (configured 2 s): ${summary(t)}`);
    } finally {
      await s.close();
    }
  }, 20_000);

  it("keep-alive connections idle after a request close at keepAliveTimeout; a slow body at requestTimeout", async () => {
    const s = await startAll({ http: SHORT });
    const { rest, rpc } = ports(s);
    try {
      const t0 = performance.now();
      const kept = [...(await idleClients(rest, 1, t0)), ...(await idleClients(rpc, 1, t0))];
      kept[0].socket.write("GET /cosmos/upgrade/v1beta1/authority HTTP/1.1\r\nHost: x\r\n\r\n");
      kept[1].socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
      // The RPC reads bodies: one byte every 200 ms of a declared 1000 never completes the request.
      const slow = await idleClients(rpc, 1, t0);
      slow[0].socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"');
      const drip = setInterval(() => slow[0].socket.writable && slow[0].socket.write(" "), 200);
      const times = await closedWithin({ kept, slow }, 8000);
      clearInterval(drip);
      for (const k of kept) expect(k.received()).toMatch(/^HTTP\/1\.1 200 /);
      for (const t of times.kept) expect(t).toBeGreaterThanOrEqual(SHORT.keepAliveTimeoutMs - 50);
      // Node arms the socket timer at keepAliveTimeout + 1 s (its buffer against clients racing the close).
      for (const t of times.kept) expect(t).toBeLessThanOrEqual(SHORT.keepAliveTimeoutMs + 1000 + MARGIN_MS);
      expect(times.slow[0]).toBeGreaterThanOrEqual(SHORT.requestTimeoutMs - 50);
      expect(times.slow[0]).toBeLessThanOrEqual(SHORT.requestTimeoutMs + checkingIntervalMs(resolveHttpLimits(SHORT)) + MARGIN_MS);
      console.log(`keep-alive closed after ${times.kept.map(Math.round).join(", ")} ms; slow body after ${Math.round(times.slow[0])} ms`);
    } finally {
      await s.close();
    }
  }, 20_000);

  it("a connection over maxConnections gets 503 and is closed; the open ones are unaffected; room again once some close", async () => {
    const s = await startAll({ http: { maxConnections: 20 } });
    try {
      for (const port of Object.values(ports(s))) {
        const held = await idleClients(port, 20);
        const over = await exchange(port, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n", 3000);
        expect(over).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n/);
        held[0].socket.write("GET /ui/config.json HTTP/1.1\r\nHost: x\r\n\r\n");
        held[0].socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        await new Promise((r) => setTimeout(r, 200));
        expect(held[0].received()).toMatch(/^HTTP\/1\.1 (200|404) /);
        destroyAll(held.slice(0, 5));
        await Promise.all(held.slice(0, 5).map((w) => w.closed));
        await new Promise((r) => setTimeout(r, 50));
        const again = await exchange(port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 3000);
        expect(again).toMatch(/^HTTP\/1\.1 (200|501) /);
        destroyAll(held);
      }
    } finally {
      await s.close();
    }
  });

  it("heads over maxHeaderBytes → 431, declared bodies over maxBodyBytes → 413 (each server's own format), connection closed", async () => {
    const s = await startAll();
    const { rest, rpc } = ports(s);
    try {
      expect(await exchange(rest, `GET /ui/${"a".repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 /);
      expect(await exchange(rpc, `GET /${"a".repeat(65 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 /);
      expect(await exchange(rpc, `GET /health?x=${"a".repeat(40 * 1024)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
      const r413 = await exchange(rest, `POST /cosmos/upgrade/v1beta1/authority HTTP/1.1\r\nHost: x\r\nContent-Length: ${100 * 1024}\r\n\r\n`);
      expect(r413).toMatch(
        /^HTTP\/1\.1 413 [^]*\r\nConnection: close\r\n[^]*\{"code":8,"message":"request body larger than max \(102400 vs\. 65536\)","details":\[\]\}$/,
      );
      const j413 = await exchange(rpc, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${3 * 1024 * 1024}\r\n\r\n{`);
      expect(j413).toMatch(
        /^HTTP\/1\.1 413 [^]*\{"jsonrpc":"2\.0","id":-1,"error":\{"code":-32600,"message":"Invalid Request","data":"request body larger than max \(3145728 vs\. 2097152\)"\}\}$/,
      );
      // A chunked body that outgrows the limit while it is read is refused the same way.
      const chunk = `${(64 * 1024).toString(16)}\r\n${"a".repeat(64 * 1024)}\r\n`;
      const big = await exchange(rpc, `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.repeat(40)}`, 5000);
      expect(big).toMatch(/^HTTP\/1\.1 413 /);
    } finally {
      await s.close();
    }
  });

  it("the defaults (10 s heads, 30 s requests, 5 s keep-alive, 512 connections; 16 KiB/64 KiB, RPC 64 KiB/2 MiB), measured: slowloris and idle closed at 10 s", async () => {
    expect(HTTP_DEFAULTS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxHeaderBytes: 16_384,
      maxBodyBytes: 65_536,
      maxConnections: 512,
    });
    expect(RPC_HTTP_DEFAULTS).toEqual({ ...HTTP_DEFAULTS, maxHeaderBytes: 65_536, maxBodyBytes: 2_097_152 });
    expect(checkingIntervalMs(HTTP_DEFAULTS)).toBe(1000);
    const s = await startAll();
    try {
      for (const [server, headerBytes] of [
        [s.queries.rest!.server, 16_384],
        [s.rpc.server, 65_536],
      ] as const) {
        expect(server.headersTimeout).toBe(10_000);
        expect(server.requestTimeout).toBe(30_000);
        expect(server.keepAliveTimeout).toBe(5_000);
        expect((server as unknown as { maxHeaderSize: number }).maxHeaderSize).toBe(headerBytes);
        expect((server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval).toBe(1000);
      }
      const t = await attack(s, HTTP_DEFAULTS);
      console.log(`closed after (defaults): ${summary(t)}`);
    } finally {
      await s.close();
    }
  }, 25_000);

  it("bad limits are refused when the server is created", async () => {
    expect(() => resolveHttpLimits({ headersTimeoutMs: 0 })).toThrow("headersTimeoutMs must be a positive integer, got 0");
    expect(() => resolveHttpLimits({ maxConnections: 1.5 })).toThrow("maxConnections must be a positive integer");
    expect(() => resolveHttpLimits({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).toThrow("must not exceed requestTimeoutMs");
    await expect(startAll({ http: { maxBodyBytes: -1 } })).rejects.toThrow("maxBodyBytes must be a positive integer, got -1");
  });
});
