/**
 * Case 9: the same calls through @assemblyscript/loader instead of the project's bindings.
 *
 * The same release.wasm and the same number-only exports, so the difference is the binding style alone:
 * the loader wraps every export in a rest-args closure that sets the arguments length, and its helpers
 * (`__getString`, `__getArrayView`, …) make fresh typed-array views of `memory.buffer` on every access. The
 * loader has no UTF-8 helpers (it speaks UTF-16 AS strings), so names go through TextEncoder/TextDecoder,
 * as a loader user would write them. The project's bindings instead keep cached views, write ASCII names
 * with a byte loop and call the instance's exports directly (bindings/core/wasm/instance.ts).
 */
import { instantiateSync } from "@assemblyscript/loader";
import { compileCore } from "../../bindings/core/wasm/index.js";
import { loadCore } from "../../bindings/core/index.js";
import { H_INFO_LEN, H_INFO_PTR, H_NAME_LEN, H_NAME_PTR, H_OUT_LEN, H_PLAN_HEIGHT, H_VALUE } from "../../bindings/core/constants.generated.js";
import { PLAN_KEY, type CoreExports } from "../../bindings/core/wasm/layout.js";
import type { KVStore } from "../../bindings/core/kv.js";
import { MemoryStore } from "../../bindings/store/memory.js";
import type { Plan } from "../../bindings/core/types.js";
import { PLANS, doneName, heights, storeWithDone } from "../fixtures.js";
import { type BenchTask, timed } from "../harness.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

class LoaderCore {
  private x: CoreExports;
  private header: number;
  private store: KVStore;
  private lastPlan: Uint8Array | undefined;

  constructor(module: WebAssembly.Module, store: KVStore) {
    const mem = () => new Uint8Array(this.x.memory.buffer);
    const { exports } = instantiateSync(module, {
      host: {
        kvGet: (keyPtr: number, keyLen: number, dst: number, cap: number) => {
          const value = store.get(mem().slice(keyPtr, keyPtr + keyLen));
          if (value === undefined) return -1;
          if (value.length <= cap) mem().set(value, dst);
          return value.length;
        },
        kvGetPlan: () => this.readPlan(),
        kvSet: (keyPtr: number, keyLen: number, valPtr: number, valLen: number) => {
          store.set(mem().slice(keyPtr, keyPtr + keyLen), mem().slice(valPtr, valPtr + valLen));
        },
        kvDelete: (keyPtr: number, keyLen: number) => store.delete(mem().slice(keyPtr, keyPtr + keyLen)),
        kvScan: (prefix: number) => {
          const entries = [...store.iterate(Uint8Array.of(prefix), Uint8Array.of(prefix + 1))];
          let at = this.x.scanReserve(entries.reduce((n, [k, v]) => n + 8 + k.length + v.length, 0));
          const u8 = mem();
          const dv = new DataView(u8.buffer);
          for (const [key, value] of entries) {
            dv.setUint32(at, key.length, true);
            u8.set(key, at + 4);
            at += 4 + key.length;
            dv.setUint32(at, value.length, true);
            u8.set(value, at + 4);
            at += 4 + value.length;
          }
          return entries.length;
        },
        // The done range for lastCompleted, loader style: slots for lastChunk (assembly/keeper.ts), then the key it asked for.
        kvScanDone: () => {
          const entries = [...store.iterate(Uint8Array.of(1), Uint8Array.of(2))];
          let want: Uint8Array | undefined;
          if (entries.length > 0) {
            const at = this.x.scanReserve(entries.length * 12);
            const dv = new DataView(this.x.memory.buffer);
            entries.forEach(([, v], i) => {
              dv.setInt32(at + i * 12, v.length, true);
              if (v.length === 8) {
                const be = new DataView(v.buffer, v.byteOffset, 8);
                dv.setInt32(at + i * 12 + 4, be.getInt32(0), true);
                dv.setInt32(at + i * 12 + 8, be.getInt32(4), true);
              }
            });
            const r = this.x.lastChunk(entries.length, 1);
            want = entries[r >= 0 ? r : -2 - r][0]; // the winner, or the corrupt record
          }
          if (want === undefined) return -1;
          new Uint8Array(this.x.memory.buffer).set(want, this.x.scanReserve(want.length));
          return want.length;
        },
      },
    });
    this.x = exports as unknown as CoreExports;
    this.header = this.x.headerPtr();
    this.store = store;
  }

  /** The same protocol as the bindings (kvGetPlan in assembly/host.ts), loader style. */
  private readPlan(): number {
    const value = this.store.get(PLAN_KEY);
    if (value === this.lastPlan) return value === undefined ? -1 : -2;
    this.lastPlan = undefined;
    if (value === undefined) return -1;
    const dst = this.x.planReserve(value.length);
    new Uint8Array(this.x.memory.buffer).set(value, dst);
    this.lastPlan = value;
    return value.length;
  }

  private i32(offset: number): number {
    return new Int32Array(this.x.memory.buffer)[(this.header + offset) >> 2];
  }

  private i64(offset: number): bigint {
    return new BigInt64Array(this.x.memory.buffer)[(this.header + offset) >> 3];
  }

  private put(...parts: Uint8Array[]): number[] {
    const io = this.x.ioReserve(parts.reduce((n, p) => n + p.length, 0));
    const u8 = new Uint8Array(this.x.memory.buffer);
    let at = io;
    for (const p of parts) {
      u8.set(p, at);
      at += p.length;
    }
    return parts.map((p) => p.length);
  }

  private str(ptrOffset: number, lenOffset: number): string {
    const ptr = this.i32(ptrOffset);
    return decoder.decode(new Uint8Array(this.x.memory.buffer, ptr, this.i32(lenOffset)));
  }

  private plan(): Plan {
    return { name: this.str(H_NAME_PTR, H_NAME_LEN), height: this.i64(H_PLAN_HEIGHT), info: this.str(H_INFO_PTR, H_INFO_LEN) };
  }

  schedule(plan: Plan, blockHeight: bigint): void {
    const [n, i] = this.put(encoder.encode(plan.name), encoder.encode(plan.info));
    if (this.x.schedule(n, i, plan.height, blockHeight) !== 0) throw new Error("schedule failed");
  }

  /** Only the outcomes these cases reach: nothing to do, or a plan in the header. */
  preBlock(h: bigint): { action: string; plan?: Plan } {
    const r = this.x.preBlock(h, this.readPlan());
    if (r < 0) throw new Error(`status ${-r}`);
    return r === 0 ? { action: "none" } : { action: String(r), plan: this.plan() };
  }

  doneHeight(name: string): bigint {
    const [n] = this.put(encoder.encode(name));
    if (this.x.doneHeight(n) !== 0) throw new Error("doneHeight failed");
    return this.i64(H_VALUE);
  }

  encodePlan(plan: Plan): Uint8Array {
    const [n, i] = this.put(encoder.encode(plan.name), encoder.encode(plan.info));
    if (this.x.encodePlan(n, i, plan.height) !== 0) throw new Error("encodePlan failed");
    const out = this.x.outPtr();
    return new Uint8Array(this.x.memory.buffer).slice(out, out + this.i32(H_OUT_LEN));
  }

  decodePlan(bytes: Uint8Array): Plan {
    const [n] = this.put(bytes);
    if (this.x.decodePlan(n) !== 0) throw new Error("decodePlan failed");
    return this.plan();
  }
}

export async function loaderVsBindings(): Promise<BenchTask[][]> {
  const module = await compileCore();
  const wasm = await loadCore("wasm");
  const hs = heights(1_000n);
  const far = { name: "far", height: 10n ** 12n, info: "" };

  const viaLoader = new LoaderCore(module, new MemoryStore());
  const viaBindings = wasm.session(new MemoryStore(), []);
  viaLoader.schedule(far, 1n);
  viaBindings.schedule(far, 1n);

  const doneStore = storeWithDone(wasm, 1000);
  const doneLoader = new LoaderCore(module, doneStore);
  const doneBindings = wasm.session(doneStore, []);
  const names = Array.from({ length: 64 }, (_, i) => doneName(i * 15));

  const { plan } = PLANS[1];
  const bytes = wasm.encodePlan(plan);

  type Api = { preBlock(h: bigint): { action: string } };
  const pairs: [string, (impl: "wasm" | "loader") => () => number][] = [
    [
      "preBlock, nothing due (plan far ahead): core session",
      (impl) => {
        const s: Api = impl === "loader" ? viaLoader : viaBindings;
        return timed(2000, (i) => {
          if (s.preBlock(hs[i & 1023]).action !== "none") throw new Error("unexpected action");
        });
      },
    ],
    [
      "doneHeight, 1000 applied: core session",
      (impl) => {
        const s = impl === "loader" ? doneLoader : doneBindings;
        return timed(2000, (i) => {
          if (s.doneHeight(names[i & 63]) === 0n) throw new Error("not done");
        });
      },
    ],
    [
      `Plan encode (with-info, ${bytes.length} B)`,
      (impl) => {
        const c = impl === "loader" ? viaLoader : wasm;
        return timed(2000, () => {
          if (c.encodePlan(plan).length !== bytes.length) throw new Error("wrong length");
        });
      },
    ],
    [
      `Plan decode (with-info, ${bytes.length} B)`,
      (impl) => {
        const c = impl === "loader" ? viaLoader : wasm;
        return timed(2000, () => {
          if (c.decodePlan(bytes).height !== plan.height) throw new Error("wrong height");
        });
      },
    ],
  ];
  return pairs.map(([id, make]) =>
    (["wasm", "loader"] as const).map((impl) => ({ case: 9, id: `${id} — loader vs bindings`, impl, ops: 2000, sample: make(impl) })),
  );
}
