/** The pure-TypeScript core: the same contract as the WebAssembly core, for comparison and as a fallback. */
import type { KVStore } from "../kv.js";
import type { CompletedUpgrade, ModuleVersion, Plan } from "../types.js";
import type { Core, CoreSession } from "../contract.js";
import { Status, statusError } from "../status.js";
import { checkedInt64, checkedUint64, encodeInt64BE, encodeUint64BE, readInt64BE, readUint64BE } from "./bigendian.js";
import {
  DONE_PREFIX,
  PLAN_KEY,
  PROTOCOL_VERSION_KEY,
  VERSION_PREFIX,
  ibcClientKey,
  ibcConsStateKey,
  nameOfKey,
  prefixedKey,
} from "./keys.js";
import { decodePlan, encodePlanUnchecked } from "./proto.js";
import { JsSession } from "./session.js";
import { validateBasic } from "./validate.js";
import { parseCoin } from "./coin.js";

function checkLength(bytes: Uint8Array): void {
  if (bytes.length !== 8) throw new TypeError(`expected 8 bytes, got ${bytes.length}`);
}

function decodeEntries<T>(
  prefix: number,
  keys: Uint8Array[],
  values: Uint8Array[],
  make: (name: string, key: Uint8Array, value: Uint8Array) => T,
): T[] {
  if (keys.length !== values.length) throw new TypeError("keys and values differ in length");
  const out = new Array<T>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key.length === 0 || key[0] !== prefix) throw statusError(Status.WrongPrefix, { key });
    const name = nameOfKey(key);
    out[i] = make(name, key, values[i]);
  }
  return out;
}


export const jsCore: Core = {
  backend: "js",
  planKey: () => PLAN_KEY.slice(),
  doneKey: (name) => prefixedKey(DONE_PREFIX, name),
  moduleVersionKey: (module) => prefixedKey(VERSION_PREFIX, module),
  protocolVersionKey: () => PROTOCOL_VERSION_KEY.slice(),
  upgradedClientKey: ibcClientKey,
  upgradedConsStateKey: ibcConsStateKey,

  encodeInt64BE,
  encodeUint64BE,
  decodeInt64BE(bytes) {
    checkLength(bytes);
    return readInt64BE(bytes, 0);
  },
  decodeUint64BE(bytes) {
    checkLength(bytes);
    return readUint64BE(bytes, 0);
  },

  encodePlan(plan: Plan) {
    validateBasic(plan, true);
    return encodePlanUnchecked(plan);
  },
  decodePlan,
  validateBasic: (plan, timeIsZero = true) => validateBasic(plan, timeIsZero),
  shouldExecute: (planHeight, blockHeight) => planHeight > 0n && planHeight <= blockHeight,

  decodeDoneEntries(keys, values): CompletedUpgrade[] {
    return decodeEntries(DONE_PREFIX, keys, values, (name, key, value) => ({ name, height: checkedInt64(key, value) }));
  },
  decodeModuleVersionEntries(keys, values): ModuleVersion[] {
    return decodeEntries(VERSION_PREFIX, keys, values, (name, key, value) => ({
      name,
      version: checkedUint64(key, value),
    }));
  },
  encodeHeightsBE(heights) {
    const out = new Uint8Array(heights.length * 8);
    const view = new DataView(out.buffer);
    for (let i = 0; i < heights.length; i++) view.setBigInt64(i * 8, heights[i]);
    return out;
  },

  parseCoin,

  session(store: KVStore, skipHeights: readonly bigint[]): CoreSession {
    return new JsSession(store, skipHeights);
  },
};
