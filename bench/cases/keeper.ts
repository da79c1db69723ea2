/**
 * Cases 1–4: the keeper's hot paths, through the public UpgradeKeeper API (what a node pays) and, for
 * preBlock, also through the core session alone (what the core decides, without the keeper's async
 * wrapper and input checks).
 */
import type { Backend } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import type { UpgradeKeeper } from "../../bindings/module/keeper.js";
import { MemoryStore } from "../../bindings/store/memory.js";
import { BACKENDS, PLANS, doneName, heights, keeperOn, noopHandler, storeWithDone, versionMap } from "../fixtures.js";
import { type BenchTask, nowNs, timed, timedAsync } from "../harness.js";

const FAR = 10n ** 12n;

/** Case 1: preBlock on blocks where nothing is due — the cost every node pays on every block. */
export async function preBlockNothingDue(backends: readonly Backend[] = BACKENDS): Promise<BenchTask[][]> {
  const hs = heights(1_000n);
  const groups: BenchTask[][] = [];
  for (const farPlan of [false, true]) {
    const what = farPlan ? "plan far ahead" : "no plan";
    const keeperTasks: BenchTask[] = [];
    const coreTasks: BenchTask[] = [];
    for (const backend of backends) {
      const keeper = await keeperOn(backend);
      const store = new MemoryStore();
      const session = (await loadCore(backend)).session(store, []);
      if (farPlan) {
        keeper.scheduleUpgrade({ name: "far", height: FAR }, 1n);
        session.schedule({ name: "far", height: FAR, info: "" }, 1n);
      }
      keeperTasks.push({
        case: 1,
        id: `preBlock, nothing due (${what}): keeper`,
        impl: backend,
        ops: 1000,
        async: true,
        sample: timedAsync(1000, (i) => keeper.preBlock(hs[i & 1023])),
      });
      coreTasks.push({
        case: 1,
        id: `preBlock, nothing due (${what}): core session`,
        impl: backend,
        ops: 2000,
        sample: timed(2000, (i) => {
          if (session.preBlock(hs[i & 1023]).action !== "none") throw new Error("unexpected action");
        }),
      });
    }
    groups.push(keeperTasks, coreTasks);
  }
  return groups;
}

/**
 * A case-2 sample: `ops` times, `prepare` (untimed) schedules a plan and returns its height, then the
 * preBlock that applies it is timed.
 */
function timedApplies(keeper: UpgradeKeeper, ops: number, prepare: () => bigint): () => Promise<number> {
  return async () => {
    let ns = 0;
    for (let i = 0; i < ops; i++) {
      const h = prepare();
      const t0 = nowNs();
      const r = await keeper.preBlock(h);
      ns += nowNs() - t0;
      if (!r.consensusParamsChanged) throw new Error("the upgrade was not applied");
    }
    return ns;
  };
}

/** Case 2: preBlock that applies a due plan (no-op handler) with n modules in the version map. */
export async function preBlockApply(backends: readonly Backend[] = BACKENDS): Promise<BenchTask[][]> {
  const groups: BenchTask[][] = [];
  for (const modules of [10, 50, 1000]) {
    const tasks: BenchTask[] = [];
    for (const backend of backends) {
      const store = new MemoryStore();
      const keeper = await keeperOn(backend, store);
      keeper.setModuleVersionMap(versionMap(modules));
      keeper.setUpgradeHandler("next", noopHandler);
      const doneKey = keeper.core.doneKey("next");
      let h = 100n;
      const ops = modules >= 1000 ? 1 : 8;
      tasks.push({
        case: 2,
        id: `preBlock + applyUpgrade, ${modules} modules`,
        impl: backend,
        ops,
        async: true,
        sample: timedApplies(keeper, ops, () => {
          // Forget the last run and schedule the next one, due at h.
          store.delete(doneKey);
          h += 1n;
          keeper.scheduleUpgrade({ name: "next", height: h }, h);
          return h;
        }),
      });
    }
    groups.push(tasks);
  }
  return groups;
}

/** The past-upgrade counts of case 2's history rows. */
export const HISTORY_SIZES = [10, 1000, 10_000] as const;

/**
 * Case 2 with history: an apply on a store that already holds `past` done records (and a binary that
 * registered their handlers), as on a chain that has upgraded that often. Each call registers a new
 * handler and schedules its plan at the next height (untimed), and times the preBlock that applies it,
 * with a 50-module version map. The done record of the call before is deleted (untimed), so every call
 * sees `past` + 1.
 */
export async function preBlockApplyWithHistory(backends: readonly Backend[] = BACKENDS): Promise<BenchTask[][]> {
  const groups: BenchTask[][] = [];
  for (const past of HISTORY_SIZES) {
    const tasks: BenchTask[] = [];
    for (const backend of backends) {
      const core = await loadCore(backend);
      const store = storeWithDone(core, past);
      const keeper = await keeperOn(backend, store);
      keeper.setModuleVersionMap(versionMap(50));
      for (let i = 0; i < past; i++) keeper.setUpgradeHandler(doneName(i), noopHandler);
      let h = 1000n + BigInt(past) * 10n;
      let n = 0;
      let previous: Uint8Array | undefined;
      const ops = 8;
      tasks.push({
        case: 2,
        id: `preBlock + applyUpgrade, 50 modules, ${past} past upgrades`,
        impl: backend,
        ops,
        async: true,
        sample: timedApplies(keeper, ops, () => {
          if (previous) store.delete(previous);
          const name = `next-${n++}`;
          previous = core.doneKey(name);
          h += 1n;
          keeper.setUpgradeHandler(name, noopHandler);
          keeper.scheduleUpgrade({ name, height: h }, h);
          return h;
        }),
      });
    }
    groups.push(tasks);
  }
  return groups;
}

/** Case 3: scheduleUpgrade + getUpgradePlan (validation, encode, store write, read, decode). */
export async function scheduleAndGet(backends: readonly Backend[] = BACKENDS): Promise<BenchTask[][]> {
  const groups: BenchTask[][] = [];
  for (const { id, plan } of PLANS) {
    const tasks: BenchTask[] = [];
    for (const backend of backends) {
      const keeper = await keeperOn(backend);
      tasks.push({
        case: 3,
        id: `scheduleUpgrade + getUpgradePlan (${id} plan)`,
        impl: backend,
        ops: 500,
        sample: timed(500, () => {
          keeper.scheduleUpgrade(plan, 1n);
          if (keeper.getUpgradePlan()!.height !== plan.height) throw new Error("wrong plan");
        }),
      });
    }
    groups.push(tasks);
  }
  return groups;
}

/** Case 4: getDoneHeight and getLastCompletedUpgrade with 10, 1,000 and 100,000 applied upgrades. */
export async function doneLookups(backends: readonly Backend[] = BACKENDS): Promise<BenchTask[][]> {
  const groups: BenchTask[][] = [];
  for (const n of [10, 1000, 100_000]) {
    const done: BenchTask[] = [];
    const last: BenchTask[] = [];
    for (const backend of backends) {
      const core = await loadCore(backend);
      const keeper = await keeperOn(backend, storeWithDone(core, n));
      const names = Array.from({ length: 64 }, (_, i) => doneName(Math.floor((i * n) / 64)));
      done.push({
        case: 4,
        id: `getDoneHeight, ${n} applied`,
        impl: backend,
        ops: 1000,
        sample: timed(1000, (i) => {
          if (keeper.getDoneHeight(names[i & 63]) === 0n) throw new Error("not done");
        }),
      });
      const ops = n <= 10 ? 1000 : n <= 1000 ? 20 : 1;
      last.push({
        case: 4,
        id: `getLastCompletedUpgrade, ${n} applied`,
        impl: backend,
        ops,
        sample: timed(ops, () => {
          if (keeper.getLastCompletedUpgrade()?.name !== doneName(n - 1)) throw new Error("wrong last upgrade");
        }),
      });
    }
    groups.push(done, last);
  }
  return groups;
}
