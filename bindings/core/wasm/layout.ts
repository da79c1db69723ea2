/**
 * The shape of the boundary: the core's exports as the bindings call them (assembly/index.ts). The numbers
 * the two sides share — statuses, header offsets, key prefixes — are not here but generated from assembly/
 * into ../constants.generated.ts; the addresses of the header and regions come from the exports at run time.
 */
import { PLAN_PREFIX } from "../constants.generated.js";

/** The store key of the plan (assembly/keys.ts PLAN_KEY); the host reads it for kvGetPlan. */
export const PLAN_KEY = Uint8Array.of(PLAN_PREFIX);

/** The core's exports, as the bindings use them. */
export interface CoreExports {
  memory: WebAssembly.Memory;
  headerPtr(): number;
  ioPtr(): number;
  ioCap(): number;
  ioReserve(n: number): number;
  outPtr(): number;
  scanReserve(n: number): number;
  planReserve(n: number): number;

  encodePlan(nameLen: number, infoLen: number, height: bigint): number;
  decodePlan(len: number): number;
  validateBasic(nameLen: number, height: bigint, timeIsZero: number): number;
  shouldExecute(planHeight: bigint, blockHeight: bigint): number;
  doneKey(nameLen: number): void;
  moduleVersionKey(nameLen: number): void;
  upgradedClientKey(height: bigint): void;
  upgradedConsStateKey(height: bigint): void;
  encode64BE(value: bigint): void;
  decode64BE(): void;
  encodeHeightsBE(count: number): void;
  decodeEntries(prefix: number, count: number): number;
  /** The Layout of `count` raw done records in IO (records in OUT), or -status. */
  decodeDoneEntriesAnyLayout(count: number): number;
  parseCoin(len: number): number;
  /** ICS23 (docs/spec/core.md §14): mode 0 calculate, 1 membership, 2 non-membership; the reason, 0 when the proof holds. */
  ics23Verify(mode: number, specLen: number, rootLen: number, proofLen: number, keyLen: number, valueLen: number): number;
  /** A store proof's `count` ops against the app hash; valueLen -1 proves absence. */
  ics23VerifyChain(count: number, appHashLen: number, valueLen: number): number;
  /** The address of a refusal's details: [reason, where, side, step, a, b, c, op] i32, then v i64. */
  ics23Detail(): number;
  /** The address of what a verified proof proved (Ics23Fact offsets): its entries' places in IO. */
  ics23Facts(): number;
  sha256Digest(len: number): void;
  /** [count, value…] as i32 (assembly/constants.generated.ts); read by the tests only. */
  constantTable(): number;

  schedule(nameLen: number, infoLen: number, height: bigint, blockHeight: bigint): number;
  clearPlan(): number;
  plan(): number;
  doneHeight(nameLen: number): number;
  /** doneHeight for the value (in IO, `len` bytes; -1 absent) the host read with a doneKey key; status in H_STATUS. */
  doneValue(len: number): bigint;
  lastCompleted(): number;
  /** The next `count` done-record slots of a scan (`first`: 1 for its first ones): the new winner's index, -1, or -2 - the corrupt one's. */
  lastChunk(count: number, first: number): number;
  /** The end of a done scan: the key lastChunk asked for in SCAN (-1: none), → status with H_LAST_*. */
  lastKey(keyLen: number): number;
  moduleVersions(): number;
  moduleVersion(nameLen: number): number;
  setModuleVersions(count: number): void;
  protocolVersion(): number;
  finishUpgrade(nameLen: number, planHeight: bigint, blockHeight: bigint, count: number): number;
  /** `plan`: the result of kvGetPlan for this call (CoreInstance.handPlan). Sets H_QUIET_BELOW. */
  preBlock(h: bigint, plan: number): number;
  registerHandler(nameLen: number): void;
  hasHandler(nameLen: number): number;
  setSkipHeights(count: number): void;
  isSkipHeight(h: bigint): number;
  getDowngradeVerified(): number;
  setDowngradeVerified(v: number): void;
}
