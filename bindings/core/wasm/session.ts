/** The keeper operations on the WebAssembly core: one core instance per store, decisions made inside it. */
import type { KVStore } from "../kv.js";
import type { CompletedUpgrade, ModuleVersion, Plan, VersionMap } from "../types.js";
import type { CoreSession, PreBlockDecision } from "../contract.js";
import { Status } from "../status.js";
import { writeUtf8 } from "../utf8.js";
import { CoreInstance } from "./instance.js";
import {
  ACTIONS,
  H_INFO_LEN,
  H_INFO_PTR,
  H_LAST_HEIGHT,
  H_LAST_LEN,
  H_LAST_PTR,
  H_NAME_LEN,
  H_NAME_PTR,
  H_PLAN_HEIGHT,
  H_VALUE,
} from "./layout.js";

const NONE: PreBlockDecision = { action: "none" };

export class WasmSession implements CoreSession {
  private readonly c: CoreInstance;

  constructor(module: WebAssembly.Module, store: KVStore, skipHeights: readonly bigint[]) {
    this.c = new CoreInstance(module, store);
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
    this.c.check(this.c.x.doneHeight(this.c.putName(name)));
    return this.c.hi64(H_VALUE);
  }

  lastCompleted(): CompletedUpgrade | undefined {
    const st = this.c.x.lastCompleted();
    if (st === Status.None) return undefined;
    this.c.check(st);
    return { name: this.c.str(H_LAST_PTR, H_LAST_LEN), height: this.c.hi64(H_LAST_HEIGHT) };
  }

  moduleVersions(): ModuleVersion[] {
    this.c.check(this.c.x.moduleVersions());
    return readEntries(this.c, Number(this.c.hi64(H_VALUE)), "uint64", (name, version) => ({ name, version }));
  }

  moduleVersion(name: string): bigint | undefined {
    const st = this.c.x.moduleVersion(this.c.putName(name));
    if (st === Status.None) return undefined;
    this.c.check(st);
    return BigInt.asUintN(64, this.c.hi64(H_VALUE));
  }

  setModuleVersions(vm: VersionMap): void {
    if (vm.size === 0) return;
    putVersionMap(this.c, 0, vm);
    this.c.x.setModuleVersions(vm.size);
  }

  protocolVersion(): bigint {
    this.c.check(this.c.x.protocolVersion());
    return BigInt.asUintN(64, this.c.hi64(H_VALUE));
  }

  finishUpgrade(plan: Plan, blockHeight: bigint, vm: VersionMap): bigint {
    const nameLen = this.c.putName(plan.name);
    putVersionMap(this.c, nameLen, vm);
    this.c.check(this.c.x.finishUpgrade(nameLen, plan.height, blockHeight, vm.size));
    return BigInt.asUintN(64, this.c.hi64(H_VALUE));
  }

  preBlock(h: bigint): PreBlockDecision {
    const r = this.c.x.preBlock(h, this.c.readPlan());
    if (r < 0) throw this.c.error(-r);
    const action = ACTIONS[r];
    if (action === "none") return NONE;
    if (action === "downgrade") return { action, lastName: this.c.str(H_LAST_PTR, H_LAST_LEN) };
    return { action, plan: this.planFromHeader() };
  }

  registerHandler(name: string): void {
    this.c.x.registerHandler(this.c.putName(name));
  }

  hasHandler(name: string): boolean {
    return this.c.x.hasHandler(this.c.putName(name)) !== 0;
  }

  isSkipHeight(height: bigint): boolean {
    return this.c.x.isSkipHeight(height) !== 0;
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

/** Decodes the names of a batch; the core validated them (fatal is not needed), and a leading U+FEFF is a name's first character, not a BOM. */
const NAMES = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Names are decoded this many bytes at a time. One string for a whole 10,000-name batch (~140 KB) lands in
 * V8's large-object space, which made the decode 5× slower than ten 14 KB ones (measured).
 */
const CHUNK_BYTES = 16 * 1024;

/**
 * Reads the core's name/value records (assembly/records.ts) from OUT. Names are decoded a chunk at a
 * time and each one is a slice of its chunk's string: V8 makes a slice of 13+ characters a view of the
 * chunk, so a surviving name keeps at most its 16 KB chunk alive.
 */
export function readEntries<T>(
  c: CoreInstance,
  count: number,
  kind: "int64" | "uint64",
  make: (name: string, value: bigint) => T,
): T[] {
  const out = new Array<T>(count);
  if (count === 0) return out;
  const base = c.x.outPtr();
  const u8 = c.view();
  const dv = c.dv;
  const aligned = (base & 7) === 0; // the allocator aligns to 16: then typed-array reads, not DataView
  const i32 = c.i32;
  const values = kind === "int64" ? c.i64 : c.u64;
  const nameBytes = (i: number) => (aligned ? i32[(base >> 2) + i * 4] : dv.getUint32(base + i * 16, true));
  const nameUnits = (i: number) => (aligned ? i32[(base >> 2) + i * 4 + 1] : dv.getUint32(base + i * 16 + 4, true));
  const value = (i: number) =>
    aligned ? values[(base >> 3) + i * 2 + 1] : kind === "int64" ? dv.getBigInt64(base + i * 16 + 8, true) : dv.getBigUint64(base + i * 16 + 8, true);
  let at = base + count * 16;
  for (let i = 0; i < count; ) {
    let j = i;
    let bytes = 0;
    while (j < count && (j === i || bytes + nameBytes(j) <= CHUNK_BYTES)) bytes += nameBytes(j++);
    const names = NAMES.decode(u8.subarray(at, at + bytes));
    at += bytes;
    for (let u = 0; i < j; i++) {
      const units = nameUnits(i);
      out[i] = make(names.slice(u, u + units), value(i));
      u += units;
    }
  }
  return out;
}
