/**
 * Type checks at the public entry points. Programmer misuse (wrong types, unsafe numbers, values outside
 * int64/uint64, malformed strings) is a TypeError; everything the chain decides is left to the core.
 */
import type { Plan, PlanInput, VersionMap } from "../core/types.js";
import { checkString } from "../core/args.js";
import { INT64_MAX, isInt64, isUint64 } from "../go/int.js";

function toBigInt(value: unknown, what: string): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new TypeError(`${what} must be a safe integer or a bigint, got ${value}`);
    return BigInt(value);
  }
  throw new TypeError(`${what} must be a bigint or a safe integer number, got ${typeof value}`);
}

export function toInt64(value: unknown, what: string): bigint {
  const v = toBigInt(value, what);
  if (!isInt64(v)) throw new TypeError(`${what} ${v} is outside int64`);
  return v;
}

export function toUint64(value: unknown, what: string): bigint {
  const v = toBigInt(value, what);
  if (!isUint64(v)) throw new TypeError(`${what} ${v} is outside uint64`);
  return v;
}

/** A block height: an int64 of at least 1. */
export function toBlockHeight(value: unknown, what = "block height"): bigint {
  if (typeof value === "bigint" && value > 0n && value <= INT64_MAX) return value; // the per-block path
  const v = toInt64(value, what);
  if (v <= 0n) throw new TypeError(`${what} must be at least 1, got ${v}`);
  return v;
}

/** A string that encodes losslessly as UTF-8 (no lone surrogates). Empty allowed. The core's own check, so both floors refuse alike. */
export function toUtf8String(value: unknown, what: string): string {
  return checkString(value, what);
}

/** An upgrade or module name: a non-empty well-formed string. */
export function toName(value: unknown, what = "name"): string {
  const s = toUtf8String(value, what);
  if (s.length === 0) throw new TypeError(`${what} must not be empty`);
  return s;
}

/** A plan as the core takes it; the name may be empty and the height <= 0 (ValidateBasic reports those). */
export function toPlan(value: unknown): Plan {
  if (typeof value !== "object" || value === null) throw new TypeError("plan must be an object {name, height, info?}");
  const p = value as PlanInput;
  return {
    name: toUtf8String(p.name, "plan name"),
    height: toInt64(p.height, "plan height"),
    info: p.info === undefined || p.info === null ? "" : toUtf8String(p.info, "plan info"),
  };
}

/** A version map from a Map or a plain object; names non-empty, versions uint64. */
export function toVersionMap(value: unknown, what = "version map"): VersionMap {
  let entries: Iterable<[unknown, unknown]>;
  if (value instanceof Map) entries = value;
  else if (typeof value === "object" && value !== null && !Array.isArray(value)) entries = Object.entries(value);
  else throw new TypeError(`${what} must be a Map<string, bigint>`);
  const vm: VersionMap = new Map();
  for (const [name, version] of entries) {
    vm.set(toName(name, `${what} module name`), toUint64(version, `${what} version of ${String(name)}`));
  }
  return vm;
}
