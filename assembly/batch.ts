// Batch codecs a light client uses on raw store entries: work stays in linear memory, one call per batch.
import { loadBE64, storeBE64 } from "./bigendian";
import { H_KEY_LEN, H_KEY_PTR, H_OUT_LEN, IO, OUT, ensure, regionPtr, setHeaderI32 } from "./memory";
import { checkName, corruptValue } from "./store";
import { OK, WRONG_PREFIX } from "./status";

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
 * with `prefix` and hold a UTF-8 name and an 8-byte big-endian value. Writes
 * [u32 namePtr][u32 nameLen][u64 value] per entry to OUT.
 */
export function decodeEntries(prefix: i32, count: i32): i32 {
  const out = ensure(OUT, count << 4);
  let p = regionPtr(IO);
  for (let i = 0; i < count; i++) {
    const keyLen = load<i32>(p);
    const key = p + 4;
    const valueLen = load<i32>(key + <usize>keyLen);
    const value = key + <usize>keyLen + 4;
    if (keyLen == 0 || <i32>load<u8>(key) != prefix) {
      setHeaderI32(H_KEY_PTR, <i32>key);
      setHeaderI32(H_KEY_LEN, keyLen);
      return WRONG_PREFIX;
    }
    const st = checkName(key, keyLen);
    if (st) return st;
    if (valueLen != 8) return corruptValue(key, keyLen, valueLen);
    const o = out + (<usize>i << 4);
    store<u32>(o, <u32>key + 1);
    store<u32>(o, keyLen - 1, 4);
    store<u64>(o, loadBE64(value), 8);
    p = value + <usize>valueLen;
  }
  setHeaderI32(H_OUT_LEN, count << 4);
  return OK;
}
