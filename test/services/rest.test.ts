/**
 * The REST gateway with plain fetch and Node's HTTP client (docs/spec/interfaces.md §3): every row, byte-exact bodies
 * (wire.json rest_json), statuses, headers, CORS, path-parameter decoding, limits; and a telescope-style
 * LCD client (@cosmology/lcd) — on both backends.
 */
import { LCDClient } from "@cosmology/lcd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeeper, type UpgradeKeeper } from "../../bindings/node.js";
import { GrpcCode, QueryError, restStatus, type QueryServers, type RestRoute, type RestRouteRequest } from "../../bindings/services/index.js";
import { BACKENDS, Chain, GOV, rawExchange, rawGet, richKeeper, serve, wire } from "./helpers.js";

const P = "/cosmos/upgrade/v1beta1";
const notFound = (m: string) =>
  `{"code":2,"message":"codespace upgrade code 2: module version not found: x/upgrade: QueryModuleVersions module ${m} not found","details":[]}`;
const ALL = '{"module_versions":[{"name":"auth","version":"5"},{"name":"bank","version":"2"},{"name":"upgrade","version":"2"}]}';

/** The shape of telescope's generated LCD query client for cosmos.upgrade.v1beta1 (query.lcd.ts). */
class UpgradeLCDQueryClient {
  constructor(private readonly req: LCDClient) {}
  currentPlan = () => this.req.get<{ plan: unknown }>("cosmos/upgrade/v1beta1/current_plan");
  appliedPlan = (params: { name: string }) => this.req.get<{ height: string }>(`cosmos/upgrade/v1beta1/applied_plan/${params.name}`);
  moduleVersions = (params: { moduleName?: string } = {}) => {
    const options: { params: Record<string, string> } = { params: {} };
    if (typeof params.moduleName !== "undefined") options.params.module_name = params.moduleName;
    return this.req.get<{ module_versions: unknown[] }>("cosmos/upgrade/v1beta1/module_versions", options);
  };
  authority = () => this.req.get<{ address: string }>("cosmos/upgrade/v1beta1/authority");
}

describe.each(BACKENDS)("REST gateway, %s backend", (backend) => {
  let keeper: UpgradeKeeper;
  let chain: Chain;
  let servers: QueryServers;
  let url: string;
  const get = (path: string, init?: RequestInit) => fetch(url + path, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = async (path: string, init?: RequestInit) => {
    const res = await get(path, init);
    return [res.status, await res.text()] as const;
  };

  beforeAll(async () => {
    ({ keeper, chain } = await richKeeper(backend));
    keeper.setUpgradeHandler("a b", (_c, _p, vm) => vm);
    await keeper.applyUpgrade({ name: "a b", height: 31 }, 31);
    keeper.setUpgradeHandler("a/b", (_c, _p, vm) => vm);
    await keeper.applyUpgrade({ name: "a/b", height: 32 }, 32);
    keeper.scheduleUpgrade({ name: "test", height: 100 }, 33);
    servers = await serve(keeper, chain, { grpc: false, rest: { address: "127.0.0.1:0", maxHeaderBytes: 16 * 1024, maxBodyBytes: 1024 } });
    url = servers.rest!.url;
  });
  afterAll(() => servers.close());

  it("every row of the table, byte for byte", async () => {
    expect(await text(`${P}/current_plan`)).toEqual([200, wire.rest_json.current_plan_test_100]);
    expect(await text(`${P}/applied_plan/v1`)).toEqual([200, '{"height":"30"}']);
    expect(await text(`${P}/applied_plan/never`)).toEqual([200, wire.rest_json.applied_plan_unknown]);
    expect(await text(`${P}/module_versions`)).toEqual([200, ALL]);
    expect(await text(`${P}/module_versions?module_name=bank`)).toEqual([200, wire.rest_json.module_versions_bank_2]);
    expect(await text(`${P}/module_versions?module_name=`)).toEqual([200, ALL]);
    expect(await text(`${P}/module_versions?module_name=foo`)).toEqual([500, notFound("foo")]);
    expect(await text(`${P}/authority`)).toEqual([200, wire.rest_json.authority]);
    expect(await text(`${P}/upgraded_consensus_state/5`)).toEqual([200, '{"upgraded_consensus_state":null}']);
    expect(await text(`${P}/upgraded_consensus_state/abc`)).toEqual([
      400,
      '{"code":3,"message":"type mismatch, parameter: last_height, error: strconv.ParseInt: parsing \\"abc\\": invalid syntax","details":[]}',
    ]);
    expect(await text("/cosmos/bank/v1beta1/balances/x")).toEqual([501, wire.rest_json.unknown_route_501]);
    expect(await text(`${P}/nope`)).toEqual([501, wire.rest_json.unknown_route_501]);
    expect(await text(`${P}/current_plan/`)).toEqual([501, wire.rest_json.unknown_route_501]);
    expect(await text("/")).toEqual([501, wire.rest_json.unknown_route_501]);
  });

  it("no plan, empty store and a stored consensus state", async () => {
    const empty = await createKeeper({ backend });
    const s2 = await serve(empty, new Chain(1n), { grpc: false });
    try {
      const r = await fetch(`${s2.rest!.url}${P}/current_plan`);
      expect(await r.text()).toBe(wire.rest_json.current_plan_none);
      expect(await (await fetch(`${s2.rest!.url}${P}/module_versions`)).text()).toBe('{"module_versions":[]}');
      empty.setUpgradedConsensusState(7, Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
      expect(await (await fetch(`${s2.rest!.url}${P}/upgraded_consensus_state/7`)).text()).toBe('{"upgraded_consensus_state":"3q2+7w=="}');
      // Go's base-0 integer syntax for the path parameter.
      expect(await (await fetch(`${s2.rest!.url}${P}/upgraded_consensus_state/0x7`)).text()).toBe('{"upgraded_consensus_state":"3q2+7w=="}');
      const big = await fetch(`${s2.rest!.url}${P}/upgraded_consensus_state/9223372036854775808`);
      expect([big.status, await big.text()]).toEqual([
        400,
        '{"code":3,"message":"type mismatch, parameter: last_height, error: strconv.ParseInt: parsing \\"9223372036854775808\\": value out of range","details":[]}',
      ]);
    } finally {
      await s2.close();
    }
  });

  it("Go's JSON escaping of plan strings (HTML-safe, U+2028), unicode kept", async () => {
    const unicode = wire.plans[6];
    keeper.scheduleUpgrade({ name: unicode.name, height: BigInt(unicode.height), info: 'a&b<c>d\u2028"\\\n' }, 33);
    try {
      const [status, body] = await text(`${P}/current_plan`);
      expect(status).toBe(200);
      expect(body).toBe(
        `{"plan":{"name":"v3.0.0-ünïcode-名前","time":"0001-01-01T00:00:00Z","height":"123450000",` +
          `"info":"a\\u0026b\\u003cc\\u003ed\\u2028\\"\\\\\\n","upgraded_client_state":null}}`,
      );
    } finally {
      keeper.scheduleUpgrade({ name: "test", height: 100 }, 33);
    }
  });

  it("headers: JSON content type, block height (both spellings), CORS; OPTIONS 204; 405 with Allow", async () => {
    const res = await get(`${P}/authority`, { headers: { Origin: "https://dashboard.example" } });
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-cosmos-block-height")).toBe("40");
    expect(res.headers.get("grpc-metadata-x-cosmos-block-height")).toBe("40");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toBe("x-cosmos-block-height, Grpc-Metadata-X-Cosmos-Block-Height");
    await res.text();

    const pre = await get(`${P}/current_plan`, {
      method: "OPTIONS",
      headers: { Origin: "https://dashboard.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-cosmos-block-height" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET, OPTIONS");
    expect(pre.headers.get("access-control-allow-headers")).toBe("Content-Type, x-cosmos-block-height");

    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const r = await get(`${P}/current_plan`, { method, body: method === "DELETE" ? undefined : "{}" });
      expect([r.status, r.headers.get("allow"), await r.text()]).toEqual([405, "GET, OPTIONS", '{"code":12,"message":"Method Not Allowed","details":[]}']);
    }
    const head = await get(`${P}/current_plan`, { method: "HEAD" });
    expect([head.status, head.headers.get("allow")]).toEqual([405, "GET, OPTIONS"]);
    const unknownPost = await get("/nope", { method: "POST", body: "x" });
    expect([unknownPost.status, await unknownPost.text()]).toEqual([501, wire.rest_json.unknown_route_501]);
  });

  it("x-cosmos-block-height request header: latest, future (500), not retained (500), invalid (500)", async () => {
    const h = (v: string) => ({ headers: { "x-cosmos-block-height": v } });
    const ok = await get(`${P}/authority`, h("40"));
    expect([ok.status, ok.headers.get("x-cosmos-block-height"), await ok.text()]).toEqual([200, "40", wire.rest_json.authority]);
    expect(await text(`${P}/authority`, h("41"))).toEqual([
      500,
      '{"code":2,"message":"codespace sdk code 26: invalid height: cannot query with height in the future; please provide a valid height","details":[]}',
    ]);
    expect(await text(`${P}/current_plan`, h("12"))).toEqual([
      500,
      '{"code":2,"message":"codespace sdk code 18: invalid request: failed to load state at height 12; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: 40)","details":[]}',
    ]);
    expect(await text(`${P}/current_plan`, h("x1"))).toEqual([
      500,
      '{"code":2,"message":"codespace sdk code 18: invalid request: Baseapp.RegisterGRPCServer: invalid height header \\"x-cosmos-block-height\\": strconv.ParseInt: parsing \\"x1\\": invalid syntax","details":[]}',
    ]);
    // The module error carries the height it was answered at.
    const nf = await get(`${P}/module_versions?module_name=foo`);
    expect([nf.status, nf.headers.get("x-cosmos-block-height")]).toEqual([500, "40"]);
    await nf.text();
  });

  it("path parameters: percent-decoded single raw segment, never normalised", async () => {
    const raw = async (path: string) => {
      const r = await rawGet(url, path);
      return [r.status, r.body] as const;
    };
    expect(await raw(`${P}/applied_plan/a%20b`)).toEqual([200, '{"height":"31"}']);
    expect(await raw(`${P}/applied_plan/a%2Fb`)).toEqual([200, '{"height":"32"}']);
    expect(await raw(`${P}/applied_plan/a%2fb`)).toEqual([200, '{"height":"32"}']);
    expect(await raw(`${P}/applied_plan/v%31`)).toEqual([200, '{"height":"30"}']);
    for (const name of ["%00", ".", "..", "%2E%2E", "%2e", "a+b", "%F0%9F%98%80", "~"]) {
      expect(await raw(`${P}/applied_plan/${name}`), name).toEqual([200, '{"height":"0"}']);
    }
    // An empty last segment binds the name "" (as simd v0.50 answers it: docs/spec/interop.md, was REST-3).
    expect(await raw(`${P}/applied_plan/`)).toEqual([200, '{"height":"0"}']);
    expect(await raw(`${P}/applied_plan//x`)).toEqual([501, wire.rest_json.unknown_route_501]);
    expect(await raw(`${P}/applied_plan`)).toEqual([501, wire.rest_json.unknown_route_501]);
    expect(await raw(`${P}/applied_plan/a/b`)).toEqual([
      400,
      '{"code":3,"message":"invalid path parameter \\"name\\": it must be one path segment, found a further \\"/\\" after \\"a\\"","details":[]}',
    ]);
    expect(await raw(`${P}/applied_plan/../x`)).toEqual([
      400,
      '{"code":3,"message":"invalid path parameter \\"name\\": it must be one path segment, found a further \\"/\\" after \\"..\\"","details":[]}',
    ]);
    expect(await raw(`${P}/applied_plan/a%zzb`)).toEqual([
      400,
      '{"code":3,"message":"invalid path parameter \\"name\\": invalid URL escape \\"%zz\\"","details":[]}',
    ]);
    expect(await raw(`${P}/applied_plan/a%4`)).toEqual([
      400,
      '{"code":3,"message":"invalid path parameter \\"name\\": invalid URL escape \\"%4\\"","details":[]}',
    ]);
    expect(await raw(`${P}/applied_plan/%C3%28`)).toEqual([
      400,
      '{"code":3,"message":"invalid path parameter \\"name\\": not valid UTF-8 after percent-decoding","details":[]}',
    ]);
    // fetch (WHATWG URL) encodes the same names; the answer must be the same.
    expect(await text(`${P}/applied_plan/${encodeURIComponent("a b")}`)).toEqual([200, '{"height":"31"}']);
    expect(await text(`${P}/applied_plan/${encodeURIComponent("a/b")}`)).toEqual([200, '{"height":"32"}']);
  });

  it("long names: 10 KB answers not-applied; past the head limit the HTTP layer says 431; still serving", async () => {
    expect(await text(`${P}/applied_plan/${"n".repeat(10 * 1024)}`)).toEqual([200, '{"height":"0"}']);
    const long = await rawGet(url, `${P}/applied_plan/${"n".repeat(20 * 1024)}`).catch((e) => e);
    expect(long.status ?? long.code).toBe(431);
    expect(await text(`${P}/authority`)).toEqual([200, wire.rest_json.authority]);
  });

  it("query parameters: module_name or moduleName, unknown ignored, Go parse errors 400", async () => {
    expect(await text(`${P}/module_versions?moduleName=bank`)).toEqual([200, wire.rest_json.module_versions_bank_2]);
    expect(await text(`${P}/module_versions?pagination.limit=1&module_name=bank&x=%41`)).toEqual([200, wire.rest_json.module_versions_bank_2]);
    expect(await text(`${P}/module_versions?module_name=ba%6Ek`)).toEqual([200, wire.rest_json.module_versions_bank_2]);
    expect(await text(`${P}/module_versions?module_name=bank&module_name=auth`)).toEqual([
      400,
      '{"code":3,"message":"too many values for field \\"module_name\\": bank, auth","details":[]}',
    ]);
    expect(await text(`${P}/module_versions?module_name=%zz`)).toEqual([400, '{"code":3,"message":"invalid URL escape \\"%zz\\"","details":[]}']);
    expect(await text(`${P}/module_versions?a=1;b=2`)).toEqual([400, '{"code":3,"message":"invalid semicolon separator in query","details":[]}']);
    expect(await text(`${P}/module_versions?module_name=a+b`)).toEqual([500, notFound("a b")]);
    expect(await text(`${P}/authority?anything=goes`)).toEqual([200, wire.rest_json.authority]);
  });

  it("bodies: over the limit → 413 and the connection is closed; junk request → 400; still serving", async () => {
    const big = await rawGet(url, `${P}/authority`, { headers: { "content-length": "5000" }, body: "x".repeat(5000) }).catch((e) => e);
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ code: 8 });
    const junk = await rawExchange(servers.rest!.port, "\x16\x03\x01 garbage\r\n\r\n", 3000);
    expect(junk).toMatch(/^HTTP\/1\.1 400 /);
    const chunked = await rawExchange(
      servers.rest!.port,
      `GET ${P}/authority HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n` + `400\r\n${"y".repeat(1024)}\r\n`.repeat(8),
      3000,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 200 /);
    expect(await text(`${P}/authority`)).toEqual([200, wire.rest_json.authority]);
  });

  it("telescope-style LCD client (@cosmology/lcd) reads every route; errors carry status 500 and the Status body", async () => {
    const lcd = new UpgradeLCDQueryClient(new LCDClient({ restEndpoint: url, timeout: 10_000 }));
    expect(await lcd.currentPlan()).toEqual(JSON.parse(wire.rest_json.current_plan_test_100));
    expect(await lcd.appliedPlan({ name: "v1" })).toEqual({ height: "30" });
    expect(await lcd.moduleVersions({ moduleName: "bank" })).toEqual(JSON.parse(wire.rest_json.module_versions_bank_2));
    expect((await lcd.moduleVersions()).module_versions).toHaveLength(3);
    expect(await lcd.authority()).toEqual({ address: GOV });
    const err = await lcd.moduleVersions({ moduleName: "foo" }).catch((e) => e);
    expect(err.response.status).toBe(500);
    expect(err.response.data).toEqual(JSON.parse(notFound("foo")));
  });
});

describe("REST under a namespace", () => {
  it("serves /mychain/upgrade/v1beta1/… and 501 for /cosmos/…", async () => {
    const { keeper, chain } = await richKeeper("js");
    const servers = await serve(keeper, chain, { grpc: false, namespace: "mychain" });
    try {
      const a = await fetch(`${servers.rest!.url}/mychain/upgrade/v1beta1/current_plan`);
      expect(await a.text()).toBe(wire.rest_json.current_plan_test_100);
      const b = await fetch(`${servers.rest!.url}/cosmos/upgrade/v1beta1/current_plan`);
      expect([b.status, await b.text()]).toEqual([501, wire.rest_json.unknown_route_501]);
    } finally {
      await servers.close();
    }
  });
});

describe("extra GET routes of the host (rest.routes)", () => {
  it("match {param} segments (percent-decoded), answer with the handler's status, body and headers; module routes come first", async () => {
    const { keeper, chain } = await richKeeper("js");
    const seen: RestRouteRequest[] = [];
    const routes: RestRoute[] = [
      {
        path: "/host/v1/items/{id}/parts/{part}",
        handler: (r) => {
          seen.push(r);
          return { body: { id: r.params.id, part: r.params.part, q: r.query.get("q") }, headers: { "x-extra": "1" } };
        },
      },
      { path: "/host/v1/async", handler: async () => ({ status: 202, body: '{"later":true}' }) },
      { path: "/host/v1/bad", handler: () => restStatus(GrpcCode.INVALID_ARGUMENT, "bad input") },
      {
        path: "/host/v1/throws",
        handler: () => {
          throw new Error("kaput");
        },
      },
      {
        path: "/host/v1/query-error",
        handler: async () => {
          throw new QueryError(GrpcCode.NOT_FOUND, "nothing here", { codespace: "sdk", code: 22, log: "nothing here" });
        },
      },
      // Shadowing a module route has no effect: the module's routes are matched first.
      { path: "/cosmos/upgrade/v1beta1/authority", handler: () => ({ body: "{}" }) },
    ];
    const reported: [unknown, string][] = [];
    const servers = await serve(keeper, chain, {
      grpc: false,
      rest: { address: "127.0.0.1:0", routes },
      onInternalError: (e, where) => void reported.push([e, where]),
    });
    const url = servers.rest!.url;
    const get = async (path: string, init?: RequestInit) => {
      const res = await fetch(url + path, init);
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    try {
      const ok = await get("/host/v1/items/a%2Fb%20c/parts/7?q=x%3Dy");
      expect([ok.status, ok.text]).toEqual([200, '{"id":"a/b c","part":"7","q":"x=y"}']);
      expect(ok.headers.get("x-extra")).toBe("1");
      expect(ok.headers.get("access-control-allow-origin")).toBe("*");
      expect(ok.headers.get("content-type")).toBe("application/json");
      expect(seen[0]).toMatchObject({ path: "/host/v1/items/a%2Fb%20c/parts/7", params: { id: "a/b c", part: "7" } });
      expect(seen[0].headers.host).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(await get("/host/v1/async")).toMatchObject({ status: 202, text: '{"later":true}' });
      expect(await get("/host/v1/bad")).toMatchObject({ status: 400, text: '{"code":3,"message":"bad input","details":[]}' });
      // An unexpected error is answered without its text (docs/spec/interfaces.md §12.1); the host is told the detail.
      expect(await get("/host/v1/throws")).toMatchObject({ status: 500, text: '{"code":13,"message":"internal error","details":[]}' });
      expect(reported.map(([e, where]) => [(e as Error).message, where])).toEqual([["kaput", "rest /host/v1/throws"]]);
      expect(await get("/host/v1/query-error")).toMatchObject({ status: 404, text: '{"code":5,"message":"nothing here","details":[]}' });
      expect((await get(`${P}/authority`)).text).toBe(wire.rest_json.authority);
      // No match: an empty {param}, one segment too many or too few, another prefix → 501.
      for (const path of ["/host/v1/items//parts/7", "/host/v1/items/a/parts/7/x", "/host/v1/items/a", "/host/v2/async"]) {
        expect(await get(path)).toMatchObject({ status: 501, text: wire.rest_json.unknown_route_501 });
      }
      const options = await get("/host/v1/async", { method: "OPTIONS" });
      expect([options.status, options.headers.get("allow")]).toEqual([204, "GET, OPTIONS"]);
      const post = await get("/host/v1/async", { method: "POST", body: "x" });
      expect([post.status, post.text, post.headers.get("allow")]).toEqual([405, '{"code":12,"message":"Method Not Allowed","details":[]}', "GET, OPTIONS"]);
    } finally {
      await servers.close();
    }
  });

  it("a route may answer with bytes and its own Content-Type (a host serving a page)", async () => {
    const { keeper, chain } = await richKeeper("js");
    const bytes = Uint8Array.of(0, 0x61, 0x73, 0x6d, 0xff);
    const routes: RestRoute[] = [
      { path: "/page/{file}", handler: () => ({ body: bytes, headers: { "content-type": "application/wasm", "Cache-Control": "no-cache" } }) },
      { path: "/page", handler: () => ({ body: "<!doctype html><p>é</p>", headers: { "Content-Type": "text/html; charset=utf-8" } }) },
    ];
    const servers = await serve(keeper, chain, { grpc: false, rest: { address: "127.0.0.1:0", routes } });
    try {
      const bin = await fetch(`${servers.rest!.url}/page/x.wasm`);
      expect([bin.status, bin.headers.get("content-type"), bin.headers.get("content-length"), bin.headers.get("cache-control")]).toEqual([
        200,
        "application/wasm",
        "5",
        "no-cache",
      ]);
      expect(new Uint8Array(await bin.arrayBuffer())).toEqual(bytes);
      const html = await fetch(`${servers.rest!.url}/page`);
      expect([html.headers.get("content-type"), await html.text()]).toEqual(["text/html; charset=utf-8", "<!doctype html><p>é</p>"]);
      expect(html.headers.get("access-control-allow-origin")).toBe("*");
    } finally {
      await servers.close();
    }
  });

  it("refuses malformed or duplicate route patterns", async () => {
    const { keeper, chain } = await richKeeper("js");
    const h = () => ({ body: "{}" });
    for (const [routes, message] of [
      [[{ path: "no-slash", handler: h }], /invalid REST route "no-slash"/],
      [[{ path: "/a//b", handler: h }], /empty segment/],
      [[{ path: "/a/{x}/{x}", handler: h }], /parameter x appears twice/],
      [[{ path: "/a/x{y}", handler: h }], /bad parameter segment/],
      [
        [
          { path: "/a/{x}", handler: h },
          { path: "/a/{y}", handler: h },
        ],
        /duplicate REST route "\/a\/\{y\}"/,
      ],
    ] as const) {
      await expect(serve(keeper, chain, { grpc: false, rest: { address: "127.0.0.1:0", routes: routes as unknown as RestRoute[] } })).rejects.toThrow(message);
    }
  });
});
