/**
 * Store entries in batches, the codecs a light client uses on raw store entries: done and module-version
 * entries decoded, heights encoded. Twin of assembly/entries.ts (the same checks, entry by entry, in order).
 */
import type { CompletedUpgrade, ModuleVersion } from "../types.js";
import { Status, statusError } from "../status.js";
import { DONE_PREFIX, VERSION_PREFIX } from "../constants.generated.js";
import { checkedInt64, checkedUint64 } from "./bigendian.js";
import { nameOfKey } from "./keys.js";

/** Every key must start with `prefix` and hold a UTF-8 name; `make` checks the value. Keys and values are checked arrays. */
function decodeEntries<T>(
  prefix: number,
  keys: Uint8Array[],
  values: Uint8Array[],
  make: (name: string, key: Uint8Array, value: Uint8Array) => T,
): T[] {
  const out = new Array<T>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key.length === 0 || key[0] !== prefix) throw statusError(Status.WrongPrefix, { key });
    const name = nameOfKey(key);
    out[i] = make(name, key, values[i]);
  }
  return out;
}

export function decodeDoneEntries(keys: Uint8Array[], values: Uint8Array[]): CompletedUpgrade[] {
  return decodeEntries(DONE_PREFIX, keys, values, (name, key, value) => ({ name, height: checkedInt64(key, value) }));
}

export function decodeModuleVersionEntries(keys: Uint8Array[], values: Uint8Array[]): ModuleVersion[] {
  return decodeEntries(VERSION_PREFIX, keys, values, (name, key, value) => ({ name, version: checkedUint64(key, value) }));
}

/** 8 big-endian bytes per height. */
export function encodeHeightsBE(heights: BigInt64Array): Uint8Array {
  const out = new Uint8Array(heights.length * 8);
  const view = new DataView(out.buffer);
  for (let i = 0; i < heights.length; i++) view.setBigInt64(i * 8, heights[i]);
  return out;
}
