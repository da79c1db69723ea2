// Store entries in batches: the codecs a light client uses on raw store entries (work stays in linear
// memory, one call per batch), and the name/value records every batch of names comes back as.
// Twin of bindings/core/js/entries.ts; host side in bindings/core/wasm/entries.ts.
//
// Name/value results for the host (module versions, decoded done entries): `count` records of
// [u32 nameBytes][u32 nameUnits][u64 value] in OUT (a name's UTF-8 length and UTF-16 length), then the
// names' UTF-8 bytes back to back. The host decodes the names a chunk of many at a time with TextDecoder
// and slices each one out: per name that costs a slice instead of a UTF-8 decode, which was most of the
// cost of a 10,000-entry batch.
//
// Done records come in two store layouts (docs/spec/core.md §2.6): the seed's `01 ‖ name → BE64(height)`,
// which this module writes, and the Cosmos SDK's (v0.46 and later) `01 ‖ BE64(height) ‖ name → 01`.
// decodeDoneEntriesAnyLayout tells them apart and decodes either into the same records.
import { loadBE64, storeBE64 } from "./bigendian";
import { H_OUT_LEN, IO, OUT, copyBytes, ensure, regionPtr, setHeaderI32 } from "./memory";
import { DONE_PREFIX } from "./keys";
import { OK } from "./status";
import { corruptDone, corruptName, corruptValue, mixedLayout, wrongPrefix } from "./store";
import { utf8Units } from "./utf8";

// The layout of a range of done records, as decodeDoneEntriesAnyLayout returns it; the host's `Layout` is
// generated from these (scripts/constants.mjs).
export const LAYOUT_NONE: i32 = 0; // no records, so no layout
export const LAYOUT_SEED: i32 = 1; // 01 ‖ name → BE64(height)
export const LAYOUT_SDK: i32 = 2; // 01 ‖ BE64(height) ‖ name → 01 (Cosmos SDK ≥ 0.46)

/** Bytes of an SDK-layout done key before the name: the prefix and the big-endian height. */
const SDK_NAME_AT: i32 = 9;

/**
 * Turns `count` raw entries at `p`, each [u32 keyLen][key][u32 valueLen][value] with key = prefix byte ‖
 * name, into records. Every entry is checked, in order, before anything is reported: the key's prefix
 * (when `prefix` >= 0), its name (UTF-8), its value (8 bytes). Returns OK or the first failure's status.
 */
export function entriesToRecords(p: usize, count: i32, prefix: i32): i32 {
  let out = ensure(OUT, count << 4);
  const first = p;
  let nameBytes = 0;
  for (let i = 0; i < count; i++) {
    const keyLen = load<i32>(p);
    const key = p + 4;
    const valueLen = load<i32>(key + <usize>keyLen);
    const value = key + <usize>keyLen + 4;
    if (prefix >= 0 && (keyLen == 0 || <i32>load<u8>(key) != prefix)) return wrongPrefix(key, keyLen);
    const n = utf8Units(key + 1, keyLen - 1);
    if (n < 0) return corruptName(key, keyLen);
    if (valueLen != 8) return corruptValue(key, keyLen, valueLen);
    const o = out + (<usize>i << 4);
    store<i32>(o, keyLen - 1);
    store<i32>(o, n, 4);
    store<u64>(o, loadBE64(value), 8);
    nameBytes += keyLen - 1;
    p = value + 8;
  }
  // Now the names, back to back after the records (growing OUT keeps the records written so far).
  out = ensure(OUT, (count << 4) + nameBytes);
  let dst = out + (<usize>count << 4);
  p = first;
  for (let i = 0; i < count; i++) {
    const keyLen = load<i32>(p);
    const len = <usize>(keyLen - 1);
    copyBytes(dst, p + 5, len);
    dst += len;
    p += 4 + <usize>keyLen + 4 + 8;
  }
  setHeaderI32(H_OUT_LEN, (count << 4) + nameBytes);
  return OK;
}

/**
 * The layout one done record fits: the seed's (an 8-byte value), the SDK's (the value 01 under a key of the
 * prefix, 8 height bytes and a name of at least one byte), or none. No record fits both.
 */
@inline function layoutOf(keyLen: i32, value: usize, valueLen: i32): i32 {
  if (valueLen == 8) return LAYOUT_SEED;
  if (valueLen == 1 && load<u8>(value) == 1 && keyLen > SDK_NAME_AT) return LAYOUT_SDK;
  return LAYOUT_NONE;
}

/**
 * SDK-layout done records at `p` (their layout already checked) into the records above: the name is the key
 * after the height, the value the height in the key.
 */
function sdkEntriesToRecords(p: usize, count: i32): i32 {
  let out = ensure(OUT, count << 4);
  const first = p;
  let nameBytes = 0;
  for (let i = 0; i < count; i++) {
    const keyLen = load<i32>(p);
    const key = p + 4;
    const n = utf8Units(key + <usize>SDK_NAME_AT, keyLen - SDK_NAME_AT);
    if (n < 0) return corruptName(key, keyLen);
    const o = out + (<usize>i << 4);
    store<i32>(o, keyLen - SDK_NAME_AT);
    store<i32>(o, n, 4);
    store<u64>(o, loadBE64(key + 1), 8);
    nameBytes += keyLen - SDK_NAME_AT;
    p = key + <usize>keyLen + 4 + 1;
  }
  out = ensure(OUT, (count << 4) + nameBytes);
  let dst = out + (<usize>count << 4);
  p = first;
  for (let i = 0; i < count; i++) {
    const keyLen = load<i32>(p);
    const len = <usize>(keyLen - SDK_NAME_AT);
    copyBytes(dst, p + 4 + <usize>SDK_NAME_AT, len);
    dst += len;
    p += 4 + <usize>keyLen + 4 + 1;
  }
  setHeaderI32(H_OUT_LEN, (count << 4) + nameBytes);
  return OK;
}

/**
 * Decodes `count` raw done records in IO, each [u32 keyLen][key][u32 valueLen][value], in whichever layout
 * they are, into the records above. First the layout, over every record in order: its key must start with
 * the done prefix (WRONG_PREFIX), fit one layout (CORRUPT_DONE) and the same one as the records before it
 * (MIXED_LAYOUT). Then the names, in order (CORRUPT_NAME). Returns the layout (LAYOUT_NONE when count is 0)
 * or -status.
 */
export function decodeDoneEntriesAnyLayout(count: i32): i32 {
  const first = regionPtr(IO);
  let p = first;
  let layout = LAYOUT_NONE;
  for (let i = 0; i < count; i++) {
    const keyLen = load<i32>(p);
    const key = p + 4;
    const valueLen = load<i32>(key + <usize>keyLen);
    const value = key + <usize>keyLen + 4;
    if (keyLen == 0 || load<u8>(key) != DONE_PREFIX) return -wrongPrefix(key, keyLen);
    const l = layoutOf(keyLen, value, valueLen);
    if (l == LAYOUT_NONE) return -corruptDone(key, keyLen, valueLen);
    if (layout == LAYOUT_NONE) layout = l;
    else if (l != layout) return -mixedLayout(key, keyLen, l);
    p = value + <usize>valueLen;
  }
  const st = layout == LAYOUT_SDK ? sdkEntriesToRecords(first, count) : entriesToRecords(first, count, DONE_PREFIX);
  return st == OK ? layout : -st;
}

/** `count` i64 values (little-endian) in IO → big-endian bytes in OUT. */
export function encodeHeightsBE(count: i32): void {
  const src = regionPtr(IO);
  const dst = ensure(OUT, count << 3);
  for (let i = 0; i < count; i++) {
    const o = <usize>i << 3;
    storeBE64(dst + o, load<u64>(src + o));
  }
  setHeaderI32(H_OUT_LEN, count << 3);
}

/**
 * Decodes `count` raw entries in IO, each [u32 keyLen][key][u32 valueLen][value], whose keys must start
 * with `prefix` and hold a UTF-8 name and an 8-byte big-endian value, into the records above.
 */
export function decodeEntries(prefix: i32, count: i32): i32 {
  return entriesToRecords(regionPtr(IO), count, prefix);
}
