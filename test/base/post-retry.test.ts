/** base/post-retry.ts: the one webhook sending (POST, timeout, retries with a doubling pause, stop), against a real server on loopback. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { postWithRetries, type PostRetryOptions } from "../../bindings/base/post-retry.js";

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

interface Seen {
  method: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A receiver answering `statuses` in turn (the last one from then on), or never answering for 0. */
async function receiver(statuses: number[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", headers: req.headers, body });
      const status = statuses[Math.min(seen.length - 1, statuses.length - 1)];
      if (status !== 0) res.writeHead(status).end("answer");
    });
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`, seen };
}

const base = (over: Partial<PostRetryOptions> = {}): PostRetryOptions => ({
  body: '{"event":"halt"}',
  headers: { "content-type": "application/json", "idempotency-key": "a1" },
  retries: 2,
  timeoutMs: 5000,
  backoffMs: 10,
  maxBackoffMs: 20,
  signal: new AbortController().signal,
  ...over,
});

describe("postWithRetries", () => {
  it("POSTs the body with the headers; a failed attempt is told and retried until a 2xx", async () => {
    const r = await receiver([503, 500, 204]);
    const failures: string[] = [];
    const out = await postWithRetries(r.url, base({ onFailure: (n, p) => failures.push(`${n}: ${p}`) }));
    expect(out).toEqual({ kind: "sent", attempts: 3, status: 204 });
    expect(failures).toEqual(["1: HTTP 503", "2: HTTP 500"]);
    expect(r.seen.map((s) => [s.method, s.body, s.headers["content-type"], s.headers["idempotency-key"]])).toEqual(
      Array(3).fill(["POST", '{"event":"halt"}', "application/json", "a1"]),
    );
  });

  it("gives up after retries + 1 attempts with the last problem: an answer, a refused connection, no answer in time", async () => {
    const r = await receiver([500]);
    expect(await postWithRetries(r.url, base({ retries: 1 }))).toEqual({ kind: "failed", attempts: 2, problem: "HTTP 500" });
    expect(r.seen).toHaveLength(2);

    const closed = await receiver([200]);
    const s = servers.pop()!;
    await new Promise((done) => s.close(done));
    expect(await postWithRetries(closed.url, base({ retries: 0 }))).toEqual({ kind: "failed", attempts: 1, problem: "ECONNREFUSED" });

    const silent = await receiver([0]);
    expect(await postWithRetries(silent.url, base({ retries: 1, timeoutMs: 200 }))).toEqual({
      kind: "failed",
      attempts: 2,
      problem: "no answer within 200 ms",
    });
  });

  it("stops when the signal fires: during an attempt, during a pause, or before the first", async () => {
    const silent = await receiver([0]);
    const during = new AbortController();
    const p = postWithRetries(silent.url, base({ signal: during.signal }));
    while (silent.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    during.abort();
    expect(await p).toEqual({ kind: "stopped", attempts: 1, problem: "" });

    const failing = await receiver([500]);
    const pausing = new AbortController();
    const q = postWithRetries(failing.url, base({ backoffMs: 60_000, maxBackoffMs: 60_000, signal: pausing.signal, onFailure: () => pausing.abort() }));
    expect(await q).toEqual({ kind: "stopped", attempts: 1, problem: "HTTP 500" });
    expect(failing.seen).toHaveLength(1);

    expect(await postWithRetries(failing.url, base({ signal: AbortSignal.abort() }))).toEqual({ kind: "stopped", attempts: 0, problem: "" });
    expect(failing.seen).toHaveLength(1);
  });
});
