/**
 * The cached answers of docs/spec/core.md §12 on a durable store: a rollback drops the uncommitted plan
 * (and done records) the keeper saw, and the next block must answer from the committed state. The
 * in-memory cases (second keeper, CacheStore discard, swapped store, grown memory) are in
 * test/core/cached.ts, for both cores in Node and in Chromium.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createKeeper } from "../../bindings/node.js";
import { openNodeStore } from "../../bindings/store/level-node.js";
import { removeTempDirs, tempDir } from "../support/temp.js";

afterAll(removeTempDirs);

const noop = (_ctx: unknown, _plan: unknown, vm: Map<string, bigint>) => vm;
const NOTHING = { consensusParamsChanged: false };

describe.each(["wasm", "js"] as const)("keeper on a DurableStore rolled back under it (%s)", (backend) => {
  it("answers from the committed plan after a rollback, at every block", async () => {
    const store = await openNodeStore(tempDir());
    const k = await createKeeper({ backend, store });
    k.scheduleUpgrade({ name: "committed", height: 10 }, 1);
    await store.commit();
    expect(await k.preBlock(5)).toEqual(NOTHING); // quiet below 10

    k.scheduleUpgrade({ name: "pending", height: 30 }, 5); // uncommitted
    expect(await k.preBlock(20)).toEqual(NOTHING); // quiet below 30, for the pending plan
    store.rollback();
    expect(k.getUpgradePlan()?.name).toBe("committed");
    await expect(k.preBlock(20)).rejects.toThrow(/^unable to write upgrade info to filesystem: |^UPGRADE "committed" NEEDED/);

    k.clearUpgradePlan(); // uncommitted delete
    expect(await k.preBlock(20)).toEqual(NOTHING); // no plan: quiet at every height
    store.rollback();
    await expect(k.preBlock(20)).rejects.toThrow(/NEEDED|unable to write upgrade info/);

    k.setUpgradeHandler("committed", noop);
    expect(await k.preBlock(20)).toEqual({ consensusParamsChanged: true });
    expect(k.getDoneHeight("committed")).toBe(20n);
    store.rollback(); // the upgrade was never committed
    expect(k.getDoneHeight("committed")).toBe(0n);
    expect(await k.preBlock(20)).toEqual({ consensusParamsChanged: true });
    await store.commit();
    expect(await k.preBlock(21)).toEqual(NOTHING);
    expect(k.getDoneHeight("committed")).toBe(20n);
    await store.close();
  });
});
