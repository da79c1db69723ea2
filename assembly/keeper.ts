// The keeper's decisions over the host's store (docs/spec/keeper.md §5–§6). Twin of bindings/core/js/keeper.ts; host side in bindings/core/wasm/keeper.ts.
import { UNCHANGED, kvDelete, kvGetPlan, kvScanDone, kvSet } from "./host";
import { loadBE64, storeBE64 } from "./bigendian";
import {
  H_INFO_LEN, H_INFO_PTR, H_LAST_HEIGHT, H_LAST_LEN, H_LAST_PTR, H_LEN, H_NAME_LEN, H_NAME_PTR, H_PLAN_HEIGHT,
  H_QUIET_ALL, H_QUIET_BELOW, H_REASON, H_STATUS, H_VALUE, HANDLER_SLOTS, HANDLERS, IO, KEY, OUT, PLAN, SCAN, SKIP, TMP,
  ensure, headerI32, headerI64, regionPtr, setHeaderI32, setHeaderI64,
} from "./memory";
import { DONE_PREFIX, PLAN_KEY, PROTOCOL_VERSION_KEY, VERSION_PREFIX, ibcKey, prefixedKey } from "./keys";
import { decodePlanAt, encodePlanTo, validateBasic } from "./plan";
import { checkName, corruptValue, get64, scan } from "./store";
import { entriesToRecords } from "./entries";
import {
  ACT_APPLY, ACT_DOWNGRADE, ACT_NONE, ACT_SKIPPED, ACT_TOO_EARLY, ACT_UPGRADE_NEEDED,
  ALREADY_COMPLETED, CORRUPT_PLAN, CORRUPT_VALUE, MALFORMED, NONE, OK, SCHEDULED_IN_PAST,
} from "./status";

const BE8: usize = memory.data(8, 8);

let downgradeVerified: bool = false;
let skipCount: i32 = 0;

export function getDowngradeVerified(): bool {
  return downgradeVerified;
}

export function setDowngradeVerified(v: bool): void {
  downgradeVerified = v;
  unquiet();
}

// ---- the quiet bound ----

// H_QUIET_BELOW promises the host that preBlock(h) answers ACT_NONE, and writes nothing, for every h below
// it (H_QUIET_ALL = 1: for every h), as long as the stored plan is still the value the core was last handed
// (the host would answer kvGetPlan with UNCHANGED, or with no plan after no plan) and nothing else below
// changes. The host then answers the block without calling in (bindings/core/wasm/keeper.ts); the answer
// is still the core's. Only preBlock sets the bound, when it returns ACT_NONE; everything that can change
// the answer clears it first: new plan bytes or no plan (planFrom), a handler, the skip heights, the
// downgrade flag, and every export that writes the store. Done records and module versions matter to
// preBlock only while the downgrade check is pending, and then no bound is set (it runs in that call).

@inline function unquiet(): void {
  setHeaderI32(H_QUIET_ALL, 0);
  setHeaderI64(H_QUIET_BELOW, 0);
}

// ---- handlers and skip heights ----

// The handler names: [i32 len][name] entries back to back in HANDLERS, and an open-addressing hash table
// over them in HANDLER_SLOTS (u32 slots: 0 empty, else 1 + the entry's offset in HANDLERS; at most half
// full). preBlock looks the plan's name up on every block that is due or has a plan registered, so the
// lookup must not grow with the number of names a binary registers.
let handlersSize: i32 = 0;
let handlerCount: i32 = 0;
let slotMask: u32 = 0; // slots - 1; 0 before the first name

/** FNV-1a over the name's bytes. */
function hashName(ptr: usize, len: i32): u32 {
  let h: u32 = 2166136261;
  for (let i = 0; i < len; i++) h = (h ^ <u32>load<u8>(ptr + <usize>i)) * 16777619;
  return h;
}

/** The slot holding the name, or the empty slot where it would go. */
function slotOf(namePtr: usize, nameLen: i32): usize {
  const slots = regionPtr(HANDLER_SLOTS);
  const base = regionPtr(HANDLERS);
  let i = hashName(namePtr, nameLen) & slotMask;
  while (true) {
    const slot = slots + (<usize>i << 2);
    const at = load<u32>(slot);
    if (at == 0) return slot;
    const entry = base + <usize>(at - 1);
    if (load<i32>(entry) == nameLen && memory.compare(entry + 4, namePtr, <usize>nameLen) == 0) return slot;
    i = (i + 1) & slotMask;
  }
}

function findHandler(namePtr: usize, nameLen: i32): bool {
  return handlerCount > 0 && load<u32>(slotOf(namePtr, nameLen)) != 0;
}

/** Makes the table hold twice as many slots as names will be (at least 16), rehashing every entry. */
function growSlots(names: i32): void {
  let slots: i32 = 16;
  while (slots < names << 1) slots <<= 1;
  if (<u32>slots <= slotMask + 1) return;
  const table = ensure(HANDLER_SLOTS, slots << 2);
  memory.fill(table, 0, <usize>slots << 2);
  slotMask = <u32>slots - 1;
  const base = regionPtr(HANDLERS);
  let p: i32 = 0;
  while (p < handlersSize) {
    const entry = base + <usize>p;
    const len = load<i32>(entry);
    store<u32>(slotOf(entry + 4, len), <u32>p + 1);
    p += 4 + len;
  }
}

/** Registers the name in IO[0, nameLen) (a no-op when already registered). */
export function registerHandler(nameLen: i32): void {
  unquiet();
  const io = regionPtr(IO);
  if (findHandler(io, nameLen)) return;
  const base = ensure(HANDLERS, handlersSize + 4 + nameLen);
  store<i32>(base + <usize>handlersSize, nameLen);
  memory.copy(base + <usize>handlersSize + 4, io, <usize>nameLen);
  const at = handlersSize;
  handlersSize += 4 + nameLen;
  handlerCount++;
  growSlots(handlerCount);
  store<u32>(slotOf(io, nameLen), <u32>at + 1);
}

export function hasHandler(nameLen: i32): bool {
  return findHandler(regionPtr(IO), nameLen);
}

/** Sets the skip heights from `count` i64 values in IO. */
export function setSkipHeights(count: i32): void {
  unquiet();
  const dst = ensure(SKIP, count << 3);
  memory.copy(dst, regionPtr(IO), <usize>(count << 3));
  skipCount = count;
}

export function isSkipHeight(h: i64): bool {
  const base = regionPtr(SKIP);
  for (let i = 0; i < skipCount; i++) if (load<i64>(base + (<usize>i << 3)) == h) return true;
  return false;
}

// ---- plan ----

// The plan is read on every block, so the last one read is kept: its bytes stay in the PLAN region and,
// when they decoded, so do the header fields they gave. When the host reports the stored value unchanged
// (kvGetPlan), nothing is copied or decoded again.
let lastPlanLen: i32 = 0;
let lastPlanOk: bool = false;
let lastPlanNamePtr: i32 = 0;
let lastPlanNameLen: i32 = 0;
let lastPlanInfoPtr: i32 = 0;
let lastPlanInfoLen: i32 = 0;
let lastPlanHeight: i64 = 0;

/** Reads the stored plan into the header: OK, NONE, or CORRUPT_PLAN (reason in the header). */
function readPlan(): i32 {
  return planFrom(kvGetPlan());
}

/** The plan given a kvGetPlan result: the length of new bytes in PLAN, -1 (no plan) or UNCHANGED. */
function planFrom(n: i32): i32 {
  if (n == -1) return NONE;
  if (n == UNCHANGED) {
    if (lastPlanOk) {
      setHeaderI32(H_NAME_PTR, lastPlanNamePtr);
      setHeaderI32(H_NAME_LEN, lastPlanNameLen);
      setHeaderI32(H_INFO_PTR, lastPlanInfoPtr);
      setHeaderI32(H_INFO_LEN, lastPlanInfoLen);
      setHeaderI64(H_PLAN_HEIGHT, lastPlanHeight);
      return OK;
    }
    n = lastPlanLen; // the same bad bytes: decode them again for the same report
  } else {
    unquiet(); // new bytes, or no plan: any promise made about the old ones is void
  }
  lastPlanLen = n;
  const st = decodePlanAt(regionPtr(PLAN), n);
  lastPlanOk = st == OK;
  if (lastPlanOk) {
    lastPlanNamePtr = headerI32(H_NAME_PTR);
    lastPlanNameLen = headerI32(H_NAME_LEN);
    lastPlanInfoPtr = headerI32(H_INFO_PTR);
    lastPlanInfoLen = headerI32(H_INFO_LEN);
    lastPlanHeight = headerI64(H_PLAN_HEIGHT);
    return OK;
  }
  if (st != MALFORMED) setHeaderI32(H_REASON, -st); // a ValidateBasic failure (time / IBC field)
  return CORRUPT_PLAN;
}

export function plan(): i32 {
  return readPlan();
}

function deleteIbcKeys(height: i64): void {
  let len = ibcKey(height, false);
  kvDelete(regionPtr(KEY), len);
  len = ibcKey(height, true);
  kvDelete(regionPtr(KEY), len);
}

/** ScheduleUpgrade: name in IO[0, nameLen), info in IO[nameLen, nameLen + infoLen). */
export function schedule(nameLen: i32, infoLen: i32, height: i64, blockHeight: i64): i32 {
  unquiet();
  let st = validateBasic(nameLen, height, true);
  if (st) return st;
  if (height < blockHeight) return SCHEDULED_IN_PAST;
  st = doneHeight(nameLen);
  if (st) return st;
  if (headerI64(H_VALUE) != 0) return ALREADY_COMPLETED;
  st = readPlan();
  if (st == OK) deleteIbcKeys(headerI64(H_PLAN_HEIGHT));
  else if (st != NONE) return st;
  const io = regionPtr(IO);
  const len = encodePlanTo(io, nameLen, io + <usize>nameLen, infoLen, height);
  kvSet(PLAN_KEY, 1, regionPtr(OUT), len);
  return OK;
}

export function clearPlan(): i32 {
  unquiet();
  const st = readPlan();
  if (st == NONE) return OK;
  if (st != OK) return st;
  deleteIbcKeys(headerI64(H_PLAN_HEIGHT));
  kvDelete(PLAN_KEY, 1);
  return OK;
}

// ---- done records ----

/** The done height of the name in IO[0, nameLen) into H_VALUE (0 when absent). */
export function doneHeight(nameLen: i32): i32 {
  const key = prefixedKey(DONE_PREFIX, regionPtr(IO), nameLen);
  const st = get64(key, nameLen + 1);
  if (st != NONE) return st;
  setHeaderI64(H_VALUE, 0);
  return OK;
}

/**
 * doneHeight for a value the host read itself, with the key doneKey built (the host keeps those keys, so
 * a lookup is one call in and none out): the value's `len` bytes in IO, or -1 when absent. Returns the
 * height (0 when absent) with OK in H_STATUS, or CORRUPT_VALUE there with the length in H_LEN (the host
 * has the key). The height is the result, not a header field: an i64 result reaches the host as a bigint
 * faster than the host reads one out of memory (measured, docs/spec/core.md §3).
 */
export function doneValue(len: i32): i64 {
  if (len == 8) {
    setHeaderI32(H_STATUS, OK);
    return <i64>loadBE64(regionPtr(IO));
  }
  if (len < 0) {
    setHeaderI32(H_STATUS, OK);
    return 0;
  }
  setHeaderI32(H_LEN, len);
  setHeaderI32(H_STATUS, CORRUPT_VALUE);
  return 0;
}

// ---- the last completed upgrade ----

// GetLastCompletedUpgrade decides from heights alone. The store hands the done range over in ascending key
// order (bindings/core/kv.ts), so of the records with the highest height the last one has the greatest
// name — the tie rule of docs/spec/keeper.md §5.5 — and no name but the winner's is ever read. The host
// feeds the range to lastChunk a chunk at a time, each record as a slot [i32 value length][i32 high word]
// [i32 low word] of its big-endian value, and then hands over to lastKey the one key the core asked for:
// the winner's, or that of the first record whose value is not 8 bytes.
let lastFound: bool = false;
let lastHeight: i64 = 0;
let lastCorruptLen: i32 = -1;

/**
 * Takes `count` slots from SCAN, the next records in key order (`first`: the first ones of a scan).
 * Returns the index of the record that is now the last completed upgrade (the last one at the highest
 * height so far), -1 when that did not change, or -2 - i when record i is corrupt: the scan stops there.
 */
export function lastChunk(count: i32, first: bool): i32 {
  if (first) {
    lastFound = false;
    lastCorruptLen = -1;
  }
  const slots = regionPtr(SCAN);
  let found = lastFound;
  let best = lastHeight;
  let at = -1;
  for (let i = 0; i < count; i++) {
    const p = slots + <usize>i * 12;
    const len = load<i32>(p);
    if (len != 8) {
      lastCorruptLen = len;
      return -2 - i;
    }
    const height = (<i64>load<i32>(p, 4) << 32) | <i64>load<u32>(p, 8);
    if (!found || height >= best) {
      found = true;
      best = height;
      at = i;
    }
  }
  lastFound = found;
  lastHeight = best;
  return at;
}

/**
 * The end of a scan: the key lastChunk asked for, `keyLen` bytes at the start of SCAN (-1: the range was
 * empty, lastChunk was not called). Into H_LAST_*: OK, NONE, or the corrupt record's or name's error.
 */
export function lastKey(keyLen: i32): i32 {
  if (keyLen < 0) return NONE;
  const key = regionPtr(SCAN);
  if (lastCorruptLen >= 0) return corruptValue(key, keyLen, lastCorruptLen);
  const st = checkName(key, keyLen);
  if (st) return st;
  setHeaderI32(H_LAST_PTR, <i32>key + 1);
  setHeaderI32(H_LAST_LEN, keyLen - 1);
  setHeaderI64(H_LAST_HEIGHT, lastHeight);
  return OK;
}

/** Highest height, ties to the greatest name; into H_LAST_*: OK, NONE or an error. */
export function lastCompleted(): i32 {
  return lastKey(kvScanDone());
}

function compareBytes(a: usize, aLen: i32, b: usize, bLen: i32): i32 {
  const n = min(aLen, bLen);
  const c = memory.compare(a, b, <usize>n);
  return c != 0 ? c : aLen - bLen;
}

// ---- module versions and protocol version ----

/**
 * Every module version, in store order, as the name/value records of entries.ts in OUT; the count in
 * H_VALUE. The first corrupt entry in store order is reported.
 */
export function moduleVersions(): i32 {
  const count = scan(VERSION_PREFIX);
  const st = entriesToRecords(regionPtr(SCAN), count, -1);
  if (st) return st;
  setHeaderI64(H_VALUE, count);
  return OK;
}

export function moduleVersion(nameLen: i32): i32 {
  const key = prefixedKey(VERSION_PREFIX, regionPtr(IO), nameLen);
  return get64(key, nameLen + 1);
}

/**
 * Merges `count` entries at IO + offset, each [u32 nameLen][name][u64 version], writing them in
 * ascending byte order of names. Never deletes.
 */
export function setModuleVersionsAt(offset: i32, count: i32): void {
  if (count == 0) return;
  const index = ensure(TMP, count << 3); // two u32 arrays: the entries, and merge-sort scratch
  let p = regionPtr(IO) + <usize>offset;
  for (let i = 0; i < count; i++) {
    store<u32>(index + (<usize>i << 2), <u32>p);
    p += 4 + <usize>load<i32>(p) + 8;
  }
  sortEntries(index, index + (<usize>count << 2), count);
  for (let i = 0; i < count; i++) {
    const e = <usize>load<u32>(index + (<usize>i << 2));
    const nameLen = load<i32>(e);
    const key = prefixedKey(VERSION_PREFIX, e + 4, nameLen);
    storeBE64(BE8, load<u64>(e + 4 + <usize>nameLen));
    kvSet(key, nameLen + 1, BE8, 8);
  }
}

export function setModuleVersions(count: i32): void {
  unquiet(); // preBlock does not read module versions; cleared anyway, as by every export that writes
  setModuleVersionsAt(0, count);
}

function entryCompare(a: usize, b: usize): i32 {
  return compareBytes(a + 4, load<i32>(a), b + 4, load<i32>(b));
}

/** Bottom-up merge sort of entry pointers (stable, n log n). */
function sortEntries(arr: usize, tmp: usize, n: i32): void {
  let src = arr;
  let dst = tmp;
  for (let width = 1; width < n; width <<= 1) {
    for (let lo = 0; lo < n; lo += width << 1) {
      const mid = min(lo + width, n);
      const hi = min(lo + (width << 1), n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const a = load<u32>(src + (<usize>i << 2));
        const b = load<u32>(src + (<usize>j << 2));
        if (entryCompare(a, b) <= 0) {
          store<u32>(dst + (<usize>k << 2), a);
          i++;
        } else {
          store<u32>(dst + (<usize>k << 2), b);
          j++;
        }
        k++;
      }
      const rest = i < mid ? i : j;
      const restEnd = i < mid ? mid : hi;
      memory.copy(dst + (<usize>k << 2), src + (<usize>rest << 2), <usize>(restEnd - rest) << 2);
    }
    const t = src; src = dst; dst = t;
  }
  if (src != arr) memory.copy(arr, src, <usize>n << 2);
}

export function protocolVersion(): i32 {
  const st = get64(PROTOCOL_VERSION_KEY, 1);
  if (st == NONE) setHeaderI64(H_VALUE, 0);
  return st == NONE ? OK : st;
}

/**
 * ApplyUpgrade after the handler resolved. IO holds the plan name [0, nameLen) followed by `count`
 * version-map entries. Reads everything that can fail before the first write. New protocol version → H_VALUE.
 */
export function finishUpgrade(nameLen: i32, planHeight: i64, blockHeight: i64, count: i32): i32 {
  unquiet();
  let st = protocolVersion();
  if (st) return st;
  const next = headerI64(H_VALUE) + 1;
  st = readPlan();
  if (st != OK && st != NONE) return st;
  const stored = st == OK;
  const storedHeight = headerI64(H_PLAN_HEIGHT);
  setModuleVersionsAt(nameLen, count);
  storeBE64(BE8, <u64>next);
  kvSet(PROTOCOL_VERSION_KEY, 1, BE8, 8);
  deleteIbcKeys(planHeight);
  if (stored) {
    deleteIbcKeys(storedHeight);
    kvDelete(PLAN_KEY, 1);
  }
  const key = prefixedKey(DONE_PREFIX, regionPtr(IO), nameLen);
  storeBE64(BE8, <u64>blockHeight);
  kvSet(key, nameLen + 1, BE8, 8);
  setHeaderI64(H_VALUE, next);
  return OK;
}

// ---- PreBlock ----

/**
 * What PreBlock must do at height h (an ACT_* code), or -status. The plan is left in the header.
 * `plan` is the kvGetPlan result, fetched by the host along with the call: every block reads the plan,
 * and this saves the core a call back out to the host (about a third of the core's cost of a block with
 * nothing due, measured).
 */
export function preBlock(h: i64, plan: i32): i32 {
  unquiet(); // set again below only when the answer is ACT_NONE
  let st = planFrom(plan);
  if (st != OK && st != NONE) return -st;
  const found = st == OK;
  const planHeight = headerI64(H_PLAN_HEIGHT);
  const due = found && planHeight > 0 && planHeight <= h;
  if (!downgradeVerified) {
    downgradeVerified = true; // first: a failing check is never repeated in this process
    if (!due || isSkipHeight(h)) {
      st = lastCompleted();
      if (st != OK && st != NONE) return -st;
      if (st == OK) {
        const lastLen = headerI32(H_LAST_LEN);
        if (lastLen > 0 && !findHandler(<usize>headerI32(H_LAST_PTR), lastLen)) return ACT_DOWNGRADE;
      }
    }
  }
  if (!found) return quietAlways();
  const hasPlanHandler = findHandler(<usize>headerI32(H_NAME_PTR), headerI32(H_NAME_LEN));
  if (due) {
    if (isSkipHeight(h)) {
      deleteIbcKeys(planHeight);
      kvDelete(PLAN_KEY, 1);
      return ACT_SKIPPED;
    }
    return hasPlanHandler ? ACT_APPLY : ACT_UPGRADE_NEEDED;
  }
  if (hasPlanHandler) return ACT_TOO_EARLY;
  // Not due, so not due at any lower height either; due from planHeight on (never when it is not positive).
  if (planHeight <= 0) return quietAlways();
  setHeaderI64(H_QUIET_BELOW, planHeight);
  return ACT_NONE;
}

/** ACT_NONE, promising the same answer at every height (see the quiet bound above). */
function quietAlways(): i32 {
  setHeaderI32(H_QUIET_ALL, 1);
  return ACT_NONE;
}
