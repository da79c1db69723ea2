/**
 * The gRPC server takes the HTTP limits to HTTP/2 (bindings/services/grpc-connections.ts,
 * docs/spec/interfaces.md §12.2), measured with real sockets and real HTTP/2 sessions on loopback:
 * connections that send nothing or trickle the preface are closed at the headers timeout, sessions without a
 * call at the keep-alive timeout, a call whose request never completes ends with DEADLINE_EXCEEDED at the
 * request timeout, and a connection over the cap is closed at once — while real clients keep being answered.
 *
 * Margin as in http-limits.test.ts: timers plus socket teardown on a busy 2-core machine, 1 s.
 */
import * as grpc from "@grpc/grpc-js";
import { connect as connectHttp2, type ClientHttp2Session } from "node:http2";
import { afterAll, describe, expect, it } from "vitest";
import { HTTP_DEFAULTS, resolveHttpLimits } from "../../bindings/services/index.js";
import { destroyAll, idleClients, type WatchedSocket } from "../support/sockets.js";
import { removeTempDirs } from "../support/temp.js";
import { startAll, type AllServers } from "./servers.js";

afterAll(removeTempDirs);

const MARGIN_MS = 1000;
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
const CURRENT_PLAN = "/cosmos.upgrade.v1beta1.Query/CurrentPlan";
const grpcPort = (s: AllServers) => s.queries.grpc!.port;
/**
 * grpc-js closes a session idle for the keep-alive timeout at its timer, but re-arms the timer once more when
 * the wall clock says it fired a millisecond early: so between one and two timeouts.
 */
const IDLE_UPPER = (keepAliveMs: number) => 2 * keepAliveMs + MARGIN_MS;

/** `n` connections that send the HTTP/2 preface one byte every `intervalMs`. */
async function prefaceTricklers(port: number, n: number, t0: number, intervalMs = 300): Promise<WatchedSocket[]> {
  const out = await idleClients(port, n, t0);
  for (const w of out) {
    let i = 0;
    const timer = setInterval(() => (w.socket.writable && i < PREFACE.length ? w.socket.write(PREFACE.subarray(i, ++i)) : undefined), intervalMs);
    void w.closed.then(() => clearInterval(timer));
  }
  return out;
}

/** A real HTTP/2 session and when it closed (ms after t0). */
async function session(port: number, t0: number): Promise<{ session: ClientHttp2Session; closed: Promise<number> }> {
  const s = connectHttp2(`http://127.0.0.1:${port}`);
  s.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    s.once("connect", () => resolve());
    s.once("error", reject);
  });
  return { session: s, closed: new Promise((resolve) => s.once("close", () => resolve(performance.now() - t0))) };
}

/** CurrentPlan over a fresh grpc-js client; resolves with the response's byte length. */
async function currentPlan(port: number): Promise<number> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    return await new Promise<number>((resolve, reject) =>
      client.makeUnaryRequest(
        CURRENT_PLAN,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        (err, res) => (err ? reject(err) : resolve(res!.length)),
      ),
    );
  } finally {
    client.close();
  }
}

/** Opens CurrentPlan on `s` and sends its request one byte every `intervalMs`, never ending it. */
function tricklingCall(
  s: ClientHttp2Session,
  t0: number,
  intervalMs = 200,
): Promise<{ status: string | undefined; message: string | undefined; after: number }> {
  const req = s.request({ ":method": "POST", ":path": CURRENT_PLAN, "content-type": "application/grpc", te: "trailers" });
  req.on("error", () => undefined);
  const body = Buffer.from([0, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]); // declares 8 bytes, sent one at a time
  let i = 0;
  const timer = setInterval(() => (i < body.length && req.writable ? req.write(body.subarray(i, ++i)) : undefined), intervalMs);
  return new Promise((resolve) => {
    let head: Record<string, unknown> = {};
    let settled = false;
    req.on("response", (h) => (head = h));
    const done = (t: Record<string, unknown>) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      const all = { ...head, ...t };
      resolve({ status: all["grpc-status"] as string | undefined, message: all["grpc-message"] as string | undefined, after: performance.now() - t0 });
    };
    req.on("response", (h) => h["grpc-status"] !== undefined && done({})); // trailers-only
    req.on("trailers", done);
    req.on("close", () => done({}));
    req.resume();
  });
}

describe("gRPC: the HTTP limits on HTTP/2", () => {
  it("preface-less and trickled-preface connections close at the headers timeout; an idle session at the keep-alive timeout; real calls go on", async () => {
    const limits = { headersTimeoutMs: 1500, requestTimeoutMs: 3000, keepAliveTimeoutMs: 4000 };
    const s = await startAll({ http: limits });
    const port = grpcPort(s);
    try {
      const t0 = performance.now();
      const idle = await idleClients(port, 10, t0);
      const trickle = await prefaceTricklers(port, 10, t0);
      const quiet = await session(port, t0); // preface and SETTINGS sent, then no call
      expect(await currentPlan(port)).toBeGreaterThanOrEqual(0); // answered during the attack
      await Promise.all([...idle, ...trickle].map((w) => w.closed));
      const times = [...idle, ...trickle].map((w) => w.closedAfter!);
      expect(Math.min(...times)).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
      expect(Math.max(...times)).toBeLessThanOrEqual(limits.headersTimeoutMs + MARGIN_MS);
      for (const w of trickle) expect(w.received()).not.toContain("HTTP/1.1"); // never mistaken for HTTP/1
      const quietAfter = await quiet.closed;
      expect(quietAfter).toBeGreaterThanOrEqual(limits.keepAliveTimeoutMs - 50);
      expect(quietAfter).toBeLessThanOrEqual(IDLE_UPPER(limits.keepAliveTimeoutMs));
      console.log(
        `gRPC: idle/trickled preface closed after ${Math.round(Math.min(...times))}–${Math.round(Math.max(...times))} ms, idle session after ${Math.round(quietAfter)} ms`,
      );
    } finally {
      await s.close();
    }
  }, 20_000);

  it("a call whose request never completes ends with DEADLINE_EXCEEDED at the request timeout, then its connection is closed", async () => {
    const limits = { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 1000 };
    const s = await startAll({ http: limits });
    try {
      const t0 = performance.now();
      const h2 = await session(grpcPort(s), t0);
      const slow = await tricklingCall(h2.session, t0);
      expect(slow.status).toBe(String(grpc.status.DEADLINE_EXCEEDED));
      expect(decodeURIComponent(slow.message ?? "")).toBe("request not received within 2000 ms");
      expect(slow.after).toBeGreaterThanOrEqual(limits.requestTimeoutMs - 50);
      expect(slow.after).toBeLessThanOrEqual(limits.requestTimeoutMs + MARGIN_MS);
      // The client could go on sending on that stream for ever; the connection is closed as after an HTTP 408.
      const closedAfter = await h2.closed;
      expect(closedAfter).toBeLessThanOrEqual(slow.after + MARGIN_MS);
      expect(await currentPlan(grpcPort(s))).toBeGreaterThanOrEqual(0);
    } finally {
      await s.close();
    }
  }, 20_000);

  it("a connection over maxConnections is closed at once; the open ones keep working; room again once some close", async () => {
    const s = await startAll({ http: { maxConnections: 20 } });
    const port = grpcPort(s);
    try {
      const t0 = performance.now();
      const held = await Promise.all(Array.from({ length: 20 }, () => session(port, t0)));
      const [over] = await idleClients(port, 1, t0);
      await over.closed;
      expect(over.closedAfter! - t0).toBeLessThan(1000);
      expect(over.received()).toBe("");
      // A call on a held session is answered.
      const call = held[0].session.request({ ":method": "POST", ":path": CURRENT_PLAN, "content-type": "application/grpc", te: "trailers" });
      const status = await new Promise<string>((resolve) => {
        call.on("trailers", (t) => resolve(String(t["grpc-status"])));
        call.resume();
        call.end(Buffer.from([0, 0, 0, 0, 0]));
      });
      expect(status).toBe("0");
      for (const h of held.slice(0, 5)) h.session.destroy();
      await Promise.all(held.slice(0, 5).map((h) => h.closed));
      await new Promise((r) => setTimeout(r, 50));
      expect(await currentPlan(port)).toBeGreaterThanOrEqual(0);
      for (const h of held) h.session.destroy();
      destroyAll([over]);
    } finally {
      await s.close();
    }
  });

  it("the defaults: a session without a call closed at 5 s (10 s at worst), no preface by 10 s; the limits are checked as the REST gateway's", async () => {
    expect(() => resolveHttpLimits({ keepAliveTimeoutMs: 0 })).toThrow("keepAliveTimeoutMs must be a positive integer, got 0");
    await expect(startAll({ http: { requestTimeoutMs: 1.5 } })).rejects.toThrow("requestTimeoutMs must be a positive integer, got 1.5");
    const s = await startAll();
    try {
      const t0 = performance.now();
      const idle = await idleClients(grpcPort(s), 5, t0);
      const quiet = await session(grpcPort(s), t0);
      const after = await quiet.closed;
      expect(after).toBeGreaterThanOrEqual(HTTP_DEFAULTS.keepAliveTimeoutMs - 50);
      expect(after).toBeLessThanOrEqual(IDLE_UPPER(HTTP_DEFAULTS.keepAliveTimeoutMs));
      await Promise.all(idle.map((w) => w.closed));
      // The idle timer (5 s, or 10 s when re-armed) or the preface deadline (10 s), whichever comes first.
      for (const w of idle) {
        expect(w.closedAfter!).toBeGreaterThanOrEqual(HTTP_DEFAULTS.keepAliveTimeoutMs - 50);
        expect(w.closedAfter!).toBeLessThanOrEqual(HTTP_DEFAULTS.headersTimeoutMs + MARGIN_MS);
      }
    } finally {
      await s.close();
    }
  }, 20_000);
});
