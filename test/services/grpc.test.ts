/**
 * gRPC with real, unmodified clients (docs/spec/interfaces.md §2, §11): cosmjs-types' QueryClientImpl over
 * @grpc/grpc-js and @grpc/proto-loader over the .proto files of @protobufs/cosmos, on both backends.
 */
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { QueryClientImpl } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeeper, type UpgradeKeeper } from "../../bindings/node.js";
import { encodeRequest, type QueryServers } from "../../bindings/services/index.js";
import { BACKENDS, Chain, GOV, fromHex, grpcClient, grpcRpc, hex, rawUnary, richKeeper, serve, wire } from "./helpers.js";

const PROTO_ROOT = fileURLToPath(new URL("../../node_modules/@protobufs", import.meta.url));
const SVC = "/cosmos.upgrade.v1beta1.Query";
const notFound = (m: string) => `codespace upgrade code 2: module version not found: x/upgrade: QueryModuleVersions module ${m} not found`;

describe.each(BACKENDS)("gRPC, %s backend", (backend) => {
  describe("docs/spec/keeper.md §11.5 (height 1, version map {bank: 0}) through cosmjs-types QueryClientImpl", () => {
    let keeper: UpgradeKeeper;
    let chain: Chain;
    let servers: QueryServers;
    let client: grpc.Client;
    let q: QueryClientImpl;

    beforeAll(async () => {
      keeper = await createKeeper({ backend });
      keeper.setModuleVersionMap({ bank: 0 });
      chain = new Chain(1n);
      servers = await serve(keeper, chain, { rest: false });
      client = grpcClient(servers.grpc!.address);
      q = new QueryClientImpl(grpcRpc(client));
    });
    afterAll(async () => {
      client.close();
      await servers.close();
    });

    it("Q1 CurrentPlan without a plan: OK with 0 bytes; plan undefined", async () => {
      const raw = await rawUnary(client, `${SVC}/CurrentPlan`, new Uint8Array(0));
      expect(raw.err).toBeNull();
      expect(raw.value!.length).toBe(0);
      expect((await q.CurrentPlan({})).plan).toBeUndefined();
    });

    it("Q2 CurrentPlan after scheduling {test-plan, 5}: exact bytes", async () => {
      keeper.scheduleUpgrade({ name: "test-plan", height: 5 }, 1);
      const raw = await rawUnary(client, `${SVC}/CurrentPlan`, new Uint8Array(0));
      expect(hex(raw.value!)).toBe(wire.messages.query_current_plan_response_test_plan_5);
      const { plan } = await q.CurrentPlan({});
      expect(plan).toMatchObject({ name: "test-plan", height: 5n, info: "" });
    });

    it("Q3 AppliedPlan foo: height 0, no error, 0 bytes", async () => {
      expect((await q.AppliedPlan({ name: "foo" })).height).toBe(0n);
      const raw = await rawUnary(client, `${SVC}/AppliedPlan`, fromHex(wire.messages.query_applied_plan_request_foo));
      expect(raw.err).toBeNull();
      expect(raw.value!.length).toBe(0);
    });

    it("Q4 AppliedPlan test-plan after the upgrade at 5: 0805", async () => {
      keeper.setUpgradeHandler("test-plan", (_c, _p, vm) => vm);
      chain.height = 5n;
      await keeper.preBlock(5);
      expect((await q.AppliedPlan({ name: "test-plan" })).height).toBe(5n);
      const raw = await rawUnary(client, `${SVC}/AppliedPlan`, encodeRequest("AppliedPlan", { name: "test-plan" }));
      expect(hex(raw.value!)).toBe(wire.messages.query_applied_plan_response_5);
      expect(raw.headers!.get("x-cosmos-block-height")).toEqual(["5"]);
    });

    it("Q5 ModuleVersions '': the keeper's list in its order", async () => {
      const res = await q.ModuleVersions({ moduleName: "" });
      expect(res.moduleVersions.map((m) => ({ name: m.name, version: m.version }))).toEqual(keeper.getModuleVersions());
    });

    it("Q6 ModuleVersions bank: exactly [{bank, 0}]", async () => {
      const res = await q.ModuleVersions({ moduleName: "bank" });
      expect(res.moduleVersions.map((m) => [m.name, m.version])).toEqual([["bank", 0n]]);
    });

    it("Q7 ModuleVersions abcdefg: UNKNOWN with the exact message", async () => {
      const err = await q.ModuleVersions({ moduleName: "abcdefg" }).catch((e) => e);
      expect(err.code).toBe(grpc.status.UNKNOWN);
      expect(err.details).toBe(notFound("abcdefg"));
    });

    it("Q8 Authority: the gov address, exact bytes", async () => {
      expect((await q.Authority({})).address).toBe(GOV);
      const raw = await rawUnary(client, `${SVC}/Authority`, new Uint8Array(0));
      expect(hex(raw.value!)).toBe(wire.messages.query_authority_response_gov);
    });
  });

  describe("rich state, every method, statuses and bad input", () => {
    let keeper: UpgradeKeeper;
    let chain: Chain;
    let servers: QueryServers;
    let client: grpc.Client;
    let q: QueryClientImpl;

    beforeAll(async () => {
      ({ keeper, chain } = await richKeeper(backend));
      servers = await serve(keeper, chain, { rest: false });
      client = grpcClient(servers.grpc!.address);
      q = new QueryClientImpl(grpcRpc(client));
    });
    afterAll(async () => {
      client.close();
      await servers.close();
    });

    it("reads current plan, applied plan, module versions and authority", async () => {
      expect((await q.CurrentPlan({})).plan).toMatchObject({ name: "test", height: 100n, info: "" });
      expect((await q.AppliedPlan({ name: "v1" })).height).toBe(30n);
      expect((await q.AppliedPlan({ name: "" })).height).toBe(0n);
      const all = await q.ModuleVersions({ moduleName: "" });
      expect(all.moduleVersions.map((m) => `${m.name}=${m.version}`)).toEqual(["auth=5", "bank=2", "upgrade=2"]);
      const bank = await rawUnary(client, `${SVC}/ModuleVersions`, fromHex(wire.messages.query_module_versions_request_bank));
      expect(hex(bank.value!)).toBe(wire.messages.query_module_versions_response_bank_2);
      expect((await q.Authority({})).address).toBe(GOV);
      const err = await q.ModuleVersions({ moduleName: "foo" }).catch((e) => e);
      expect([err.code, err.details]).toEqual([2, notFound("foo")]);
    });

    it("request encoders agree with wire.json", () => {
      expect(hex(encodeRequest("AppliedPlan", { name: "foo" }))).toBe(wire.messages.query_applied_plan_request_foo);
      expect(hex(encodeRequest("ModuleVersions", { moduleName: "bank" }))).toBe(wire.messages.query_module_versions_request_bank);
      expect(hex(encodeRequest("CurrentPlan", {}))).toBe(wire.messages.query_current_plan_response_empty);
    });

    it("UpgradedConsensusState (deprecated): absent → 0 bytes; stored → the bytes", async () => {
      const absent = await rawUnary(client, `${SVC}/UpgradedConsensusState`, encodeRequest("UpgradedConsensusState", { lastHeight: 7n }));
      expect([absent.err, absent.value!.length]).toEqual([null, 0]);
      keeper.setUpgradedConsensusState(9, Uint8Array.of(1, 2, 3));
      const res = await q.UpgradedConsensusState({ lastHeight: 9n });
      expect([...res.upgradedConsensusState]).toEqual([1, 2, 3]);
    });

    it("Plan heights in [2^31, 2^32) are encoded as plain varints (wire.json plans_uint32_range)", async () => {
      for (const c of wire.plans_uint32_range.cases) {
        keeper.scheduleUpgrade({ name: c.name, height: BigInt(c.height) }, 31);
        const raw = await rawUnary(client, `${SVC}/CurrentPlan`, new Uint8Array(0));
        const len = c.hex.length / 2;
        expect(hex(raw.value!)).toBe(`0a${len.toString(16).padStart(2, "0")}${c.hex}`);
        expect((await q.CurrentPlan({})).plan!.height).toBe(BigInt(c.height));
      }
      keeper.scheduleUpgrade({ name: "test", height: 100 }, 31);
    });

    it("every answer carries x-cosmos-block-height; the request header selects the height", async () => {
      for (const method of ["CurrentPlan", "AppliedPlan", "ModuleVersions", "Authority", "UpgradedConsensusState"]) {
        const raw = await rawUnary(client, `${SVC}/${method}`, new Uint8Array(0));
        expect(raw.err).toBeNull();
        expect(raw.headers!.get("x-cosmos-block-height")).toEqual(["40"]);
      }
      const md = (v: string) => {
        const m = new grpc.Metadata();
        m.set("x-cosmos-block-height", v);
        return m;
      };
      const at40 = await rawUnary(client, `${SVC}/Authority`, new Uint8Array(0), md("40"));
      expect([at40.err, at40.headers!.get("x-cosmos-block-height")]).toEqual([null, ["40"]]);
      const at0 = await rawUnary(client, `${SVC}/Authority`, new Uint8Array(0), md("0"));
      expect(at0.headers!.get("x-cosmos-block-height")).toEqual(["40"]);

      const future = await rawUnary(client, `${SVC}/CurrentPlan`, new Uint8Array(0), md("41"));
      expect([future.err!.code, future.err!.details]).toEqual([
        2,
        "codespace sdk code 26: invalid height: cannot query with height in the future; please provide a valid height",
      ]);
      const negative = await rawUnary(client, `${SVC}/CurrentPlan`, new Uint8Array(0), md("-1"));
      expect([negative.err!.code, negative.err!.details]).toEqual([
        2,
        "codespace sdk code 18: invalid request: cannot query with height < 0; please provide a valid height",
      ]);
      const garbage = await rawUnary(client, `${SVC}/CurrentPlan`, new Uint8Array(0), md("abc"));
      expect([garbage.err!.code, garbage.err!.details]).toEqual([
        2,
        'codespace sdk code 18: invalid request: Baseapp.RegisterGRPCServer: invalid height header "x-cosmos-block-height": strconv.ParseInt: parsing "abc": invalid syntax',
      ]);
      const old = await rawUnary(client, `${SVC}/CurrentPlan`, new Uint8Array(0), md("39"));
      expect([old.err!.code, old.err!.details]).toEqual([
        2,
        "codespace sdk code 18: invalid request: failed to load state at height 39; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: 40)",
      ]);
    });

    it("malformed request bytes: INTERNAL 'grpc: error unmarshalling request: …'", async () => {
      const bad: [string, string][] = [
        ["0a05616263", "unexpected EOF"], // length past the end: Go's io.ErrUnexpectedEOF (as simd, interop GRPC-2)
        ["0a", "unexpected EOF"], // truncated
        ["08ffffffffffffffffffff01", "wrong wireType = 0 for field Name"], // varint where a string belongs
        ["0f", "illegal tag"], // wire type 7
        ["00", "illegal tag"], // field 0
        ["0a02c328", "field Name contains invalid UTF-8"],
      ];
      for (const [h, detail] of bad) {
        const res = await rawUnary(client, `${SVC}/AppliedPlan`, fromHex(h));
        expect(res.err?.code, h).toBe(grpc.status.INTERNAL);
        const prefix = detail === "unexpected EOF" ? "grpc: error unmarshalling request: " : "grpc: error unmarshalling request: proto: ";
        expect(res.err!.details.startsWith(prefix), res.err!.details).toBe(true);
        expect(res.err!.details, h).toContain(detail);
      }
      // Unknown fields are skipped, as protobuf requires.
      const unknown = await rawUnary(client, `${SVC}/Authority`, fromHex("1a03616263"));
      expect(unknown.err).toBeNull();
      // Still serving.
      expect((await q.Authority({})).address).toBe(GOV);
    });

    it("unknown service and method: UNIMPLEMENTED; the server keeps serving", async () => {
      const m = await rawUnary(client, `${SVC}/NoSuchMethod`, new Uint8Array(0));
      expect(m.err!.code).toBe(grpc.status.UNIMPLEMENTED);
      const s = await rawUnary(client, "/cosmos.nosuch.v1.Query/CurrentPlan", new Uint8Array(0));
      expect(s.err!.code).toBe(grpc.status.UNIMPLEMENTED);
      expect((await q.Authority({})).address).toBe(GOV);
    });

    it("a request over 4 MiB: RESOURCE_EXHAUSTED; the server keeps serving", async () => {
      const big = new Uint8Array(4 * 1024 * 1024 + 16);
      const res = await rawUnary(client, `${SVC}/AppliedPlan`, big);
      expect(res.err!.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect((await q.Authority({})).address).toBe(GOV);
    });

    it("a retained older height is served from keeperAtHeight", async () => {
      const old = await createKeeper({ backend });
      old.scheduleUpgrade({ name: "older", height: 50 }, 1);
      const s2 = await serve(keeper, chain, { rest: false, keeperAtHeight: (h) => (h === 20n ? old : undefined) });
      const c2 = grpcClient(s2.grpc!.address);
      try {
        const md = new grpc.Metadata();
        md.set("x-cosmos-block-height", "20");
        const q2 = new QueryClientImpl(grpcRpc(c2, { metadata: md }));
        expect((await q2.CurrentPlan({})).plan!.name).toBe("older");
        const raw = await rawUnary(c2, `${SVC}/CurrentPlan`, new Uint8Array(0), md);
        expect(raw.headers!.get("x-cosmos-block-height")).toEqual(["20"]);
      } finally {
        c2.close();
        await s2.close();
      }
    });
  });

  describe("@grpc/proto-loader over @protobufs/cosmos query.proto", () => {
    let servers: QueryServers;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a client proto-loader builds at run time
    let client: any;
    const call = (method: string, req: object, md = new grpc.Metadata()) =>
      new Promise<{ err: grpc.ServiceError | null; res: unknown }>((resolve) =>
        client[method](req, md, { deadline: Date.now() + 10_000 }, (err: grpc.ServiceError | null, res: unknown) => resolve({ err, res })),
      );

    beforeAll(async () => {
      const { keeper, chain } = await richKeeper(backend);
      keeper.scheduleUpgrade({ name: "v2", height: 1000 }, 31);
      servers = await serve(keeper, chain, { rest: false });
      const def = protoLoader.loadSync("cosmos/upgrade/v1beta1/query.proto", {
        includeDirs: [PROTO_ROOT],
        keepCase: true,
        longs: String,
        enums: String,
        defaults: true,
        oneofs: true,
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the package proto-loader builds at run time
      const pkg = grpc.loadPackageDefinition(def) as any;
      client = new pkg.cosmos.upgrade.v1beta1.Query(servers.grpc!.address, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client.close();
      await servers.close();
    });

    it("CurrentPlan, AppliedPlan, ModuleVersions, Authority and the not-found status", async () => {
      expect(JSON.stringify((await call("CurrentPlan", {})).res)).toBe(
        '{"plan":{"name":"v2","time":{"seconds":"-62135596800","nanos":0},"height":"1000","info":"","upgraded_client_state":null}}',
      );
      expect((await call("AppliedPlan", { name: "nope" })).res).toEqual({ height: "0" });
      expect((await call("AppliedPlan", { name: "v1" })).res).toEqual({ height: "30" });
      expect((await call("ModuleVersions", { module_name: "bank" })).res).toEqual({ module_versions: [{ name: "bank", version: "2" }] });
      expect(((await call("ModuleVersions", { module_name: "" })).res as { module_versions: unknown[] }).module_versions).toHaveLength(3);
      expect((await call("Authority", {})).res).toEqual({ address: GOV });
      const { err } = await call("ModuleVersions", { module_name: "foo" });
      expect([err!.code, err!.details]).toEqual([2, notFound("foo")]);
      const md = new grpc.Metadata();
      md.set("x-cosmos-block-height", "999");
      expect((await call("Authority", {}, md)).err!.code).toBe(2);
    });
  });

  describe("namespace", () => {
    it("renames the gRPC service: mychain.upgrade.v1beta1.Query answers, cosmos.… is UNIMPLEMENTED", async () => {
      const { keeper, chain } = await richKeeper(backend);
      const servers = await serve(keeper, chain, { rest: false, namespace: "mychain" });
      const client = grpcClient(servers.grpc!.address);
      try {
        const q = new QueryClientImpl(grpcRpc(client, { rename: (s) => s.replace(/^cosmos\./, "mychain.") }));
        expect((await q.CurrentPlan({})).plan!.name).toBe("test");
        expect((await q.Authority({})).address).toBe(GOV);
        const err = await new QueryClientImpl(grpcRpc(client)).Authority({}).catch((e) => e);
        expect(err.code).toBe(grpc.status.UNIMPLEMENTED);
      } finally {
        client.close();
        await servers.close();
      }
    });
  });
});
