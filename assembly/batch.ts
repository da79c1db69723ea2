// Batch codecs a light client uses on raw store entries: work stays in linear memory, one call per batch.
import { loadBE64, storeBE64 } from "./bigendian";
import { H_OUT_LEN, IO, OUT, ensure, regionPtr, setHeaderI32 } from "./memory";
import { entriesToRecords } from "./records";

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
 * with `prefix` and hold a UTF-8 name and an 8-byte big-endian value, into the records of records.ts.
 */
export function decodeEntries(prefix: i32, count: i32): i32 {
  return entriesToRecords(regionPtr(IO), count, prefix);
}
