/**
 * The WebAssembly core: codecs on a shared instance, keeper sessions on an instance per store. Host side
 * of assembly/index.ts (twin: bindings/core/js/index.ts). Every entry point checks its arguments first
 * (../args.ts), before anything is written into linear memory, as the js core does.
 */
import type { KVStore } from "../kv.js";
import type { Plan } from "../types.js";
import type { Core, CoreSession } from "../contract.js";
import {
  checkBytes,
  checkBytes8,
  checkEntries,
  checkHeightsArray,
  checkInt64,
  checkPlan,
  checkSkipHeights,
  checkStore,
  checkString,
  checkUint64,
} from "../args.js";
import { H_INFO_LEN, H_INFO_PTR, H_NAME_LEN, H_NAME_PTR, H_PLAN_HEIGHT, H_VALUE, PROTOCOL_VERSION_PREFIX } from "../constants.generated.js";
import { WASM_BASE64 } from "./bytes.generated.js";
import { CoreInstance } from "./instance.js";
import { PLAN_KEY } from "./layout.js";
import { WasmSession } from "./keeper.js";
import { decodeDoneEntries, decodeDoneEntriesAnyLayout, decodeModuleVersionEntries, encodeHeightsBE } from "./entries.js";
import { parseCoin } from "./coin.js";
import * as ics23 from "./ics23.js";
import { checkSpec, planStoreProof } from "../ics23.js";

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

const PROTOCOL_VERSION_KEY = Uint8Array.of(PROTOCOL_VERSION_PREFIX);

export function createWasmCore(module: WebAssembly.Module): Core {
  const c = new CoreInstance(module);
  const x = c.x;

  const named = (fn: (nameLen: number) => void, what: string) => (name: string) => {
    fn(c.putName(checkString(name, what)));
    return c.out();
  };
  const byHeight = (fn: (h: bigint) => void) => (height: bigint) => {
    fn(checkInt64(height, "height"));
    return c.out();
  };
  const encode64 = (value: bigint) => {
    x.encode64BE(value);
    return c.out();
  };
  const decode64 = (bytes: Uint8Array) => {
    c.putBytes(checkBytes8(bytes));
    x.decode64BE();
    return c.hi64(H_VALUE);
  };

  return {
    backend: "wasm",
    planKey: () => PLAN_KEY.slice(),
    doneKey: named(x.doneKey, "name"),
    moduleVersionKey: named(x.moduleVersionKey, "module name"),
    protocolVersionKey: () => PROTOCOL_VERSION_KEY.slice(),
    upgradedClientKey: byHeight(x.upgradedClientKey),
    upgradedConsStateKey: byHeight(x.upgradedConsStateKey),

    encodeInt64BE: (value) => encode64(checkInt64(value, "value")),
    encodeUint64BE: (value) => encode64(checkUint64(value, "value")),
    decodeInt64BE: decode64,
    decodeUint64BE: (bytes) => BigInt.asUintN(64, decode64(bytes)),

    encodePlan(plan: Plan) {
      checkPlan(plan);
      const [nameLen, infoLen] = c.putNameInfo(plan.name, plan.info);
      c.check(x.encodePlan(nameLen, infoLen, plan.height));
      return c.out();
    },
    decodePlan(bytes: Uint8Array): Plan {
      c.check(x.decodePlan(c.putBytes(checkBytes(bytes, "plan bytes"))));
      return {
        name: c.str(H_NAME_PTR, H_NAME_LEN),
        height: c.hi64(H_PLAN_HEIGHT),
        info: c.str(H_INFO_PTR, H_INFO_LEN),
      };
    },
    validateBasic(plan, timeIsZero = true) {
      checkPlan(plan);
      c.check(x.validateBasic(c.putName(plan.name), plan.height, timeIsZero ? 1 : 0));
    },
    shouldExecute(planHeight, blockHeight) {
      checkInt64(planHeight, "plan height");
      checkInt64(blockHeight, "block height");
      return x.shouldExecute(planHeight, blockHeight) !== 0;
    },

    decodeDoneEntries(keys, values) {
      checkEntries(keys, values);
      return decodeDoneEntries(c, keys, values);
    },
    decodeDoneEntriesAnyLayout(keys, values) {
      checkEntries(keys, values);
      return decodeDoneEntriesAnyLayout(c, keys, values);
    },
    decodeModuleVersionEntries(keys, values) {
      checkEntries(keys, values);
      return decodeModuleVersionEntries(c, keys, values);
    },
    encodeHeightsBE: (heights) => encodeHeightsBE(c, checkHeightsArray(heights)),

    parseCoin: (text) => parseCoin(c, checkString(text, "coin expression")),

    sha256: (data) => ics23.sha256(c, checkBytes(data, "data")),
    ics23CalculateRoot: (proof) => ics23.calculateRoot(c, checkBytes(proof, "proof")),
    ics23VerifyMembership(spec, root, proof, key, value) {
      const cs = checkSpec(spec);
      ics23.verifyMembership(c, cs, checkBytes(root, "root"), checkBytes(proof, "proof"), checkBytes(key, "key"), checkBytes(value, "value"));
    },
    ics23VerifyNonMembership(spec, root, proof, key) {
      const cs = checkSpec(spec);
      return ics23.verifyNonMembership(c, cs, checkBytes(root, "root"), checkBytes(proof, "proof"), checkBytes(key, "key"));
    },
    ics23VerifyStoreProof(appHash, proofOps, storeName, key, value) {
      const ops = planStoreProof(appHash, proofOps, storeName, key, value);
      return ics23.verifyStoreProof(c, ops, proofOps, appHash, key, value);
    },

    session(store: KVStore, skipHeights: readonly bigint[]): CoreSession {
      return new WasmSession(module, checkStore(store), checkSkipHeights(skipHeights));
    },
  };
}
