/** Shared inputs: keepers on either core, pre-filled stores and the plans every codec case encodes. */
import type { Backend, Core } from "../bindings/core/contract.js";
import { createKeeper } from "../bindings/node.js";
import type { UpgradeKeeper } from "../bindings/module/keeper.js";
import { MemoryStore } from "../bindings/store/memory.js";
import type { Plan, VersionMap } from "../bindings/core/types.js";

export const BACKENDS: readonly Backend[] = ["wasm", "js"];

/** A keeper as a user makes one: the package's createKeeper({backend, store}). */
export function keeperOn(backend: Backend, store = new MemoryStore()): Promise<UpgradeKeeper> {
  return createKeeper({ backend, store });
}

/** The handler every applied upgrade runs: keeps the version map as it is. */
export const noopHandler = (_ctx: unknown, _plan: Plan, vm: VersionMap): VersionMap => vm;

/** 1,024 distinct heights as bigints, made once so the timed loops allocate none. */
export function heights(base: bigint): bigint[] {
  return Array.from({ length: 1024 }, (_, i) => base + BigInt(i));
}

/** `n` module names of realistic length ("module-0007"), mapped to version 1..n. */
export function versionMap(n: number): VersionMap {
  const vm: VersionMap = new Map();
  for (let i = 0; i < n; i++) vm.set(`module-${String(i).padStart(4, "0")}`, BigInt(1 + (i % 7)));
  return vm;
}

export const doneName = (i: number) => `upgrade-${String(i).padStart(6, "0")}`;

/** A store holding `n` done records, byte-identical to what n applied upgrades write. */
export function storeWithDone(core: Core, n: number): MemoryStore {
  const store = new MemoryStore();
  for (let i = 0; i < n; i++) store.set(core.doneKey(doneName(i)), core.encodeInt64BE(BigInt(1000 + i * 10)));
  return store;
}

/** The raw (key, value) pairs a light client would read from the 0x01 or 0x02 range. */
export function rawEntries(core: Core, prefix: "done" | "version", n: number): { keys: Uint8Array[]; values: Uint8Array[] } {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    if (prefix === "done") {
      keys.push(core.doneKey(doneName(i)));
      values.push(core.encodeInt64BE(BigInt(1000 + i * 10)));
    } else {
      keys.push(core.moduleVersionKey(`module-${String(i).padStart(5, "0")}`));
      values.push(core.encodeUint64BE(BigInt(1 + (i % 7))));
    }
  }
  return { keys, values };
}

/** A governance proposal's info: the JSON `binaries` map cosmovisor reads (≈ 230 bytes). */
const INFO =
  '{"binaries":{"linux/amd64":"https://github.com/example/chain/releases/download/v2.0.0/chaind-v2.0.0-linux-amd64.tar.gz?checksum=sha256:9f1c4e2b7a3d5f60812c4e9b0a7d3f6e2c1b5a4d8e7f6a5b4c3d2e1f0a9b8c7d"}}';

/** The plans of the codec cases (6) and of schedule+get (3). */
export const PLANS: { id: string; plan: Plan }[] = [
  { id: "small", plan: { name: "v2", height: 1_234_567n, info: "" } },
  { id: "with-info", plan: { name: "v2.0.0-upgrade", height: 18_500_000n, info: INFO } },
];

/**
 * Not timed: a height in [2^31, 2^32), the range where cosmjs-types 0.11 encodes int64 wrongly
 * (docs/spec/interfaces.md §11). Checked for byte-equality with the Go encoder in case 6.
 */
export const UINT32_RANGE_PLAN: Plan = { name: "v3", height: 2_147_483_648n, info: "" };
