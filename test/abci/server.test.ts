/** The socket server over real loopback TCP and unix sockets, with a hand-written client. */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  AbciConsensusHalt,
  AbciHalt,
  DEFAULT_RESPONSES,
  encodeUvarint,
  startAbciServer,
  type AbciApplication,
  type Logger,
  type AbciServer,
  type AbciServerOptions,
} from "../../bindings/abci/index.js";
import { TestClient, kindOf, within } from "./client.js";

const dir = mkdtempSync(join(tmpdir(), "abci-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const servers: AbciServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(app: AbciApplication, options: Partial<AbciServerOptions> = {}) {
  const logger = recordingLogger();
  const server = await startAbciServer({ address: "tcp://127.0.0.1:0", app, logger, ...options });
  servers.push(server);
  const client = async () => {
    const c = await TestClient.connect(server.address);
    clients.push(c);
    return c;
  };
  return { server, logger, client };
}

/** An app that records every call (method names), for "the app is never called" checks. */
function spyApp(extra: AbciApplication = {}): AbciApplication & { calls: string[] } {
  const calls: string[] = [];
  const app: AbciApplication & { calls: string[] } = { calls };
  const methods = ["echo", "info", "initChain", "query", "checkTx", "commit", "prepareProposal", "processProposal", "finalizeBlock"] as const;
  for (const m of methods) {
    const own = extra[m] as ((r: unknown) => unknown) | undefined;
    (app as unknown as Record<string, unknown>)[m] = (req: unknown) => {
      calls.push(m);
      return own ? own.call(extra, req) : (DEFAULT_RESPONSES[m] as (r: unknown) => unknown)(req);
    };
  }
  return app;
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("serving requests", () => {
  it("answers echo, info, flush and the defaults over TCP", async () => {
    const { client, server } = await serve({ info: () => ({ version: "1.2.3", lastBlockHeight: 5n, lastBlockAppHash: Uint8Array.of(1, 2) }) });
    expect(server.address).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const c = await client();
    c.send({ echo: { message: "hello" } }, { info: { version: "0.38.25" } }, { processProposal: {} }, { flush: {} });
    const [echo, info, pp, flush] = await c.responses(4);
    expect(echo.echo).toEqual({ message: "hello" });
    expect(info.info).toMatchObject({ version: "1.2.3", lastBlockHeight: 5n, lastBlockAppHash: Uint8Array.of(1, 2) });
    expect(pp.processProposal).toEqual({ status: 1 });
    expect(kindOf(flush)).toBe("flush");
  });

  it("serves a unix socket and removes a stale socket file first", async () => {
    const path = join(dir, "stale.sock");
    // A process that dies while listening leaves its socket file behind.
    const child = spawn(process.execPath, ["-e", `require("net").createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`]);
    await new Promise((r) => child.once("exit", r));
    expect(existsSync(path)).toBe(true);
    const { client, server } = await serve({}, { address: `unix://${path}` });
    expect(server.address).toBe(`unix://${path}`);
    const c = await client();
    c.send({ echo: { message: "over unix" } }, { flush: {} });
    expect((await c.responses(2))[0].echo?.message).toBe("over unix");
    // A socket another server still answers on, or a plain file, is never taken over.
    await expect(startAbciServer({ address: path, app: {} })).rejects.toThrow(/another process is listening/);
    const plain = join(dir, "plain");
    writeFileSync(plain, "x");
    await expect(startAbciServer({ address: `unix://${plain}`, app: {} })).rejects.toThrow(/not a socket/);
    await server.close();
    expect(existsSync(path)).toBe(false);
  });

  it("reassembles requests that arrive one byte per TCP segment", async () => {
    const { client } = await serve({});
    const c = await client();
    const bytes = TestClient.frames({ echo: { message: "byte by byte" } }, { checkTx: { tx: Uint8Array.of(1, 2, 3) } }, { flush: {} });
    for (const b of bytes) {
      c.writeRaw([b]);
      await delay(1); // separate writes with Nagle off: the server sees separate reads
    }
    const res = await c.responses(3);
    expect(res.map(kindOf)).toEqual(["echo", "checkTx", "flush"]);
    expect(res[0].echo?.message).toBe("byte by byte");
  });

  it("answers several requests sent in one write, in order", async () => {
    const app = spyApp();
    const { client } = await serve(app);
    const c = await client();
    const requests = [
      { info: {} },
      { checkTx: { tx: Uint8Array.of(1) } },
      { query: { path: "/x" } },
      { echo: { message: "e" } },
      { commit: {} },
      { flush: {} },
    ];
    c.send(...requests);
    expect((await c.responses(6)).map(kindOf)).toEqual(["info", "checkTx", "query", "echo", "commit", "flush"]);
    expect(app.calls).toEqual(["info", "checkTx", "query", "echo", "commit"]);
  });

  it("keeps responses in request order, and flush behind them, when an earlier call is slower", async () => {
    let running = 0;
    let maxRunning = 0;
    const order: string[] = [];
    const app: AbciApplication = {
      async checkTx(req) {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await delay(req.tx[0]); // the first tx takes longest
        order.push(`tx${req.tx[1]}`);
        running--;
        return { code: req.tx[1] };
      },
      query: async (req) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await delay(5);
        order.push(`q:${req.path}`);
        running--;
        return { log: req.path };
      },
    };
    const { client } = await serve(app);
    const a = await client();
    const b = await client();
    a.send({ checkTx: { tx: Uint8Array.of(80, 1) } }, { checkTx: { tx: Uint8Array.of(0, 2) } }, { flush: {} });
    b.send({ query: { path: "b1" } }, { flush: {} });
    const resA = await a.responses(3);
    expect(resA.map(kindOf)).toEqual(["checkTx", "checkTx", "flush"]);
    expect(resA.map((r) => r.checkTx?.code)).toEqual([1, 2, undefined]);
    expect((await b.responses(2)).map(kindOf)).toEqual(["query", "flush"]);
    // One app call at a time across connections, in arrival order.
    expect(maxRunning).toBe(1);
    expect(order.slice(0, 2)).toEqual(["tx1", "tx2"]);
    expect(order).toContain("q:b1");
  });

  it("keeps up with thousands of pipelined requests (reading pauses and resumes), answering all in order", async () => {
    const { client } = await serve({ checkTx: async (req) => ({ code: req.tx[0] * 256 + req.tx[1] }) });
    const c = await client();
    const n = 3000;
    const reqs = Array.from({ length: n }, (_, i) => ({ checkTx: { tx: Uint8Array.of(i >> 8, i & 0xff) } }));
    c.send(...reqs, { flush: {} });
    const res = await c.responses(n + 1, 20_000);
    expect(res.slice(0, n).map((r) => r.checkTx?.code ?? 0)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(kindOf(res[n])).toBe("flush");
  });

  it("answers everything a peer sent before it shut down its side, then closes", async () => {
    const { client } = await serve({ checkTx: async () => (await delay(30), { code: 0 }) });
    const c = await client();
    c.send({ checkTx: {} }, { checkTx: {} }, { flush: {} });
    c.socket.end();
    expect((await c.responses(3)).map(kindOf)).toEqual(["checkTx", "checkTx", "flush"]);
    await within(c.closed, 5000, "the server to close");
  });
});

describe("malformed input closes only that connection", () => {
  const cases: Array<[string, number[], RegExp]> = [
    ["an oversized length prefix", [...encodeUvarint(1025)], /frame length 1025 exceeds the maximum of 1024 bytes/],
    ["a length varint longer than 10 bytes", new Array(11).fill(0x80), /length prefix is longer than 10 bytes/],
    ["protobuf that does not decode", [3, 0x0a, 0x05, 0x01], /runs past the end of the message/],
    ["a method payload that does not decode", [5, 0xa2, 0x01, 0x02, 0x0a, 0x09], /cannot decode the finalizeBlock request/],
    ["an empty Request (no oneof set)", [0], /request has no known method set/],
    ["a v0.34 DeliverTx", [4, 0x4a, 0x02, 0x0a, 0x00], /no known method set \(fields present: 9\)/],
  ];

  it.each(cases)("%s", async (_what, bytes, reason) => {
    const app = spyApp();
    const { client, logger, server } = await serve(app, { maxFrameBytes: 1024 });
    const bystander = await client();
    const bad = await client();
    bad.writeRaw(bytes);
    await within(bad.closed, 5000, "the bad connection to close");
    const warning = logger.lines.find((l) => l.level === "warn");
    expect(warning?.msg).toMatch(reason);
    expect(warning?.msg).toMatch(/^closing the ABCI connection: /);
    expect(app.calls).toEqual([]);
    // The server and the other connections carry on.
    bystander.send({ echo: { message: "still here" } }, { flush: {} });
    expect((await bystander.responses(2))[0].echo?.message).toBe("still here");
    const fresh = await client();
    fresh.send({ info: {} }, { flush: {} });
    expect((await fresh.responses(2)).map(kindOf)).toEqual(["info", "flush"]);
    expect(app.calls).toEqual(["echo", "info"]);
    expect(server.connectionCount).toBe(2);
  });

  it("a frame truncated by the end of the stream", async () => {
    const app = spyApp();
    const { client, logger } = await serve(app);
    const c = await client();
    const frame = TestClient.frames({ info: { version: "x" } });
    c.writeRaw([...frame.subarray(0, frame.length - 2)]);
    await delay(20);
    c.socket.end();
    await within(c.closed, 5000, "the connection to close");
    expect(logger.lines.find((l) => l.level === "warn")?.msg).toMatch(/stream ended in the middle of a frame \(\d+ bytes of a \d+-byte message\)/);
    expect(app.calls).toEqual([]);
  });

  it("valid requests before the garbage are still executed, never the garbage", async () => {
    const app = spyApp();
    const { client } = await serve(app);
    const c = await client();
    c.writeRaw([...TestClient.frames({ checkTx: {} }), 0]);
    await within(c.closed, 5000, "the connection to close");
    await delay(20);
    expect(app.calls).toEqual(["checkTx"]);
  });
});

describe("application failure stops the server", () => {
  it("answers Response.exception, closes every connection and resolves stopped", async () => {
    const app = spyApp({
      finalizeBlock: async () => {
        // Fail only once a CheckTx from another connection is queued behind this call (both are set by then).
        mempool.send({ checkTx: {} }, { flush: {} });
        while (!logger.lines.some((l) => l.fields?.method === "checkTx")) await delay(2);
        throw new Error("state is corrupt");
      },
    });
    const { client, server, logger } = await serve(app);
    const query = await client();
    const mempool = await client();
    const consensus = await client();
    consensus.send({ finalizeBlock: { height: 9n } }, { flush: {} });
    const [res] = await consensus.responses(1);
    expect(res.exception).toEqual({ error: "state is corrupt" });
    const closeOrder: string[] = [];
    const track = (c: TestClient, name: string) => c.closed.then(() => closeOrder.push(name));
    await within(Promise.all([track(query, "query"), track(mempool, "mempool"), track(consensus, "consensus")]), 5000, "every connection to close");
    // The failing connection goes first, so that CometBFT reports the exception rather than an EOF elsewhere.
    expect(closeOrder[0]).toBe("consensus");
    const stopped = await within(server.stopped, 5000, "stopped");
    expect(stopped.reason).toBe("app-error");
    expect(stopped.method).toBe("finalizeBlock");
    expect(stopped.error?.message).toBe("state is corrupt");
    expect(app.calls).toEqual(["finalizeBlock"]);
    expect(mempool.pending).toEqual([]);
    expect(logger.lines.some((l) => l.level === "error" && /failed in finalizeBlock/.test(l.msg))).toBe(true);
    await expect(TestClient.connect(server.address)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("reports an AbciHalt as a halt, with its exit code", async () => {
    const { client, server } = await serve({
      finalizeBlock: (req) => {
        throw new AbciHalt(`UPGRADE "v2" NEEDED at height: ${req.height}`, { exitCode: 20 });
      },
    });
    const c = await client();
    c.send({ finalizeBlock: { height: 12n } }, { flush: {} });
    expect((await c.responses(1))[0].exception?.error).toBe('UPGRADE "v2" NEEDED at height: 12');
    const stopped = await within(server.stopped, 5000, "stopped");
    expect(stopped.reason).toBe("halt");
    expect(stopped.error).toBeInstanceOf(AbciHalt);
    expect((stopped.error as AbciHalt).exitCode).toBe(20);
  });

  it.each([
    [
      "a synchronous throw",
      {
        checkTx: () => {
          throw new Error("sync");
        },
      },
      { checkTx: {} },
      "sync",
    ],
    [
      "processProposal UNKNOWN",
      { processProposal: () => ({}) },
      { processProposal: {} },
      "processProposal answered status 0; it must be ACCEPT (1) or REJECT (2)",
    ],
    [
      "too few tx results",
      { finalizeBlock: () => ({ txResults: [] }) },
      { finalizeBlock: { txs: [Uint8Array.of(1)] } },
      "finalizeBlock answered 0 tx results for 1 transactions",
    ],
  ] as const)("treats %s as an application error", async (_what, app, request, message) => {
    const { client, server } = await serve(app);
    const c = await client();
    c.send(request as never, { flush: {} });
    expect((await c.responses(1))[0].exception?.error).toBe(message);
    expect((await within(server.stopped, 5000, "stopped")).reason).toBe("app-error");
  });
});

describe("a consensus halt stops CometBFT's consensus, not the server", () => {
  it("answers FinalizeBlock with one tx result too many, keeps every connection and the queue, and resolves consensusHalt", async () => {
    const app = spyApp({
      finalizeBlock: (req) => {
        throw new AbciConsensusHalt(`UPGRADE "v2" NEEDED at height: ${req.height}`, { exitCode: 20 });
      },
    });
    const { client, server, logger } = await serve(app);
    const query = await client();
    const consensus = await client();
    consensus.send({ finalizeBlock: { height: 12n, txs: [Uint8Array.of(1), Uint8Array.of(2)] } }, { flush: {} });
    const [res] = await consensus.responses(1);
    expect(res.exception).toBeUndefined();
    // CometBFT v0.38 refuses a result whose count differs from the block's transactions, before it stores anything.
    expect(res.finalizeBlock?.txResults).toHaveLength(3);
    expect(res.finalizeBlock?.txResults[0]).toMatchObject({ code: 1, codespace: "halt", log: 'UPGRADE "v2" NEEDED at height: 12' });
    expect(res.finalizeBlock?.appHash).toEqual(new Uint8Array(0));
    const halt = await within(server.consensusHalt, 5000, "consensusHalt");
    expect(halt).toBeInstanceOf(AbciConsensusHalt);
    expect(halt).toBeInstanceOf(AbciHalt);
    expect(halt.exitCode).toBe(20);
    expect(logger.lines.some((l) => l.level === "error" && /halted consensus in finalizeBlock/.test(l.msg))).toBe(true);

    // Everything else goes on, on every connection.
    query.send({ query: { path: "/x" } }, { info: {} }, { flush: {} });
    expect((await query.responses(2)).map(kindOf)).toEqual(["query", "info"]);
    consensus.send({ echo: { message: "still here" } }, { flush: {} });
    expect((await consensus.responses(2))[1].echo?.message).toBe("still here");
    expect(server.connectionCount).toBe(2);
    expect(app.calls).toEqual(["finalizeBlock", "query", "info", "echo"]);
    expect((await server.close()).reason).toBe("closed");
  });

  it("is an ordinary halt (an exception) from any other method", async () => {
    const { client, server } = await serve({
      commit: () => {
        throw new AbciConsensusHalt("commit failed", { exitCode: 1 });
      },
    });
    const c = await client();
    c.send({ commit: {} }, { flush: {} });
    expect((await c.responses(1))[0].exception?.error).toBe("commit failed");
    expect((await within(server.stopped, 5000, "stopped")).reason).toBe("halt");
  });
});

describe("close()", () => {
  it("stops listening, ends connections, waits for a running call, and reports closed", async () => {
    let finished = false;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const { client, server } = await serve({
      commit: async () => {
        started();
        await delay(100);
        finished = true;
        return {};
      },
    });
    const c = await client();
    c.send({ commit: {} });
    await running;
    const result = await server.close();
    expect(finished).toBe(true);
    expect(result).toEqual({ reason: "closed" });
    expect(await server.stopped).toEqual({ reason: "closed" });
    expect(c.isOpen).toBe(false);
    expect(server.connectionCount).toBe(0);
    expect(await server.close()).toEqual({ reason: "closed" }); // idempotent
  });
});
