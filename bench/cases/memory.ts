/**
 * Case 8: memory after 10^6 preBlock calls and 10^5 schedule/apply cycles, in a process of its own.
 * Each cycle deletes the previous done record before scheduling again, so the *store* stays the same
 * size and what is watched is the core: WebAssembly linear memory (which never shrinks, so any leak
 * shows) and the process RSS / JS heap after a full GC.
 */
import type { Backend } from "../../bindings/core/contract.js";
import { MemoryStore } from "../../bindings/store/memory.js";
import { heights, keeperOn, noopHandler, versionMap } from "../fixtures.js";

export interface MemorySnapshot {
  at: string;
  /** Linear memory of the keeper's core instance (wasm backend only). */
  wasmMemoryBytes: number | null;
  rssBytes: number;
  heapUsedBytes: number;
}

export interface MemoryRun {
  backend: Backend;
  preBlocks: number;
  cycles: number;
  snapshots: MemorySnapshot[];
  /** Linear-memory growth from the fresh instance to the end. */
  wasmGrowthBytes: number | null;
  seconds: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

export async function memoryRun(backend: Backend, preBlocks: number, cycles: number): Promise<MemoryRun> {
  const t0 = performance.now();
  const store = new MemoryStore();
  const keeper = await keeperOn(backend, store);
  // The session is the keeper's private core binding; read its linear-memory size for diagnostics only.
  const session = keeper["session"] as { memoryBytes?: number };
  const snapshots: MemorySnapshot[] = [];
  const snap = (at: string) => {
    gc?.();
    const m = process.memoryUsage();
    snapshots.push({ at, wasmMemoryBytes: session.memoryBytes ?? null, rssBytes: m.rss, heapUsedBytes: m.heapUsed });
  };
  snap("fresh keeper");

  keeper.setModuleVersionMap(versionMap(10));
  keeper.setUpgradeHandler("next", noopHandler);
  keeper.scheduleUpgrade({ name: "far", height: 10n ** 12n }, 1n);
  const hs = heights(1_000n);
  for (let i = 0; i < preBlocks; i++) await keeper.preBlock(hs[i & 1023]);
  snap(`after ${preBlocks} preBlock (plan far ahead)`);

  keeper.clearUpgradePlan();
  const doneKey = keeper.core.doneKey("next");
  let h = 10_000n;
  for (let i = 0; i < cycles; i++) {
    store.delete(doneKey);
    h += 1n;
    keeper.scheduleUpgrade({ name: "next", height: h, info: "cycle" }, h);
    const r = await keeper.preBlock(h);
    if (!r.consensusParamsChanged) throw new Error("the upgrade was not applied");
  }
  snap(`after ${cycles} schedule/apply cycles`);

  const first = snapshots[0].wasmMemoryBytes;
  const last = snapshots[snapshots.length - 1].wasmMemoryBytes;
  return {
    backend,
    preBlocks,
    cycles,
    snapshots,
    wasmGrowthBytes: first === null || last === null ? null : last - first,
    seconds: (performance.now() - t0) / 1000,
  };
}
