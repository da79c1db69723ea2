/**
 * Store entries in batches, the codecs a light client uses on raw store entries: done and module-version
 * entries decoded (done records in either store layout), heights encoded. Twin of assembly/entries.ts (the
 * same checks, entry by entry, in order).
 */
import type { CompletedUpgrade, DoneEntries, ModuleVersion } from "../types.js";
import { Layout, Status, statusError } from "../status.js";
import { DONE_PREFIX, VERSION_PREFIX } from "../constants.generated.js";
import { checkedInt64, checkedUint64, readInt64BE } from "./bigendian.js";
import { nameOfKey } from "./keys.js";

/** Bytes of an SDK-layout done key before the name: the prefix and the big-endian height. */
const SDK_NAME_AT = 9;

/** Every key must start with `prefix` and hold a UTF-8 name; `make` checks the value. Keys and values are checked arrays. */
function decodeEntries<T>(prefix: number, keys: Uint8Array[], values: Uint8Array[], make: (name: string, key: Uint8Array, value: Uint8Array) => T): T[] {
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

/**
 * The raw done range in whichever layout it is (docs/spec/core.md §2.6). First the layout, over every record
 * in order: the prefix (WrongPrefix), one layout (CorruptDone), the same as the records before (MixedLayout);
 * then the names, in order (CorruptName).
 */
export function decodeDoneEntriesAnyLayout(keys: Uint8Array[], values: Uint8Array[]): DoneEntries {
  let layout: number = Layout.None;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const value = values[i];
    if (key.length === 0 || key[0] !== DONE_PREFIX) throw statusError(Status.WrongPrefix, { key });
    const l = value.length === 8 ? Layout.Seed : value.length === 1 && value[0] === 1 && key.length > SDK_NAME_AT ? Layout.Sdk : Layout.None;
    if (l === Layout.None) throw statusError(Status.CorruptDone, { key, length: value.length });
    if (layout === Layout.None) layout = l;
    else if (l !== layout) throw statusError(Status.MixedLayout, { key, reason: l });
  }
  if (layout === Layout.Sdk) {
    const entries = new Array<CompletedUpgrade>(keys.length);
    for (let i = 0; i < keys.length; i++) entries[i] = { name: nameOfKey(keys[i], SDK_NAME_AT), height: readInt64BE(keys[i], 1) };
    return { layout: "sdk", entries };
  }
  return { layout: layout === Layout.Seed ? "seed" : undefined, entries: decodeDoneEntries(keys, values) };
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
