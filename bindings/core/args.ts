/**
 * The checks at the core's entry points (docs/spec/core.md §2.5). Both cores call these before they do
 * any work — before a byte is written into linear memory, a key is built or the store is touched — so
 * they refuse the same ill-formed arguments with the same TypeError. Everything above the core (the
 * keeper's bindings/module/input.ts) uses the same string check, so there is one definition of a
 * well-formed string in the project.
 *
 * Not checked, to keep the per-block path free: `CoreSession.preBlock(h)` (the keeper hands it a bigint
 * in [1, 2^63-1]).
 */
import { isInt64, isUint64 } from "../go/int.js";
import type { KVStore } from "./kv.js";
import type { Plan, VersionMap } from "./types.js";

/**
 * A string argument: a string with no lone surrogate, so that it has exactly one UTF-8 encoding (a lone
 * surrogate would reach the WebAssembly core as U+FFFD and the TypeScript core unchanged). Empty is allowed.
 */
export function checkString(value: unknown, what: string): string {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${typeof value}`);
  if (!value.isWellFormed()) throw new TypeError(`${what} is not valid UTF-8 (it holds a lone surrogate)`);
  return value;
}

/** A bigint argument within int64. */
export function checkInt64(value: unknown, what: string): bigint {
  if (typeof value !== "bigint") throw new TypeError(`${what} must be a bigint, got ${typeof value}`);
  if (!isInt64(value)) throw new TypeError(`${what} ${value} is outside int64`);
  return value;
}

/** A bigint argument within uint64. */
export function checkUint64(value: unknown, what: string): bigint {
  if (typeof value !== "bigint") throw new TypeError(`${what} must be a bigint, got ${typeof value}`);
  if (!isUint64(value)) throw new TypeError(`${what} ${value} is outside uint64`);
  return value;
}

export function checkBytes(value: unknown, what: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array, got ${kindOf(value)}`);
  return value;
}

/** An 8-byte big-endian value. */
export function checkBytes8(value: unknown): Uint8Array {
  const b = checkBytes(value, "bytes");
  if (b.length !== 8) throw new TypeError(`expected 8 bytes, got ${b.length}`);
  return b;
}

/** A Plan: an object whose name and info are well-formed strings and whose height is an int64. */
export function checkPlan(value: unknown): Plan {
  if (typeof value !== "object" || value === null) throw new TypeError(`plan must be an object {name, height, info}, got ${kindOf(value)}`);
  const p = value as Plan;
  checkString(p.name, "plan name");
  checkInt64(p.height, "plan height");
  checkString(p.info, "plan info");
  return p;
}

/** A VersionMap: a Map of well-formed module names to uint64 versions (every entry checked before any is used). */
export function checkVersionMap(value: unknown): VersionMap {
  if (!(value instanceof Map)) throw new TypeError(`version map must be a Map<string, bigint>, got ${kindOf(value)}`);
  for (const [name, version] of value as Map<unknown, unknown>) {
    checkString(name, "version map module name");
    checkUint64(version, `version map version of ${name as string}`);
  }
  return value as VersionMap;
}

/** Raw store entries for a batch decode: two arrays of Uint8Array, as long as each other. */
export function checkEntries(keys: unknown, values: unknown): void {
  if (!Array.isArray(keys)) throw new TypeError(`keys must be an array of Uint8Array, got ${kindOf(keys)}`);
  if (!Array.isArray(values)) throw new TypeError(`values must be an array of Uint8Array, got ${kindOf(values)}`);
  if (keys.length !== values.length) throw new TypeError("keys and values differ in length");
  for (let i = 0; i < keys.length; i++) {
    if (!(keys[i] instanceof Uint8Array)) throw new TypeError(`key ${i} must be a Uint8Array, got ${kindOf(keys[i])}`);
    if (!(values[i] instanceof Uint8Array)) throw new TypeError(`value ${i} must be a Uint8Array, got ${kindOf(values[i])}`);
  }
}

export function checkHeightsArray(value: unknown): BigInt64Array {
  if (!(value instanceof BigInt64Array)) throw new TypeError(`heights must be a BigInt64Array, got ${kindOf(value)}`);
  return value;
}

/** The skip heights of a session: an array of int64s. */
export function checkSkipHeights(value: unknown): readonly bigint[] {
  if (!Array.isArray(value)) throw new TypeError(`skip heights must be an array of bigints, got ${kindOf(value)}`);
  for (const h of value) checkInt64(h, "skip height");
  return value;
}

const STORE_METHODS = ["get", "has", "set", "delete", "iterate"] as const;

export function checkStore(value: unknown): KVStore {
  const s = value as Record<string, unknown> | null;
  if (typeof s !== "object" || s === null || STORE_METHODS.some((m) => typeof s[m] !== "function")) {
    throw new TypeError(`store must be a KVStore {${STORE_METHODS.join(", ")}}, got ${kindOf(value)}`);
  }
  return value as KVStore;
}

/** `typeof`, with null, arrays and typed arrays told apart (they are the usual mix-ups). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value;
}
