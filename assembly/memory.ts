// Static memory shared with the host: a fixed header for results and growable unmanaged regions.
// Nothing here is managed by the GC, so nothing is allocated per call once the regions are warm.

// Header offsets (bytes); the host reads results here. The host's H_* constants are generated from these
// (scripts/constants.mjs → bindings/core/constants.generated.ts).
export const H_REASON = 0; // i32: decode-failure reason, or -status for a stored plan failing validation
export const H_FIELD = 4; // i32
export const H_WIRE = 8; // i32
export const H_LEN = 12; // i32: length of a corrupt value
export const H_VALUE = 16; // i64: result value / count
export const H_NAME_PTR = 24; // u32 plan name
export const H_NAME_LEN = 28;
export const H_INFO_PTR = 32; // u32 plan info
export const H_INFO_LEN = 36;
export const H_PLAN_HEIGHT = 40; // i64
export const H_KEY_PTR = 48; // u32: key of a corrupt value
export const H_KEY_LEN = 52;
export const H_OUT_LEN = 56; // u32: bytes written to OUT
export const H_LAST_PTR = 60; // u32: last completed upgrade name
export const H_LAST_LEN = 64;
export const H_LAST_HEIGHT = 72; // i64
// The quiet bound (keeper.ts): preBlock answers `none`, and writes nothing, at every height below
// H_QUIET_BELOW (i64), or at every height when H_QUIET_ALL (i32) is 1, for as long as the plan last handed
// to the core is the stored one and the core's keeper state is unchanged; both 0 when nothing is promised.
// Set by the core only; the host reads them to skip a call.
export const H_QUIET_ALL = 80;
export const H_STATUS = 84; // i32: the status of a call whose result is a value (doneValue)
export const H_QUIET_BELOW = 88;

export const HEADER: usize = memory.data(96, 8);

// Regions: IO (host inputs), OUT (results), VAL (kvGet values), SCAN (kvScan results),
// KEY (keys being built), TMP (sort index), HANDLERS (registered names), SKIP (skip heights),
// PLAN (the stored plan's bytes; its decoded fields point into it and stay valid until it is re-read),
// HANDLER_SLOTS (the hash table over HANDLERS, keeper.ts).
export const IO: i32 = 0;
export const OUT: i32 = 1;
export const VAL: i32 = 2;
export const SCAN: i32 = 3;
export const KEY: i32 = 4;
export const TMP: i32 = 5;
export const HANDLERS: i32 = 6;
export const SKIP: i32 = 7;
export const PLAN: i32 = 8;
export const HANDLER_SLOTS: i32 = 9;

const REGIONS: usize = memory.data(10 * 8, 8);

@inline export function regionPtr(r: i32): usize {
  return <usize>load<u32>(REGIONS + (<usize>r << 3));
}

@inline export function regionCap(r: i32): i32 {
  return load<i32>(REGIONS + (<usize>r << 3), 4);
}

/** Makes region `r` hold at least `n` bytes, keeping its contents; returns its (possibly new) address. */
export function ensure(r: i32, n: i32): usize {
  let ptr = regionPtr(r);
  const cap = regionCap(r);
  if (n <= cap) return ptr;
  let next = max(max(n, cap << 1), 256);
  ptr = ptr == 0 ? heap.alloc(<usize>next) : heap.realloc(ptr, <usize>next);
  store<u32>(REGIONS + (<usize>r << 3), <u32>ptr);
  store<i32>(REGIONS + (<usize>r << 3), next, 4);
  return ptr;
}

@inline export function setHeaderI32(offset: usize, v: i32): void {
  store<i32>(HEADER + offset, v);
}

@inline export function setHeaderI64(offset: usize, v: i64): void {
  store<i64>(HEADER + offset, v);
}

@inline export function headerI32(offset: usize): i32 {
  return load<i32>(HEADER + offset);
}

@inline export function headerI64(offset: usize): i64 {
  return load<i64>(HEADER + offset);
}

/**
 * memory.copy for the few bytes of a name or key: V8 runs the bulk-memory instruction as a call out to C,
 * a fixed cost larger than copying a short name inline.
 */
@inline export function copyBytes(dst: usize, src: usize, len: usize): void {
  if (len > 32) {
    memory.copy(dst, src, len);
    return;
  }
  let i: usize = 0;
  for (; i + 8 <= len; i += 8) store<u64>(dst + i, load<u64>(src + i));
  for (; i < len; i++) store<u8>(dst + i, load<u8>(src + i));
}
