/**
 * The keeper's decisions over a KVStore, in TypeScript. Twin of assembly/keeper.ts: the same steps, the
 * same store operations in the same order (docs/spec/keeper.md §5–§6). Arguments are checked first
 * (../args.ts), as the wasm core's bindings do; preBlock takes none that need it.
 */
import type { KVStore } from "../kv.js";
import type { CompletedUpgrade, ModuleVersion, Plan, VersionMap } from "../types.js";
import type { CoreSession, PreBlockDecision } from "../contract.js";
import { Status, statusError } from "../status.js";
import { checkInt64, checkPlan, checkString, checkVersionMap } from "../args.js";
import { checkedInt64, checkedUint64, encodeInt64BE, encodeUint64BE } from "./bigendian.js";
import {
  DONE_END,
  DONE_PREFIX,
  DONE_START,
  PLAN_KEY,
  PROTOCOL_VERSION_KEY,
  VERSION_END,
  VERSION_PREFIX,
  VERSION_START,
  ibcClientKey,
  ibcConsStateKey,
  nameOfKey,
  prefixedKey,
} from "./keys.js";
import { decodeStoredPlan, encodePlanUnchecked, validateBasic } from "./plan.js";
import { compareBytes } from "../../base/bytes.js";

export class JsSession implements CoreSession {
  private verified = false;
  private readonly handlers = new Set<string>();
  private readonly skip: Set<bigint>;
  /** The last plan read, keyed by the identity of the stored bytes: a store returns the same array until it is rewritten. */
  private planBytes: Uint8Array | undefined;
  private planValue: Plan | undefined;

  constructor(
    private readonly store: KVStore,
    skipHeights: readonly bigint[],
  ) {
    this.skip = new Set(skipHeights);
  }

  get downgradeVerified(): boolean {
    return this.verified;
  }

  set downgradeVerified(v: boolean) {
    this.verified = Boolean(v); // as the wasm core's flag: any truthy value is true
  }

  schedule(plan: Plan, blockHeight: bigint): void {
    checkPlan(plan);
    checkInt64(blockHeight, "block height");
    validateBasic(plan, true);
    if (plan.height < blockHeight) throw statusError(Status.ScheduledInPast);
    if (this.doneHeight(plan.name) !== 0n) throw statusError(Status.AlreadyCompleted, { name: plan.name });
    const old = this.plan();
    if (old) this.deleteIbcKeys(old.height);
    this.store.set(PLAN_KEY, encodePlanUnchecked(plan));
  }

  clearPlan(): void {
    const old = this.plan();
    if (!old) return;
    this.deleteIbcKeys(old.height);
    this.store.delete(PLAN_KEY);
  }

  plan(): Plan | undefined {
    const bytes = this.store.get(PLAN_KEY);
    if (bytes === undefined) return undefined;
    if (bytes !== this.planBytes) {
      this.planValue = decodeStoredPlan(bytes);
      this.planBytes = bytes;
    }
    return this.planValue;
  }

  doneHeight(name: string): bigint {
    const key = prefixedKey(DONE_PREFIX, checkString(name, "name"));
    const value = this.store.get(key);
    return value === undefined ? 0n : checkedInt64(key, value);
  }

  lastCompleted(): CompletedUpgrade | undefined {
    // Keys come in ascending order, so the last record at the highest height has the greatest name (the
    // tie rule): decided from heights alone, as the wasm core does.
    let bestKey: Uint8Array | undefined;
    let bestHeight = 0n;
    for (const [key, value] of this.store.iterate(DONE_START, DONE_END)) {
      const height = checkedInt64(key, value);
      if (bestKey === undefined || height >= bestHeight) {
        bestKey = key;
        bestHeight = height;
      }
    }
    return bestKey === undefined ? undefined : { name: nameOfKey(bestKey), height: bestHeight };
  }

  moduleVersions(): ModuleVersion[] {
    const list: ModuleVersion[] = [];
    for (const [key, value] of this.store.iterate(VERSION_START, VERSION_END)) {
      list.push({ name: nameOfKey(key), version: checkedUint64(key, value) });
    }
    return list;
  }

  moduleVersion(name: string): bigint | undefined {
    const key = prefixedKey(VERSION_PREFIX, checkString(name, "module name"));
    const value = this.store.get(key);
    return value === undefined ? undefined : checkedUint64(key, value);
  }

  setModuleVersions(vm: VersionMap): void {
    checkVersionMap(vm);
    this.mergeVersions(vm);
  }

  private mergeVersions(vm: VersionMap): void {
    const entries: [Uint8Array, bigint][] = [];
    for (const [name, version] of vm) entries.push([prefixedKey(VERSION_PREFIX, name), version]);
    entries.sort((a, b) => compareBytes(a[0], b[0]));
    for (const [key, version] of entries) this.store.set(key, encodeUint64BE(version));
  }

  protocolVersion(): bigint {
    const value = this.store.get(PROTOCOL_VERSION_KEY);
    return value === undefined ? 0n : checkedUint64(PROTOCOL_VERSION_KEY, value);
  }

  finishUpgrade(plan: Plan, blockHeight: bigint, vm: VersionMap): bigint {
    checkPlan(plan);
    checkInt64(blockHeight, "block height");
    checkVersionMap(vm);
    // Read everything that can fail before the first write, so a corrupt value writes nothing.
    const next = BigInt.asUintN(64, this.protocolVersion() + 1n);
    const stored = this.plan();
    this.mergeVersions(vm);
    this.store.set(PROTOCOL_VERSION_KEY, encodeUint64BE(next));
    this.deleteIbcKeys(plan.height);
    if (stored) {
      this.deleteIbcKeys(stored.height);
      this.store.delete(PLAN_KEY);
    }
    this.store.set(prefixedKey(DONE_PREFIX, plan.name), encodeInt64BE(blockHeight));
    return next;
  }

  preBlock(h: bigint): PreBlockDecision {
    const plan = this.plan();
    const due = plan !== undefined && plan.height > 0n && plan.height <= h;
    if (!this.verified) {
      this.verified = true; // first: a failing check is never repeated in this process
      if (!due || this.skip.has(h)) {
        const last = this.lastCompleted();
        if (last && last.name !== "" && !this.handlers.has(last.name)) return { action: "downgrade", lastName: last.name };
      }
    }
    if (plan === undefined) return NONE;
    if (due) {
      if (this.skip.has(h)) {
        this.clearPlan();
        return { action: "skipped", plan };
      }
      return { action: this.handlers.has(plan.name) ? "apply" : "upgrade-needed", plan };
    }
    if (this.handlers.has(plan.name)) return { action: "binary-too-early", plan };
    return NONE;
  }

  registerHandler(name: string): void {
    this.handlers.add(checkString(name, "name"));
  }

  hasHandler(name: string): boolean {
    return this.handlers.has(checkString(name, "name"));
  }

  isSkipHeight(height: bigint): boolean {
    return this.skip.has(checkInt64(height, "height"));
  }

  private deleteIbcKeys(height: bigint): void {
    this.store.delete(ibcClientKey(height));
    this.store.delete(ibcConsStateKey(height));
  }
}

const NONE: PreBlockDecision = { action: "none" };
