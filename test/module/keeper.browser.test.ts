/** The conformance suite's core part in real Chromium, on both cores, plus a keeper on IndexedDB. */
import { describe, expect, it } from "vitest";
import { createKeeper, openBrowserStore, loadCore } from "../../bindings/browser.js";
import { defineCoreCases } from "../core/cases.js";

describe.each(["wasm", "js"] as const)("browser conformance: %s", (backend) => defineCoreCases(backend));

describe.each(["wasm", "js"] as const)("browser keeper on IndexedDB (%s)", (backend) => {
  it("schedules, commits, halts, applies and reopens", async () => {
    const name = `xupgrade-keeper-${backend}-${crypto.randomUUID()}`;
    const store = await openBrowserStore(name);
    const k = await createKeeper({ backend, store });
    k.setModuleVersionMap({ bank: 1, upgrade: 2 });
    k.scheduleUpgrade({ name: "v2", height: 5, info: "{}" }, 1);
    await store.commit();
    await expect(k.preBlock(5)).rejects.toThrow(/^unable to write upgrade info to filesystem: /);
    store.rollback();
    k.setUpgradeHandler("v2", (_ctx, _plan, vm) => vm.set("bank", 2n));
    expect(await k.preBlock(5)).toEqual({ consensusParamsChanged: true });
    await store.commit();
    await store.close();

    const reopened = await openBrowserStore(name);
    const k2 = await createKeeper({ backend, store: reopened });
    expect(k2.getUpgradePlan()).toBeUndefined();
    expect(k2.getDoneHeight("v2")).toBe(5n);
    expect(k2.getModuleVersionMap()).toEqual(
      new Map([
        ["bank", 2n],
        ["upgrade", 2n],
      ]),
    );
    expect(k2.getProtocolVersion()).toBe(1n);
    await reopened.close();
  });

  it("loads the core from inlined bytes", async () => {
    const core = await loadCore(backend);
    expect(core.backend).toBe(backend);
    expect(core.decodePlan(core.encodePlan({ name: "名前", height: 7n, info: "" }))).toEqual({ name: "名前", height: 7n, info: "" });
  });
});
