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
import { calculateRoot, decodeProof, Refusal, verifyChain, verifyMembership, verifyNonMembership } from "./ics23.js";
import { checkSpec, ics23Error, planStoreProof, type ProvenLeaf } from "../ics23.js";
import { sha256 } from "./sha256.js";

/** A proven leaf as the caller gets it: copies, never views of the proof's bytes. */
function proven(e: { key: Uint8Array; value: Uint8Array } | undefined): ProvenLeaf | undefined {
  return e && { key: e.key.slice(), value: e.value.slice() };
}

/** Runs a verification, turning a refusal into its Ics23Error. */
function refusing<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Refusal) throw ics23Error(e.f);
    throw e;
  }
}

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

  sha256: (data) => sha256(checkBytes(data, "data")),

  ics23CalculateRoot(proof) {
    checkBytes(proof, "proof");
    return refusing(() => calculateRoot(proof));
  },
  ics23VerifyMembership(spec, root, proof, key, value) {
    const cs = checkSpec(spec);
    checkBytes(root, "root");
    checkBytes(proof, "proof");
    checkBytes(key, "key");
    checkBytes(value, "value");
    refusing(() => verifyMembership(cs, root, decodeProof(proof), key, value));
  },
  ics23VerifyNonMembership(spec, root, proof, key) {
    const cs = checkSpec(spec);
    checkBytes(root, "root");
    checkBytes(proof, "proof");
    checkBytes(key, "key");
    const np = refusing(() => verifyNonMembership(cs, root, decodeProof(proof), key)).proven;
    return { left: proven(np.left), right: proven(np.right) };
  },
  ics23VerifyStoreProof(appHash, proofOps, storeName, key, value) {
    const ops = planStoreProof(appHash, proofOps, storeName, key, value);
    const result = verifyChain(ops, appHash, value);
    if ("refusal" in result) throw ics23Error(result.refusal.f, result.op, proofOps[result.op]?.type);
    const { exist, nonexist } = result.proven;
    if (exist) return { kind: "exists", key: exist.key.slice(), value: exist.value.slice() };
    return { kind: "absent", key: key.slice(), left: proven(nonexist.left), right: proven(nonexist.right) };
  },

  session(store: KVStore, skipHeights: readonly bigint[]): CoreSession {
    return new JsSession(checkStore(store), checkSkipHeights(skipHeights));
  },
};
