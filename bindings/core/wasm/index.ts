/** The WebAssembly core: codecs on a shared instance, keeper sessions on an instance per store. */
import type { KVStore } from "../kv.js";
import type { CompletedUpgrade, ModuleVersion, Plan } from "../types.js";
import type { Core, CoreSession } from "../contract.js";
import { WASM_BASE64 } from "./bytes.generated.js";
import { CoreInstance } from "./instance.js";
import { H_INFO_LEN, H_INFO_PTR, H_NAME_LEN, H_NAME_PTR, H_PLAN_HEIGHT, H_VALUE, PLAN_KEY } from "./layout.js";
import { WasmSession, readEntries } from "./session.js";
import { wasmParseCoin } from "./coin.js";

let compiled: Promise<WebAssembly.Module> | undefined;

/** The core's bytes, decoded from the inlined base64. */
export function wasmBytes(): Uint8Array {
  const bin = atob(WASM_BASE64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** Compiles the module once per process (async: browsers refuse large synchronous compiles). */
export function compileCore(): Promise<WebAssembly.Module> {
  compiled ??= WebAssembly.compile(wasmBytes() as Uint8Array<ArrayBuffer>);
  return compiled;
}

const PROTOCOL_VERSION_KEY = Uint8Array.of(0x03);

export function createWasmCore(module: WebAssembly.Module): Core {
  const c = new CoreInstance(module);
  const x = c.x;

  const named = (fn: (nameLen: number) => void) => (name: string) => {
    fn(c.putName(name));
    return c.out();
  };
  const byHeight = (fn: (h: bigint) => void) => (height: bigint) => {
    fn(height);
    return c.out();
  };
  const encode64 = (value: bigint) => {
    x.encode64BE(value);
    return c.out();
  };
  const decode64 = (bytes: Uint8Array) => {
    if (bytes.length !== 8) throw new TypeError(`expected 8 bytes, got ${bytes.length}`);
    c.putBytes(bytes);
    x.decode64BE();
    return c.hi64(H_VALUE);
  };
  const decodeEntries = <T>(
    prefix: number,
    kind: "int64" | "uint64",
    keys: Uint8Array[],
    values: Uint8Array[],
    make: (n: string, v: bigint) => T,
  ) => {
    if (keys.length !== values.length) throw new TypeError("keys and values differ in length");
    let size = 0;
    for (let i = 0; i < keys.length; i++) size += 8 + keys[i].length + values[i].length;
    let at = c.reserve(size);
    const u8 = c.u8;
    const dv = c.dv;
    // Byte loops, not u8.set: keys and values are a few bytes and set()'s call overhead dominated.
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const value = values[i];
      const keyLen = key.length;
      const valueLen = value.length;
      dv.setUint32(at, keyLen, true);
      at += 4;
      if (keyLen > 32) u8.set(key, at);
      else for (let j = 0; j < keyLen; j++) u8[at + j] = key[j];
      at += keyLen;
      dv.setUint32(at, valueLen, true);
      at += 4;
      if (valueLen > 32) u8.set(value, at);
      else for (let j = 0; j < valueLen; j++) u8[at + j] = value[j];
      at += valueLen;
    }
    c.check(x.decodeEntries(prefix, keys.length));
    return readEntries(c, keys.length, kind, make);
  };

  return {
    backend: "wasm",
    planKey: () => PLAN_KEY.slice(),
    doneKey: named(x.doneKey),
    moduleVersionKey: named(x.moduleVersionKey),
    protocolVersionKey: () => PROTOCOL_VERSION_KEY.slice(),
    upgradedClientKey: byHeight(x.upgradedClientKey),
    upgradedConsStateKey: byHeight(x.upgradedConsStateKey),

    encodeInt64BE: encode64,
    encodeUint64BE: encode64,
    decodeInt64BE: decode64,
    decodeUint64BE: (bytes) => BigInt.asUintN(64, decode64(bytes)),

    encodePlan(plan: Plan) {
      const [nameLen, infoLen] = c.putNameInfo(plan.name, plan.info);
      c.check(x.encodePlan(nameLen, infoLen, plan.height));
      return c.out();
    },
    decodePlan(bytes: Uint8Array): Plan {
      c.check(x.decodePlan(c.putBytes(bytes)));
      return {
        name: c.str(H_NAME_PTR, H_NAME_LEN),
        height: c.hi64(H_PLAN_HEIGHT),
        info: c.str(H_INFO_PTR, H_INFO_LEN),
      };
    },
    validateBasic(plan, timeIsZero = true) {
      c.check(x.validateBasic(c.putName(plan.name), plan.height, timeIsZero ? 1 : 0));
    },
    shouldExecute: (planHeight, blockHeight) => x.shouldExecute(planHeight, blockHeight) !== 0,

    decodeDoneEntries: (keys, values): CompletedUpgrade[] =>
      decodeEntries(0x01, "int64", keys, values, (name, height) => ({ name, height })),
    decodeModuleVersionEntries: (keys, values): ModuleVersion[] =>
      decodeEntries(0x02, "uint64", keys, values, (name, version) => ({ name, version })),
    encodeHeightsBE(heights: BigInt64Array) {
      const at = c.reserve(heights.length * 8);
      if (at % 8 === 0) new BigInt64Array(c.u8.buffer, at, heights.length).set(heights);
      else for (let i = 0; i < heights.length; i++) c.dv.setBigInt64(at + i * 8, heights[i], true);
      x.encodeHeightsBE(heights.length);
      return c.out();
    },

    parseCoin: (text: string) => wasmParseCoin(c, text),

    session(store: KVStore, skipHeights: readonly bigint[]): CoreSession {
      return new WasmSession(module, store, skipHeights);
    },
  };
}
