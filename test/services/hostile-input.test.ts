/**
 * Class "every error a server turns into a response" (docs/spec/interfaces.md §12.1; the instance that found it:
 * `GET /ui/<256 × a>` once answered 500 with the package's absolute path in an ENAMETOOLONG message): hostile
 * paths and bodies on every route of every server — the REST gateway with the devnet's routes and its /ui
 * page, the devnet's CometBFT RPC (URI and JSON-RPC forms), gRPC with reflection, the ABCI router — never
 * produce an unexpected error, and no answer carries an absolute path of this machine, a stack frame,
 * exception text or a file's content. Errors that are unexpected are answered `internal error` on every
 * surface and reported with their detail.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initDevnet, silentLogger, startDevnet } from "../../bindings/apps/devnet/index.js";
import { INTERNAL_MESSAGE, serviceNames, QUERY_METHODS } from "../../bindings/services/index.js";
import { HOSTILE_SEGMENTS, METHODS, hostilePaths, leaksIn } from "../support/leaks.js";
import { ROOT } from "../support/paths.js";
import { exchange } from "../support/sockets.js";
import { removeTempDirs, tempDir } from "../support/temp.js";
import { grpcClient, rawUnary } from "./helpers.js";
import { SECRET, startAll, type AllServers } from "./servers.js";

afterAll(removeTempDirs);

interface Answer {
  request: string;
  status: number;
  text: string;
}

/** One raw HTTP/1.1 request (the path sent byte for byte), the whole answer read until the server closes. */
async function ask(port: number, method: string, path: string, o: { body?: string | Buffer; headers?: string } = {}): Promise<Answer> {
  const body = o.body === undefined ? Buffer.alloc(0) : Buffer.from(o.body);
  const head = `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${o.headers ?? ""}${body.length || method === "POST" ? `Content-Length: ${body.length}\r\n` : ""}\r\n`;
  const text = await exchange(port, Buffer.concat([Buffer.from(head, "latin1"), body]), 10_000);
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  return { request: `${method} ${path.length > 200 ? `${path.slice(0, 200)}…(${path.length})` : path}`, status: m ? Number(m[1]) : 0, text };
}

/** One message on a bidi stream (server reflection): the error the server ends it with, if any. */
function reflectionCall(client: grpc.Client, path: string, body: Buffer, md: grpc.Metadata): Promise<{ err: grpc.ServiceError | null }> {
  return new Promise((resolve) => {
    const id = (b: Buffer) => b;
    const call = client.makeBidiStreamRequest(path, id, id, md, { deadline: Date.now() + 10_000 });
    call.on("data", () => undefined);
    call.on("error", (err: grpc.ServiceError) => resolve({ err }));
    call.on("end", () => resolve({ err: null }));
    call.write(body);
    call.end();
  });
}

/** Runs `jobs` with at most `n` at a time. */
async function pool<T>(jobs: (() => Promise<T>)[], n = 16): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

let all: AllServers;
beforeAll(async () => {
  all = await startAll({ http: { maxBodyBytes: 1024 * 1024 } });
});
afterAll(async () => {
  await all?.close();
});

/** Every answer clean: no leak (machine paths, the test's own dirs, the secret), no header injection. */
function expectClean(answers: Answer[]): void {
  const extra = [all.parent, all.uiDir, SECRET, ROOT];
  const dirty = answers.flatMap((a) => {
    const found = leaksIn(a.text, extra);
    if (/\r\nX-Injected/i.test(a.text.split("\r\n\r\n")[0])) found.push("an injected header");
    return found.length ? [`${a.request} → ${a.status}: ${found.join(", ")}`] : [];
  });
  expect(dirty).toEqual([]);
}

const P = "/cosmos/upgrade/v1beta1";
const T = "/cosmos/base/tendermint/v1beta1";

describe("on a real devnet (the servers as `xupgrade devnet start` wires them)", () => {
  it("the ENAMETOOLONG instance and hostile paths: 404/400/431, no path of the machine, RPC and REST", async () => {
    const home = tempDir();
    await initDevnet({ home, validators: 1, blockTime: "50ms" });
    const node = await startDevnet({ home, rpc: "127.0.0.1:0", rest: "127.0.0.1:0", grpc: "127.0.0.1:0", logger: silentLogger });
    try {
      const rest = Number(new URL(node.restUrl).port);
      const rpc = Number(new URL(node.rpcUrl).port);
      const answers = await pool([
        ...[`/ui/${"a".repeat(256)}`, `/ui/assets/${"a".repeat(256)}`].map((p) => () => ask(rest, "GET", p)),
        ...hostilePaths("/ui").map((p) => () => ask(rest, "GET", p)),
        ...hostilePaths("/ui/assets").map((p) => () => ask(rest, "GET", p)),
        ...hostilePaths("").map((p) => () => ask(rpc, "GET", p)),
        ...HOSTILE_SEGMENTS.map((seg) => () => ask(rpc, "GET", `/abci_query?path="/${seg}"&data=0x${"ff".repeat(4)}&height=${seg}`)),
      ]);
      expect(answers.slice(0, 2).map((a) => a.status)).toEqual([404, 404]);
      for (const a of answers) expect([200, 400, 404, 431, 500, 501]).toContain(a.status);
      const extra = [home, ROOT];
      expect(answers.flatMap((a) => (leaksIn(a.text, extra).length ? [`${a.request} → ${a.status}: ${leaksIn(a.text, extra).join(", ")}`] : []))).toEqual([]);
      expect(answers.filter((a) => a.text.includes(INTERNAL_MESSAGE)).map((a) => a.request)).toEqual([]);
    } finally {
      await node.stop();
      await node.done;
    }
  }, 60_000);
});

describe("REST gateway: hostile paths on every route", () => {
  it("the ENAMETOOLONG instance: /ui/<256 × a> and /ui/assets/<256 × a> are 404 with no path in them", async () => {
    for (const path of [`/ui/${"a".repeat(256)}`, `/ui/assets/${"a".repeat(256)}`]) {
      const a = await ask(all.queries.rest!.port, "GET", path);
      expect(a.status).toBe(404);
      expect(a.text).not.toContain("ENAMETOOLONG");
      expectClean([a]);
    }
  });

  it("every route × every hostile segment (GET), and every method on a few: no internal error, nothing leaked, nothing reported", async () => {
    const port = all.queries.rest!.port;
    const prefixes = [
      `${P}/applied_plan`,
      `${P}/upgraded_consensus_state`,
      `${P}/module_versions`,
      `${P}/current_plan`,
      `${P}/authority`,
      `${T}/blocks`,
      `${T}/syncing`,
      "/ui",
      "/ui/assets",
      "/cosmos",
      "",
    ];
    const jobs: (() => Promise<Answer>)[] = [];
    for (const prefix of prefixes) for (const path of hostilePaths(prefix)) jobs.push(() => ask(port, "GET", path));
    for (const seg of HOSTILE_SEGMENTS) {
      jobs.push(() => ask(port, "GET", `${P}/module_versions?module_name=${seg}`));
      jobs.push(() => ask(port, "GET", `/ui?${seg}=${seg}`));
      jobs.push(() => ask(port, "GET", `${P}/authority`, { headers: `x-cosmos-block-height: ${seg}\r\n` }));
    }
    for (const prefix of prefixes) {
      for (const method of METHODS)
        for (const seg of ["..", "%00", "a".repeat(300)]) jobs.push(() => ask(port, method, `${prefix}/${seg}`, { body: method === "POST" ? "x" : undefined }));
    }
    // Raw bytes no client would percent-encode: invalid UTF-8, NUL, a backslash, a tab.
    for (const raw of ["/ui/\xff\xfe", "/ui/a\x00b", "/ui/..\\..\\etc", "/ui/a\tb", `${P}/applied_plan/\xc0\xae`]) jobs.push(() => ask(port, "GET", raw));
    const answers = await pool(jobs);
    expect(answers.length).toBeGreaterThan(500);
    // 500 is the gateway's status for SDK errors (code 2, e.g. an unknown module, a bad height header); an
    // unexpected error (code 13) never happens.
    const odd = answers.filter((a) => ![200, 204, 302, 400, 404, 405, 413, 431, 500, 501].includes(a.status) || a.text.includes('{"code":13,'));
    expect(odd.map((a) => `${a.request} → ${a.text.slice(0, 300)}`)).toEqual([]);
    // The /ui routes answer a hostile name with 404 (or 400/405/431), never a file.
    for (const a of answers.filter((x) => /^GET \/ui\/(assets\/)?[^?]/.test(x.request))) expect([400, 404, 431, 501]).toContain(a.status);
    expectClean(answers);
    expect(all.reported).toEqual([]);
    // Still serving.
    expect((await ask(port, "GET", "/ui/index.html")).status).toBe(200);
    expect((await ask(port, "GET", "/ui/assets/core-1.wasm")).status).toBe(200);
  }, 60_000);
});

describe("devnet RPC: hostile URIs and JSON-RPC bodies", () => {
  const METHODS_WITH_ARGS: Record<string, string[]> = {
    abci_query: ["path", "data", "height", "prove"],
    blockchain: ["minHeight", "maxHeight"],
    block: ["height"],
    block_results: ["height"],
    commit: ["height"],
    validators: ["height", "page", "per_page"],
    unconfirmed_txs: ["limit"],
    broadcast_tx_sync: ["tx"],
    broadcast_tx_async: ["tx"],
    broadcast_tx_commit: ["tx"],
    tx: ["hash", "prove"],
    tx_search: ["query", "prove", "page", "per_page", "order_by"],
    status: [],
    health: [],
    abci_info: [],
    net_info: [],
    num_unconfirmed_txs: [],
  };
  const VALUES = [...HOSTILE_SEGMENTS, "99999999999999999999999", "-1", "0x", "0xzz", '"', '"..%2f.."', "-9223372036854775809"];

  it("the URI form: every method × every argument × hostile values; unknown and hostile method names", async () => {
    const port = all.rpc.server.address() as { port: number };
    const jobs: (() => Promise<Answer>)[] = [];
    for (const [m, args] of Object.entries(METHODS_WITH_ARGS)) {
      jobs.push(() => ask(port.port, "GET", `/${m}`));
      for (const arg of args) for (const v of VALUES) jobs.push(() => ask(port.port, "GET", `/${m}?${arg}=${v}`));
    }
    for (const path of hostilePaths("")) jobs.push(() => ask(port.port, "GET", path));
    for (const method of METHODS)
      jobs.push(
        () => ask(port.port, method, "/status"),
        () => ask(port.port, method, "/%00"),
      );
    const answers = await pool(jobs);
    for (const a of answers) expect([200, 204, 400, 404, 405, 413, 431, 500]).toContain(a.status);
    expectClean(answers);
    expect(all.rpcLog.filter((r) => r.level === "error")).toEqual([]);
  }, 60_000);

  it("JSON-RPC: hostile params of every JSON type, garbage and oversized bodies, batches", async () => {
    const port = (all.rpc.server.address() as { port: number }).port;
    const post = (body: string | Buffer) => () => ask(port, "POST", "/", { body, headers: "Content-Type: application/json\r\n" });
    const jobs: (() => Promise<Answer>)[] = [];
    const values: unknown[] = [...VALUES, 1e308, -1, 1.5, { a: 1 }, [1, [2]], null, true, "9".repeat(40)];
    for (const [m, args] of Object.entries(METHODS_WITH_ARGS)) {
      jobs.push(post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: m, params: "a string" })));
      for (const arg of args) for (const v of values) jobs.push(post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: m, params: { [arg]: v } })));
      jobs.push(post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: m, params: values })));
    }
    for (const body of [
      "",
      "{",
      "[]",
      "[1,2,3]",
      '{"method":{}}',
      '{"method":"__proto__"}',
      '{"method":"constructor"}',
      '{"method":"toString"}',
      "null",
      '"x"',
      "[".repeat(20_000),
      Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
    ]) {
      jobs.push(post(body));
    }
    jobs.push(
      post(JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: i % 2 ? "status" : "nope", params: { height: "x" } })))),
    );
    jobs.push(post("x".repeat(2 * 1024 * 1024)));
    const answers = await pool(jobs);
    for (const a of answers) expect([200, 400, 413, 500]).toContain(a.status);
    expect(answers.at(-1)!.status).toBe(413);
    expectClean(answers);
    expect(all.rpcLog.filter((r) => r.level === "error")).toEqual([]);
  }, 60_000);
});

describe("gRPC and ABCI: garbage requests", () => {
  it("every method (and reflection, and an unknown one) with garbage bytes and hostile height headers", async () => {
    const client = grpcClient(all.queries.grpc!.address);
    const names = serviceNames("cosmos");
    const paths = [
      ...QUERY_METHODS.map((m) => names.methodPath(m)),
      "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      "/cosmos.upgrade.v1beta1.Query/Nope",
      "/../../etc/passwd",
    ];
    const bodies = [
      Buffer.from([0xff]),
      Buffer.from([0x0a, 0x05, 0xff, 0xfe, 0xc0, 0xae, 0x00]), // field 1: invalid UTF-8
      Buffer.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x10]), // a length past the end
      Buffer.concat([Buffer.from([0x0a, 0x80, 0x80, 0x40]), Buffer.alloc(1 << 20, 0x61)]), // a 1 MiB name
      Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), // int64 -1
      Buffer.from(SECRET),
    ];
    const failures: string[] = [];
    try {
      for (const path of paths) {
        for (const body of bodies) {
          for (const height of [undefined, "-1", "9".repeat(30), "x", "..%2f"]) {
            const md = new grpc.Metadata();
            if (height !== undefined) md.set("x-cosmos-block-height", height);
            const r = path.includes("Reflection") ? await reflectionCall(client, path, body, md) : await rawUnary(client, path, body, md);
            const text = `${r.err?.code ?? 0} ${r.err?.details ?? ""}`;
            const found = leaksIn(text, [all.parent, ROOT]);
            if (r.err?.code === grpc.status.DEADLINE_EXCEEDED) found.push("no answer before the deadline");
            if (found.length) failures.push(`${path} → ${text.slice(0, 200)}: ${found.join(", ")}`);
          }
        }
      }
    } finally {
      client.close();
    }
    expect(failures).toEqual([]);
    expect(all.reported).toEqual([]);
    // An error echoing a 1 MiB name is cut to fit the trailer (it used to leave the call to its deadline).
    const again = grpcClient(all.queries.grpc!.address);
    const huge = await rawUnary(again, "/cosmos.upgrade.v1beta1.Query/ModuleVersions", bodies[3]);
    again.close();
    expect(huge.err?.code).toBe(grpc.status.UNKNOWN);
    expect(huge.err?.details).toMatch(/^codespace upgrade code 2: module version not found: x\/upgrade: QueryModuleVersions module a+… \(truncated\)$/);
    // Garbage at the HTTP/2 level: the library's own refusal, nothing of ours.
    const raw = await exchange(all.queries.grpc!.port, "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", 3000);
    expect(leaksIn(raw, [ROOT])).toEqual([]);
  }, 60_000);

  it("the ABCI router: hostile paths and garbage data answer with a code and a clean log", () => {
    const logs: string[] = [];
    for (const path of [
      ...HOSTILE_SEGMENTS.map((s) => `/${s}`),
      "/store/upgrade/../../key",
      "/store/../etc/passwd/key",
      "/cosmos.upgrade.v1beta1.Query/AppliedPlan",
      "/store/upgrade/key",
    ]) {
      for (const data of [new Uint8Array([0xff]), new Uint8Array([0x0a, 0x02, 0xc0, 0xae]), new Uint8Array(0)]) {
        for (const height of [0n, 5n, 1000n, -1n]) {
          const r = all.queries.abci.query(path, data, height);
          logs.push(`${path} ${r.code} ${r.codespace} ${r.log}`);
        }
      }
    }
    expect(logs.flatMap((l) => (leaksIn(l, [all.parent, ROOT]).length ? [l] : []))).toEqual([]);
    expect(all.reported).toEqual([]);
  });
});

describe("unexpected errors are answered `internal error` on every surface and reported", () => {
  const secretError = () => Object.assign(new TypeError(`ENOENT: no such file or directory, open '${ROOT}/secret/state.db'`), { code: "ENOENT" });

  it("a keeper that throws: REST 500 {code 13}, gRPC INTERNAL, ABCI undefined/1 internal; the detail reported", async () => {
    const s = await startAll();
    const client = grpcClient(s.queries.grpc!.address);
    try {
      s.keeper.getUpgradePlan = () => {
        throw secretError();
      };
      const rest = await ask(s.queries.rest!.port, "GET", `${P}/current_plan`);
      expect([rest.status, rest.text.split("\r\n\r\n")[1]]).toEqual([500, `{"code":13,"message":"${INTERNAL_MESSAGE}","details":[]}`]);
      const g = await rawUnary(client, "/cosmos.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(0));
      expect([g.err?.code, g.err?.details]).toEqual([grpc.status.INTERNAL, INTERNAL_MESSAGE]);
      const a = s.queries.abci.query("/cosmos.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(0));
      expect([a.codespace, a.code, a.log]).toEqual(["undefined", 1, "internal"]);
      expectCleanOf([rest.text, g.err?.details ?? "", a.log]);
      expect(s.reported.map((r) => r.surface).sort()).toEqual(["abci", "grpc", "rest"]);
      for (const r of s.reported) expect((r.error as Error).message).toContain(`${ROOT}/secret/state.db`);
      // Errors that are part of the wire pass unchanged.
      const wire = await ask(s.queries.rest!.port, "GET", `${P}/module_versions?module_name=foo`);
      expect(wire.text).toContain('"message":"codespace upgrade code 2: module version not found: x/upgrade: QueryModuleVersions module foo not found"');
    } finally {
      client.close();
      await s.close();
    }
  });

  it("a host's height provider that throws, on REST, gRPC and ABCI", async () => {
    let fail = false;
    const s = await startAll({
      heightProvider: () => {
        if (fail) throw secretError();
        return 40n;
      },
    });
    const client = grpcClient(s.queries.grpc!.address);
    try {
      fail = true;
      const rest = await ask(s.queries.rest!.port, "GET", `${P}/authority`);
      expect([rest.status, rest.text.split("\r\n\r\n")[1]]).toEqual([500, `{"code":13,"message":"${INTERNAL_MESSAGE}","details":[]}`]);
      const g = await rawUnary(client, "/cosmos.upgrade.v1beta1.Query/Authority", new Uint8Array(0));
      expect([g.err?.code, g.err?.details]).toEqual([grpc.status.INTERNAL, INTERNAL_MESSAGE]);
      const a = s.queries.abci.query("/cosmos.upgrade.v1beta1.Query/Authority", new Uint8Array(0));
      expect([a.codespace, a.code, a.log]).toEqual(["undefined", 1, "internal"]);
      const viaRpc = await ask((s.rpc.server.address() as { port: number }).port, "GET", '/abci_query?path="/cosmos.upgrade.v1beta1.Query/Authority"');
      expect(JSON.parse(viaRpc.text.split("\r\n\r\n")[1]).result.response).toMatchObject({ code: 1, codespace: "undefined", log: "internal" });
      expectCleanOf([rest.text, g.err?.details ?? "", a.log, viaRpc.text]);
      expect(s.reported.map((r) => r.surface).sort()).toEqual(["abci", "abci", "grpc", "rest"]);
      for (const r of s.reported) expect(String((r.error as Error).cause)).toContain("ENOENT");
    } finally {
      client.close();
      await s.close();
    }
  });

  it("an RPC method that fails unexpectedly: -32603 `Internal error`, data `internal error`, the detail logged (URI, JSON-RPC, batch)", async () => {
    const s = await startAll({ throwing: secretError() });
    try {
      const port = (s.rpc.server.address() as { port: number }).port;
      const uri = await ask(port, "GET", "/blockchain");
      expect(uri.status).toBe(500);
      expect(JSON.parse(uri.text.split("\r\n\r\n")[1])).toEqual({
        jsonrpc: "2.0",
        id: -1,
        error: { code: -32603, message: "Internal error", data: INTERNAL_MESSAGE },
      });
      const one = await ask(port, "POST", "/", { body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "num_unconfirmed_txs" }) });
      expect(JSON.parse(one.text.split("\r\n\r\n")[1])).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32603, message: "Internal error", data: INTERNAL_MESSAGE },
      });
      const rest = await ask(s.queries.rest!.port, "GET", `${T}/blocks/latest`);
      expect([rest.status, rest.text.split("\r\n\r\n")[1]]).toEqual([500, `{"code":13,"message":"${INTERNAL_MESSAGE}","details":[]}`]);
      expectCleanOf([uri.text, one.text, rest.text]);
      const errors = s.rpcLog.filter((r) => r.level === "error");
      expect(errors).toHaveLength(2);
      for (const e of errors) expect(String(e.fields.err)).toContain(`${ROOT}/secret/state.db`);
      expect(s.reported).toHaveLength(1);
      expect(s.reported[0].surface).toBe(`rest ${T}/blocks/{height}`);
    } finally {
      await s.close();
    }
  });

  function expectCleanOf(texts: string[]): void {
    expect(texts.flatMap((t) => leaksIn(t, [ROOT]))).toEqual([]);
  }
});
