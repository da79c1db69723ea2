/**
 * The keeper operations on the WebAssembly core: one core instance per store, decisions made inside it
 * (assembly/keeper.ts; twin bindings/core/js/keeper.ts). Arguments are checked first (../args.ts), before
 * anything is written into linear memory; preBlock takes none that need it.
 *
 * The two calls a node makes most skip part of the boundary (docs/spec/core.md §12): preBlock answers a
 * block below the core's quiet bound without calling in, and doneHeight looks the record up with a key
 * the core built earlier and hands the value in, so the core makes no call back out.
 */
import type { KVStore } from "../kv.js";
import type { CompletedUpgrade, ModuleVersion, Plan, VersionMap } from "../types.js";
import type { CoreSession, PreBlockDecision } from "../contract.js";
import { checkInt64, checkPlan, checkString, checkVersionMap } from "../args.js";
import { readUtf8, writeUtf8 } from "../utf8.js";
import {
  Action,
  H_INFO_LEN,
  H_INFO_PTR,
  H_LAST_HEIGHT,
  H_LAST_LEN,
  H_LAST_PTR,
  H_NAME_LEN,
  H_NAME_PTR,
  H_LEN,
  H_PLAN_HEIGHT,
  H_QUIET_ALL,
  H_QUIET_BELOW,
  H_STATUS,
  H_VALUE,
  Status,
} from "../constants.generated.js";
import { statusError } from "../status.js";
import { CoreInstance } from "./instance.js";
import { PLAN_KEY } from "./layout.js";
import { readEntries } from "./entries.js";

const NONE: PreBlockDecision = { action: "none" };

/** Done-record keys kept per session; past this many names the cache starts over. */
const DONE_KEYS_MAX = 1024;

/** The decision for each action code of preBlock (assembly/status.ts ACT_*). */
const ACTIONS: PreBlockDecision["action"][] = [];
ACTIONS[Action.None] = "none";
ACTIONS[Action.Skipped] = "skipped";
ACTIONS[Action.UpgradeNeeded] = "upgrade-needed";
ACTIONS[Action.Apply] = "apply";
ACTIONS[Action.TooEarly] = "binary-too-early";
ACTIONS[Action.Downgrade] = "downgrade";

export class WasmSession implements CoreSession {
  private readonly c: CoreInstance;
  /** Indexes of H_QUIET_ALL, H_STATUS and H_QUIET_BELOW in the core's i32 and i64 views. */
  private readonly quietAllAt: number;
  private readonly statusAt: number;
  private readonly quietBelowAt: number;
  /** Indexes of H_LAST_PTR, H_LAST_LEN (i32) and H_LAST_HEIGHT (i64). */
  private readonly lastPtrAt: number;
  private readonly lastLenAt: number;
  private readonly lastHeightAt: number;
  /**
   * name → its done-record key, as the core's doneKey built it. A key is a function of the name alone
   * (the layout is compiled into the core), so an entry never goes stale; the store is read on every call.
   */
  private readonly doneKeys = new Map<string, Uint8Array>();

  constructor(
    module: WebAssembly.Module,
    private readonly store: KVStore,
    skipHeights: readonly bigint[],
  ) {
    this.c = new CoreInstance(module, store);
    this.quietAllAt = this.c.headerIndex32(H_QUIET_ALL);
    this.statusAt = this.c.headerIndex32(H_STATUS);
    this.quietBelowAt = this.c.headerIndex64(H_QUIET_BELOW);
    this.lastPtrAt = this.c.headerIndex32(H_LAST_PTR);
    this.lastLenAt = this.c.headerIndex32(H_LAST_LEN);
    this.lastHeightAt = this.c.headerIndex64(H_LAST_HEIGHT);
    const at = this.c.reserve(skipHeights.length * 8);
    const dv = this.c.dv;
    skipHeights.forEach((h, i) => dv.setBigInt64(at + i * 8, h, true));
    this.c.x.setSkipHeights(skipHeights.length);
  }

  /** Size of this instance's linear memory in bytes (diagnostics: the benchmarks watch it for leaks). */
  get memoryBytes(): number {
    return this.c.x.memory.buffer.byteLength;
  }

  get downgradeVerified(): boolean {
    return this.c.x.getDowngradeVerified() !== 0;
  }

  set downgradeVerified(v: boolean) {
    this.c.x.setDowngradeVerified(v ? 1 : 0);
  }

  schedule(plan: Plan, blockHeight: bigint): void {
    checkPlan(plan);
    checkInt64(blockHeight, "block height");
    const [nameLen, infoLen] = this.c.putNameInfo(plan.name, plan.info);
    this.c.check(this.c.x.schedule(nameLen, infoLen, plan.height, blockHeight), plan.name);
  }

  clearPlan(): void {
    this.c.check(this.c.x.clearPlan());
  }

  plan(): Plan | undefined {
    const st = this.c.x.plan();
    if (st === Status.None) return undefined;
    this.c.check(st);
    return this.planFromHeader();
  }

  doneHeight(name: string): bigint {
    checkString(name, "name");
    const c = this.c;
    const key = this.doneKeys.get(name) ?? this.doneKey(name);
    const value = this.store.get(key);
    let len = -1;
    if (value !== undefined) {
      len = value.length;
      c.copyIn(value, c.reserve(len));
    }
    // doneValue allocates nothing, so the i32 view is current (a stale view would read undefined, which
    // statusError throws as an unknown status: never a silent answer).
    const height = c.x.doneValue(len);
    const st = c.i32[this.statusAt];
    if (st !== Status.Ok) throw statusError(st, { key, length: c.hi32(H_LEN) });
    return height;
  }

  /** The done-record key of a (checked) name, built by the core, kept for the next lookup. */
  private doneKey(name: string): Uint8Array {
    this.c.x.doneKey(this.c.putName(name));
    const key = this.c.out();
    if (this.doneKeys.size >= DONE_KEYS_MAX) this.doneKeys.clear();
    this.doneKeys.set(name, key);
    return key;
  }

  lastCompleted(): CompletedUpgrade | undefined {
    // The scan driven from here rather than through the export lastCompleted and its kvScanDone: one call
    // less. lastKey allocates nothing, so the views scanDone left are current.
    const c = this.c;
    const st = c.x.lastKey(c.scanDone());
    if (st === Status.None) return undefined;
    if (st !== Status.Ok) throw c.error(st);
    const ptr = c.i32[this.lastPtrAt] >>> 0;
    return { name: readUtf8(c.u8, ptr, ptr + c.i32[this.lastLenAt]), height: c.i64[this.lastHeightAt] };
  }

  moduleVersions(): ModuleVersion[] {
    this.c.check(this.c.x.moduleVersions());
    return readEntries(this.c, Number(this.c.hi64(H_VALUE)), "uint64", (name, version) => ({ name, version }));
  }

  moduleVersion(name: string): bigint | undefined {
    const st = this.c.x.moduleVersion(this.c.putName(checkString(name, "module name")));
    if (st === Status.None) return undefined;
    this.c.check(st);
    return BigInt.asUintN(64, this.c.hi64(H_VALUE));
  }

  setModuleVersions(vm: VersionMap): void {
    checkVersionMap(vm);
    if (vm.size === 0) return;
    putVersionMap(this.c, 0, vm);
    this.c.x.setModuleVersions(vm.size);
  }

  protocolVersion(): bigint {
    this.c.check(this.c.x.protocolVersion());
    return BigInt.asUintN(64, this.c.hi64(H_VALUE));
  }

  finishUpgrade(plan: Plan, blockHeight: bigint, vm: VersionMap): bigint {
    checkPlan(plan);
    checkInt64(blockHeight, "block height");
    checkVersionMap(vm);
    const nameLen = this.c.putName(plan.name);
    putVersionMap(this.c, nameLen, vm);
    this.c.check(this.c.x.finishUpgrade(nameLen, plan.height, blockHeight, vm.size));
    return BigInt.asUintN(64, this.c.hi64(H_VALUE));
  }

  preBlock(h: bigint): PreBlockDecision {
    const value = this.store.get(PLAN_KEY);
    const c = this.c;
    // The core's promise (the quiet bound, assembly/keeper.ts): with the plan it was last handed still the
    // stored one, every height below the bound (or every height) is a block with nothing to do. After
    // memory grew the old views read undefined, the comparisons are false and the call goes in.
    if (value === c.plan && (c.i32[this.quietAllAt] === 1 || h < c.i64[this.quietBelowAt])) return NONE;
    return this.preBlockInCore(h, value);
  }

  /** The block the core must see (apart, so that the quiet path above stays small enough to inline). */
  private preBlockInCore(h: bigint, value: Uint8Array | undefined): PreBlockDecision {
    const r = this.c.x.preBlock(h, this.c.handPlan(value));
    if (r < 0) throw this.c.error(-r);
    const action = ACTIONS[r];
    if (action === "none") return NONE;
    if (action === "downgrade") return { action, lastName: this.c.str(H_LAST_PTR, H_LAST_LEN) };
    return { action, plan: this.planFromHeader() };
  }

  registerHandler(name: string): void {
    this.c.x.registerHandler(this.c.putName(checkString(name, "name")));
  }

  hasHandler(name: string): boolean {
    return this.c.x.hasHandler(this.c.putName(checkString(name, "name"))) !== 0;
  }

  isSkipHeight(height: bigint): boolean {
    return this.c.x.isSkipHeight(checkInt64(height, "height")) !== 0;
  }

  private planFromHeader(): Plan {
    return {
      name: this.c.str(H_NAME_PTR, H_NAME_LEN),
      height: this.c.hi64(H_PLAN_HEIGHT),
      info: this.c.str(H_INFO_PTR, H_INFO_LEN),
    };
  }
}

/** Writes version-map entries [u32 nameLen][name][u64 version LE] into IO after `offset` bytes. */
function putVersionMap(c: CoreInstance, offset: number, vm: VersionMap): void {
  let size = offset;
  for (const name of vm.keys()) size += 12 + name.length * 3;
  const base = c.reserve(size);
  const u8 = c.u8;
  const dv = c.dv;
  let at = base + offset;
  for (const [name, version] of vm) {
    const len = writeUtf8(name, u8, at + 4);
    dv.setUint32(at, len, true);
    dv.setBigUint64(at + 4 + len, version, true);
    at += 12 + len;
  }
}
