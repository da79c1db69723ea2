// The xupgrade core: only numbers cross this boundary. Inputs are written by the host into the IO
// region, results are read from the header and the OUT region (see memory.ts).
import { loadBE64, storeBE64 } from "./bigendian";
import { H_OUT_LEN, H_VALUE, IO, OUT, PLAN, SCAN, ensure, regionCap, regionPtr, setHeaderI32, setHeaderI64, HEADER } from "./memory";
import { DONE_PREFIX, VERSION_PREFIX, ibcKey, prefixedKey } from "./keys";
import { decodePlanAt, encodePlanTo, validateBasic as validate } from "./plan";
import { OK } from "./status";

export {
  clearPlan, doneHeight, doneValue, finishUpgrade, getDowngradeVerified, hasHandler, isSkipHeight, lastChunk, lastCompleted, lastKey,
  moduleVersion, moduleVersions, plan, preBlock, protocolVersion, registerHandler, schedule,
  setDowngradeVerified, setModuleVersions, setSkipHeights,
} from "./keeper";
export { decodeDoneEntriesAnyLayout, decodeEntries, encodeHeightsBE } from "./entries";
export { parseCoin } from "./coin";
export { ics23Detail, ics23Facts, ics23Verify, ics23VerifyChain, sha256Digest } from "./ics23";
// Every constant the host's generated copy holds, as the compiler resolved them (test/core/constants.test.ts).
export { constantTable } from "./constants.generated";

// ---- memory ----

export function headerPtr(): usize {
  return HEADER;
}

export function ioPtr(): usize {
  return regionPtr(IO);
}

export function ioCap(): i32 {
  return regionCap(IO);
}

/** Grows IO to at least n bytes; returns its address. */
export function ioReserve(n: i32): usize {
  return ensure(IO, n);
}

export function outPtr(): usize {
  return regionPtr(OUT);
}

/** Called by the host to get room for the plan's bytes (kvGetPlan). */
export function planReserve(n: i32): usize {
  return ensure(PLAN, n);
}

/** Called by the host from inside kvScan to get room for the entries it writes. */
export function scanReserve(n: i32): usize {
  return ensure(SCAN, n);
}

// ---- stateless codecs ----

/** Name in IO[0, nameLen), info in IO[nameLen, nameLen + infoLen) → Plan bytes in OUT. */
export function encodePlan(nameLen: i32, infoLen: i32, height: i64): i32 {
  const st = validate(nameLen, height, true);
  if (st) return st;
  const io = regionPtr(IO);
  encodePlanTo(io, nameLen, io + <usize>nameLen, infoLen, height);
  return OK;
}

/** Plan bytes in IO[0, len) → header (name/info point into IO). */
export function decodePlan(len: i32): i32 {
  return decodePlanAt(regionPtr(IO), len);
}

export function validateBasic(nameLen: i32, height: i64, timeIsZero: bool): i32 {
  return validate(nameLen, height, timeIsZero);
}

export function shouldExecute(planHeight: i64, blockHeight: i64): bool {
  return planHeight > 0 && planHeight <= blockHeight;
}

function keyToOut(key: usize, len: i32): void {
  memory.copy(ensure(OUT, len), key, <usize>len);
  setHeaderI32(H_OUT_LEN, len);
}

/** 0x01 ‖ name (name in IO) → OUT. */
export function doneKey(nameLen: i32): void {
  keyToOut(prefixedKey(DONE_PREFIX, regionPtr(IO), nameLen), nameLen + 1);
}

export function moduleVersionKey(nameLen: i32): void {
  keyToOut(prefixedKey(VERSION_PREFIX, regionPtr(IO), nameLen), nameLen + 1);
}

export function upgradedClientKey(height: i64): void {
  const len = ibcKey(height, false);
  keyToOut(regionPtr(4), len);
}

export function upgradedConsStateKey(height: i64): void {
  const len = ibcKey(height, true);
  keyToOut(regionPtr(4), len);
}

/** value → 8 big-endian bytes in OUT (signed and unsigned share the bits). */
export function encode64BE(value: i64): void {
  storeBE64(ensure(OUT, 8), <u64>value);
  setHeaderI32(H_OUT_LEN, 8);
}

/** 8 big-endian bytes in IO → H_VALUE. */
export function decode64BE(): void {
  setHeaderI64(H_VALUE, <i64>loadBE64(regionPtr(IO)));
}
