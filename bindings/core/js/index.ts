/**
 * The pure-TypeScript core: the same contract as the WebAssembly core, for comparison and as a fallback.
 * Twin of assembly/index.ts. Every entry point checks its arguments first (../args.ts), as the wasm core does.
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
import { encodeInt64BE, encodeUint64BE, readInt64BE, readUint64BE } from "./bigendian.js";
import { DONE_PREFIX, PLAN_KEY, PROTOCOL_VERSION_KEY, VERSION_PREFIX, ibcClientKey, ibcConsStateKey, prefixedKey } from "./keys.js";
import { decodePlan, encodePlanUnchecked, validateBasic } from "./plan.js";
import { decodeDoneEntries, decodeDoneEntriesAnyLayout, decodeModuleVersionEntries, encodeHeightsBE } from "./entries.js";
import { JsSession } from "./keeper.js";
import { parseCoin } from "./coin.js";

export const jsCore: Core = {
  backend: "js",
  planKey: () => PLAN_KEY.slice(),
  doneKey: (name) => prefixedKey(DONE_PREFIX, checkString(name, "name")),
  moduleVersionKey: (module) => prefixedKey(VERSION_PREFIX, checkString(module, "module name")),
  protocolVersionKey: () => PROTOCOL_VERSION_KEY.slice(),
  upgradedClientKey: (height) => ibcClientKey(checkInt64(height, "height")),
  upgradedConsStateKey: (height) => ibcConsStateKey(checkInt64(height, "height")),

  encodeInt64BE: (value) => encodeInt64BE(checkInt64(value, "value")),
  encodeUint64BE: (value) => encodeUint64BE(checkUint64(value, "value")),
  decodeInt64BE: (bytes) => readInt64BE(checkBytes8(bytes), 0),
  decodeUint64BE: (bytes) => readUint64BE(checkBytes8(bytes), 0),

  encodePlan(plan: Plan) {
    checkPlan(plan);
    validateBasic(plan, true);
    return encodePlanUnchecked(plan);
  },
  decodePlan: (bytes) => decodePlan(checkBytes(bytes, "plan bytes")),
  validateBasic: (plan, timeIsZero = true) => validateBasic(checkPlan(plan), timeIsZero),
  shouldExecute(planHeight, blockHeight) {
    checkInt64(planHeight, "plan height");
    checkInt64(blockHeight, "block height");
    return planHeight > 0n && planHeight <= blockHeight;
  },

  decodeDoneEntries(keys, values) {
    checkEntries(keys, values);
    return decodeDoneEntries(keys, values);
  },
  decodeDoneEntriesAnyLayout(keys, values) {
    checkEntries(keys, values);
    return decodeDoneEntriesAnyLayout(keys, values);
  },
  decodeModuleVersionEntries(keys, values) {
    checkEntries(keys, values);
    return decodeModuleVersionEntries(keys, values);
  },
  encodeHeightsBE: (heights) => encodeHeightsBE(checkHeightsArray(heights)),

  parseCoin: (text) => parseCoin(checkString(text, "coin expression")),

  session(store: KVStore, skipHeights: readonly bigint[]): CoreSession {
    return new JsSession(checkStore(store), checkSkipHeights(skipHeights));
  },
};
