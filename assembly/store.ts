// Reads and writes through the host's KV store, with the corrupt-value checks of the seed layout.
import { kvGet, kvScan } from "./host";
import { loadBE64 } from "./bigendian";
import { H_KEY_LEN, H_KEY_PTR, H_LEN, H_REASON, H_VALUE, VAL, ensure, regionCap, regionPtr, setHeaderI32, setHeaderI64 } from "./memory";
import { CORRUPT_DONE, CORRUPT_NAME, CORRUPT_VALUE, MIXED_LAYOUT, NONE, OK, WRONG_PREFIX } from "./status";
import { validUtf8 } from "./utf8";

/** Reads a key's value into VAL; returns its length or -1 when absent. */
export function get(keyPtr: usize, keyLen: i32): i32 {
  const cap = regionCap(VAL);
  let n = kvGet(keyPtr, keyLen, regionPtr(VAL), cap);
  if (n > cap) n = kvGet(keyPtr, keyLen, ensure(VAL, n), n);
  return n;
}

/** Records a corrupt value (its key and length) and returns CORRUPT_VALUE. */
export function corruptValue(keyPtr: usize, keyLen: i32, valueLen: i32): i32 {
  setHeaderI32(H_KEY_PTR, <i32>keyPtr);
  setHeaderI32(H_KEY_LEN, keyLen);
  setHeaderI32(H_LEN, valueLen);
  return CORRUPT_VALUE;
}

/** Records a key without the expected prefix byte and returns WRONG_PREFIX. */
export function wrongPrefix(keyPtr: usize, keyLen: i32): i32 {
  setHeaderI32(H_KEY_PTR, <i32>keyPtr);
  setHeaderI32(H_KEY_LEN, keyLen);
  return WRONG_PREFIX;
}

export function corruptName(keyPtr: usize, keyLen: i32): i32 {
  setHeaderI32(H_KEY_PTR, <i32>keyPtr);
  setHeaderI32(H_KEY_LEN, keyLen);
  return CORRUPT_NAME;
}

/** Records a done record that fits neither layout (its key and value length) and returns CORRUPT_DONE. */
export function corruptDone(keyPtr: usize, keyLen: i32, valueLen: i32): i32 {
  setHeaderI32(H_KEY_PTR, <i32>keyPtr);
  setHeaderI32(H_KEY_LEN, keyLen);
  setHeaderI32(H_LEN, valueLen);
  return CORRUPT_DONE;
}

/** Records the first done record of a second layout (its key, its layout in H_REASON) and returns MIXED_LAYOUT. */
export function mixedLayout(keyPtr: usize, keyLen: i32, layout: i32): i32 {
  setHeaderI32(H_KEY_PTR, <i32>keyPtr);
  setHeaderI32(H_KEY_LEN, keyLen);
  setHeaderI32(H_REASON, layout);
  return MIXED_LAYOUT;
}

/** Reads an 8-byte big-endian value into H_VALUE: OK, NONE when absent, or CORRUPT_VALUE. */
export function get64(keyPtr: usize, keyLen: i32): i32 {
  const n = get(keyPtr, keyLen);
  if (n < 0) return NONE;
  if (n != 8) return corruptValue(keyPtr, keyLen, n);
  setHeaderI64(H_VALUE, <i64>loadBE64(regionPtr(VAL)));
  return OK;
}

/** Checks a prefixed key's name part (bytes after the prefix) is UTF-8. */
export function checkName(keyPtr: usize, keyLen: i32): i32 {
  return validUtf8(keyPtr + 1, keyLen - 1) ? OK : corruptName(keyPtr, keyLen);
}

/** Asks the host for every entry under a prefix byte; returns the count (entries are in SCAN). */
export function scan(prefix: i32): i32 {
  return kvScan(prefix);
}
