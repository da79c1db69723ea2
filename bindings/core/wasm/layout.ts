/** Header offsets of the core's result area; keep in step with assembly/memory.ts. */
export const H_REASON = 0;
export const H_FIELD = 4;
export const H_WIRE = 8;
export const H_LEN = 12;
export const H_VALUE = 16;
export const H_NAME_PTR = 24;
export const H_NAME_LEN = 28;
export const H_INFO_PTR = 32;
export const H_INFO_LEN = 36;
export const H_PLAN_HEIGHT = 40;
export const H_KEY_PTR = 48;
export const H_KEY_LEN = 52;
export const H_OUT_LEN = 56;
export const H_LAST_PTR = 60;
export const H_LAST_LEN = 64;
export const H_LAST_HEIGHT = 72;

/** The store key of the plan (assembly/keys.ts PLAN_KEY); the host reads it for kvGetPlan. */
export const PLAN_KEY = Uint8Array.of(0x00);

/** PreBlock actions returned by the core's preBlock (a negative value is -status). */
export const ACTIONS = ["none", "skipped", "upgrade-needed", "apply", "binary-too-early", "downgrade"] as const;

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

  schedule(nameLen: number, infoLen: number, height: bigint, blockHeight: bigint): number;
  clearPlan(): number;
  plan(): number;
  doneHeight(nameLen: number): number;
  lastCompleted(): number;
  moduleVersions(): number;
  moduleVersion(nameLen: number): number;
  setModuleVersions(count: number): void;
  protocolVersion(): number;
  finishUpgrade(nameLen: number, planHeight: bigint, blockHeight: bigint, count: number): number;
  /** `plan`: the result of kvGetPlan for this call (CoreInstance.readPlan). */
  preBlock(h: bigint, plan: number): number;
  registerHandler(nameLen: number): void;
  hasHandler(nameLen: number): number;
  setSkipHeights(count: number): void;
  isSkipHeight(h: bigint): number;
  getDowngradeVerified(): number;
  setDowngradeVerified(v: number): void;
}
