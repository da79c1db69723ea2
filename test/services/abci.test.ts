/**
 * The ABCI query router (docs/spec/interfaces.md §4) through cosmjs-types' QueryClientImpl with an Rpc adapter that
 * calls `query(path, data)` as cosmjs' QueryClient.queryAbci does (non-zero code → error, height required).
 */
import { QueryClientImpl } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import type { Rpc } from "cosmjs-types/helpers";
import { beforeAll, describe, expect, it } from "vitest";
import { createKeeper, type UpgradeKeeper } from "../../bindings/node.js";
import { createAbciQueryRouter, createQueryEnv, encodeRequest, type AbciQueryRouter } from "../../bindings/services/index.js";
import { BACKENDS, Chain, GOV, fromHex, hex, richKeeper, wire } from "./helpers.js";

/** What @cosmjs/stargate's createProtobufRpcClient + QueryClient.queryAbci do, minus the transport. */
function abciRpc(router: AbciQueryRouter, height?: bigint): Rpc {
  return {
    async request(service, method, data) {
      const res = router.query(`/${service}/${method}`, data, height);
      if (res.code) throw new Error(`Query failed with (${res.code}): ${res.log}`);
      if (!res.height) throw new Error("No query height returned");
      return res.value;
    },
  };
}

describe.each(BACKENDS)("ABCI query router, %s backend", (backend) => {
  let keeper: UpgradeKeeper;
  let chain: Chain;
  let router: AbciQueryRouter;
  let q: QueryClientImpl;

  beforeAll(async () => {
    ({ keeper, chain } = await richKeeper(backend));
    router = createAbciQueryRouter(createQueryEnv({ keeper, heightProvider: chain.provider }));
    q = new QueryClientImpl(abciRpc(router));
  });

  it("reads current plan, applied plan, module versions, authority through QueryClientImpl", async () => {
    expect((await q.CurrentPlan({})).plan).toMatchObject({ name: "test", height: 100n, info: "" });
    expect((await q.AppliedPlan({ name: "v1" })).height).toBe(30n);
    expect((await q.AppliedPlan({ name: "nope" })).height).toBe(0n);
    expect((await q.ModuleVersions({ moduleName: "" })).moduleVersions.map((m) => m.name)).toEqual(["auth", "bank", "upgrade"]);
    expect((await q.ModuleVersions({ moduleName: "bank" })).moduleVersions.map((m) => [m.name, m.version])).toEqual([["bank", 2n]]);
    expect((await q.Authority({})).address).toBe(GOV);
    expect((await q.UpgradedConsensusState({ lastHeight: 3n })).upgradedConsensusState).toHaveLength(0);
    await expect(q.ModuleVersions({ moduleName: "foo" })).rejects.toThrow(
      "Query failed with (6): x/upgrade: QueryModuleVersions module foo not found: module version not found: unknown request",
    );
  });

  it("response fields: exact bytes, code 0, empty codespace/log, height = latest (never 0)", () => {
    const res = router.query("/cosmos.upgrade.v1beta1.Query/ModuleVersions", fromHex(wire.messages.query_module_versions_request_bank));
    expect(res).toMatchObject({ code: 0, codespace: "", log: "", height: 40n });
    expect(hex(res.value)).toBe(wire.messages.query_module_versions_response_bank_2);
    const none = router.query("/cosmos.upgrade.v1beta1.Query/AppliedPlan", encodeRequest("AppliedPlan", { name: "x" }), 0);
    expect([none.code, none.value.length, none.height]).toEqual([0, 0, 40n]);
  });

  it("error codes of docs/spec/interfaces.md §4", () => {
    const nf = router.query("/cosmos.upgrade.v1beta1.Query/ModuleVersions", encodeRequest("ModuleVersions", { moduleName: "foo" }));
    expect([nf.code, nf.codespace, nf.log, nf.height]).toEqual([
      6,
      "sdk",
      "x/upgrade: QueryModuleVersions module foo not found: module version not found: unknown request",
      40n,
    ]);
    const bad = router.query("/cosmos.upgrade.v1beta1.Query/AppliedPlan", Uint8Array.of(0x0a, 0x05, 0x61));
    expect([bad.code, bad.codespace, bad.log.endsWith(": invalid request"), bad.height]).toEqual([18, "sdk", true, 40n]);
    const unknown = router.query("/cosmos.upgrade.v1beta1.Query/Nope");
    expect([unknown.code, unknown.codespace, unknown.log, unknown.height]).toEqual([6, "sdk", "unknown query path: unknown request", 40n]);
    const store = router.query("/store/bank/key", Uint8Array.of(1));
    expect([store.code, store.codespace, store.log]).toEqual([6, "sdk", "no such store: bank: unknown request"]);
    const future = router.query("/cosmos.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(0), 41n);
    expect([future.code, future.codespace, future.log, future.height]).toEqual([
      26,
      "sdk",
      "cannot query with height in the future; please provide a valid height: invalid height",
      40n,
    ]);
    const negative = router.query("/cosmos.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(0), -1);
    expect([negative.code, negative.codespace]).toEqual([18, "sdk"]);
    const old = router.query("/cosmos.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(0), 3);
    expect([old.code, old.codespace, old.log]).toEqual([
      18,
      "sdk",
      "failed to load state at height 3; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: 40): invalid request",
    ]);
  });

  it("raw store paths: /store/upgrade/key and /store/upgrade/subspace", async () => {
    const k = await createKeeper({ backend });
    k.setUpgradeHandler("test", (_c, _p, vm) => vm);
    await k.applyUpgrade({ name: "test", height: 11 }, 11);
    const r = createAbciQueryRouter(createQueryEnv({ keeper: k, heightProvider: () => 11n }));
    const key = r.query("/store/upgrade/key", fromHex("0174657374"));
    expect([key.code, hex(key.key), hex(key.value)]).toEqual([0, "0174657374", "000000000000000b"]);
    const absent = r.query("/store/upgrade/key", fromHex("00"));
    expect([absent.code, absent.value.length]).toEqual([0, 0]);
    const sub = r.query("/store/upgrade/subspace", fromHex("01"));
    expect([sub.code, hex(sub.value)]).toEqual([0, "0a110a0501746573741208000000000000000b"]);
  });

  it("a namespace renames the ABCI paths; extra routes are served with the resolved height", async () => {
    const r = createAbciQueryRouter(createQueryEnv({ keeper, heightProvider: chain.provider, namespace: "mychain" }), {
      "/cosmos.gov.v1.Query/Params": (data, ctx) => Uint8Array.of(data.length, Number(ctx.height)),
    });
    const qn = new QueryClientImpl({
      request: (s, m, d) => abciRpc(r).request(s.replace(/^cosmos\./, "mychain."), m, d),
    });
    expect((await qn.Authority({})).address).toBe(GOV);
    expect(r.query("/cosmos.upgrade.v1beta1.Query/Authority").code).toBe(6);
    expect([...r.query("/cosmos.gov.v1.Query/Params", Uint8Array.of(1, 2)).value]).toEqual([2, 40]);
  });

  it("historical heights come from keeperAtHeight", async () => {
    const old = await createKeeper({ backend });
    old.scheduleUpgrade({ name: "old", height: 9 }, 1);
    const r = createAbciQueryRouter(createQueryEnv({ keeper, heightProvider: chain.provider, keeperAtHeight: (h) => (h === 5n ? old : undefined) }));
    const qh = new QueryClientImpl(abciRpc(r, 5n));
    expect((await qh.CurrentPlan({})).plan!.name).toBe("old");
    expect(r.query("/cosmos.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(0), 5).height).toBe(5n);
  });
});
