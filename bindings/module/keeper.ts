/**
 * The upgrade keeper: type-checks calls, asks the core what to do, and carries it out — runs handlers,
 * writes upgrade-info.json, logs, throws the typed halt errors. It makes no decision of its own.
 *
 * Sync/async: everything is synchronous except `preBlock` and `applyUpgrade` (handlers may be async)
 * and the upgrade-info file operations.
 */
import type { Backend, Core, CoreSession, PreBlockDecision } from "../core/contract.js";
import { loadCore } from "../core/index.js";
import { errors } from "../core/errors.js";
import { toBlockHeight, toInt64, toName, toPlan, toUint64, toUtf8String, toVersionMap } from "./input.js";
import type { KVStore } from "../core/kv.js";
import { MemoryStore } from "../store/memory.js";
import type { CompletedUpgrade, ModuleVersion, Plan, PlanInput, VersionMap } from "../core/types.js";

/** The gov module account, bech32 of sha256("gov")[:20]. */
export { GOV_AUTHORITY } from "./authority.js";
import { GOV_AUTHORITY } from "./authority.js";
import { silentLogger, type Logger } from "../base/logger.js";

/** The host's block context as handed to handlers; the keeper adds `blockHeight` when missing. */
export interface UpgradeContext {
  blockHeight: bigint;
  [key: string]: unknown;
}

export type UpgradeHandler = (ctx: UpgradeContext, plan: Plan, fromVM: VersionMap) => VersionMap | Promise<VersionMap>;

/** Sets the host's app version after an upgrade (the protocol version). */
export interface VersionSetter {
  setProtocolVersion(version: bigint): void;
}

export type { Logger };

/** Reads and writes `<home>/data/upgrade-info.json`; supplied by the Node entry point. */
export interface UpgradeInfoFile {
  write(homePath: string | undefined, plan: Plan): Promise<void>;
  read(homePath: string | undefined): Promise<{ name: string; height: bigint; info: string; timeIsZero: boolean } | undefined>;
}

export interface KeeperOptions {
  /** The upgrade module's store (default: a new MemoryStore). */
  store?: KVStore;
  backend?: Backend;
  /** The node's home directory; upgrade-info.json goes to `<homePath>/data/`. */
  homePath?: string;
  skipUpgradeHeights?: Iterable<bigint | number>;
  authority?: string;
  versionSetter?: VersionSetter;
  logger?: Logger;
}

export interface PreBlockOptions {
  /** The app version in the host's block context (reported by the downgrade check). */
  appVersion?: bigint | number;
  /** The host's block context, handed to the handler unchanged. */
  ctx?: Partial<UpgradeContext>;
}

const UNCHANGED: Promise<{ consensusParamsChanged: boolean }> = Promise.resolve(Object.freeze({ consensusParamsChanged: false }));
const MODULE = { module: "x/upgrade" };

export class UpgradeKeeper {
  readonly core: Core;
  readonly store: KVStore;
  readonly authority: string;
  readonly homePath: string | undefined;
  private readonly session: CoreSession;
  private readonly handlers = new Map<string, UpgradeHandler>();
  private readonly versionSetter: VersionSetter | undefined;
  private readonly logger: Logger;
  private readonly infoFile: UpgradeInfoFile | undefined;

  /** Use createKeeper(); this constructor takes an already loaded core. */
  constructor(core: Core, options: KeeperOptions = {}, infoFile?: UpgradeInfoFile) {
    this.core = core;
    this.store = options.store ?? new MemoryStore();
    this.authority = options.authority === undefined ? GOV_AUTHORITY : toName(options.authority, "authority");
    this.homePath = options.homePath === undefined ? undefined : toUtf8String(options.homePath, "homePath");
    const skip = [...(options.skipUpgradeHeights ?? [])].map((h) => toBlockHeight(h, "skip upgrade height"));
    this.session = core.session(this.store, skip);
    this.versionSetter = options.versionSetter;
    this.logger = options.logger ?? silentLogger;
    this.infoFile = infoFile;
  }

  get backend(): Backend {
    return this.core.backend;
  }

  // ---- plans ----

  scheduleUpgrade(plan: PlanInput, blockHeight: bigint | number): void {
    this.session.schedule(toPlan(plan), toBlockHeight(blockHeight));
  }

  clearUpgradePlan(): void {
    this.session.clearPlan();
  }

  getUpgradePlan(): Plan | undefined {
    const plan = this.session.plan();
    return plan && { ...plan };
  }

  getDoneHeight(name: string): bigint {
    return this.session.doneHeight(toName(name));
  }

  getLastCompletedUpgrade(): CompletedUpgrade | undefined {
    return this.session.lastCompleted();
  }

  // ---- handlers ----

  setUpgradeHandler(name: string, handler: UpgradeHandler): void {
    toName(name);
    if (typeof handler !== "function") throw new TypeError("handler must be a function (ctx, plan, fromVM) => VersionMap");
    this.handlers.set(name, handler);
    this.session.registerHandler(name);
  }

  hasHandler(name: string): boolean {
    return this.session.hasHandler(toName(name));
  }

  /**
   * Runs the plan's handler and records the upgrade. Nothing is written unless the handler succeeds;
   * its error reaches the caller unchanged.
   */
  async applyUpgrade(plan: PlanInput, blockHeight: bigint | number, ctx?: Partial<UpgradeContext>): Promise<void> {
    const p = toPlan(plan);
    const h = toBlockHeight(blockHeight);
    if (!this.session.hasHandler(p.name)) throw errors.noHandler();
    const handler = this.handlers.get(p.name)!;
    const fromVM = this.getModuleVersionMap();
    const updated = toVersionMap(await handler({ ...ctx, blockHeight: ctx?.blockHeight ?? h }, p, fromVM), "handler result");
    const protocolVersion = this.session.finishUpgrade(p, h, updated);
    this.versionSetter?.setProtocolVersion(protocolVersion);
  }

  /**
   * The pre-block hook: halts (throws) when an upgrade is due and this binary lacks its handler, when the
   * binary was upgraded too early, or when it was downgraded; applies the upgrade when it is due and handled.
   */
  preBlock(blockHeight: bigint | number, options: PreBlockOptions = {}): Promise<{ consensusParamsChanged: boolean }> {
    // Not `async`: on the block every node pays for (nothing due) no promise is made, a settled one is shared.
    let decision: PreBlockDecision;
    let h: bigint;
    try {
      h = toBlockHeight(blockHeight);
      decision = this.session.preBlock(h);
    } catch (err) {
      return Promise.reject(err);
    }
    return decision.action === "none" ? UNCHANGED : this.carryOut(decision, h, options);
  }

  private async carryOut(decision: PreBlockDecision, h: bigint, options: PreBlockOptions): Promise<{ consensusParamsChanged: boolean }> {
    switch (decision.action) {
      case "none":
        return { consensusParamsChanged: false };
      case "downgrade": {
        const appVersion = options.appVersion === undefined ? 0n : toUint64(options.appVersion, "app version");
        throw this.halt(errors.downgrade(appVersion, decision.lastName));
      }
      case "skipped": {
        const { plan } = decision;
        this.logger.info(`UPGRADE "${plan.name}" SKIPPED at ${plan.height}: ${plan.info}`, MODULE);
        return { consensusParamsChanged: false };
      }
      case "upgrade-needed": {
        const { plan } = decision;
        await this.writeUpgradeInfo({ ...plan, height: h });
        throw this.halt(errors.upgradeNeeded(plan.name, plan.height, plan.info));
      }
      case "binary-too-early":
        throw this.halt(errors.binaryTooEarly(decision.plan.name));
      case "apply": {
        const { plan } = decision;
        this.logger.info(`applying upgrade "${plan.name}" at height: ${plan.height}`, MODULE);
        await this.applyUpgrade(plan, h, options.ctx);
        return { consensusParamsChanged: true };
      }
    }
  }

  private halt(err: Error): Error {
    this.logger.error(err.message, MODULE);
    return err;
  }

  // ---- versions ----

  getModuleVersionMap(): VersionMap {
    const vm: VersionMap = new Map();
    for (const { name, version } of this.session.moduleVersions()) vm.set(name, version);
    return vm;
  }

  /** Merges: writes every entry (in UTF-8 byte order of names), never deletes. */
  setModuleVersionMap(vm: VersionMap | Record<string, bigint | number>): void {
    this.session.setModuleVersions(toVersionMap(vm));
  }

  getModuleVersions(): ModuleVersion[] {
    return this.session.moduleVersions();
  }

  /** One module's version; unknown → the ModuleVersions query's error (upgrade/2). */
  getModuleVersion(name: string): bigint {
    const version = this.session.moduleVersion(toName(name, "module name"));
    if (version === undefined) throw errors.moduleVersionNotFound(name);
    return version;
  }

  getProtocolVersion(): bigint {
    return this.session.protocolVersion();
  }

  isSkipHeight(height: bigint | number): boolean {
    return this.session.isSkipHeight(toInt64(height, "height"));
  }

  get downgradeVerified(): boolean {
    return this.session.downgradeVerified;
  }

  set downgradeVerified(value: boolean) {
    this.session.downgradeVerified = Boolean(value);
  }

  // ---- upgrade-info.json ----

  async dumpUpgradeInfoToDisk(height: bigint | number, plan: PlanInput): Promise<void> {
    const p = toPlan(plan);
    const h = toBlockHeight(height);
    this.core.validateBasic({ ...p, height: h });
    await this.writeUpgradeInfo({ ...p, height: h });
  }

  /** The plan the old binary wrote before halting, validated; undefined when there is no file. */
  async readUpgradeInfoFromDisk(): Promise<Plan | undefined> {
    if (!this.infoFile) return undefined;
    const parsed = await this.infoFile.read(this.homePath);
    if (parsed === undefined) return undefined;
    const plan = { name: parsed.name, height: parsed.height, info: parsed.info };
    this.core.validateBasic(plan, parsed.timeIsZero);
    return plan;
  }

  private async writeUpgradeInfo(plan: Plan): Promise<void> {
    if (!this.infoFile) throw errors.infoWriteFailed("no filesystem in this environment");
    await this.infoFile.write(this.homePath, plan);
  }

  // ---- deprecated IBC state (kept so the deprecated query and deletes behave as upstream) ----

  setUpgradedClient(planHeight: bigint | number, bytes: Uint8Array): void {
    this.store.set(this.core.upgradedClientKey(toInt64(planHeight, "height")), bytes.slice());
  }

  getUpgradedClient(height: bigint | number): Uint8Array {
    const value = this.store.get(this.core.upgradedClientKey(toInt64(height, "height")));
    if (value === undefined || value.length === 0) throw errors.clientNotFound();
    return value.slice();
  }

  setUpgradedConsensusState(planHeight: bigint | number, bytes: Uint8Array): void {
    this.store.set(this.core.upgradedConsStateKey(toInt64(planHeight, "height")), bytes.slice());
  }

  getUpgradedConsensusState(lastHeight: bigint | number): Uint8Array {
    const value = this.store.get(this.core.upgradedConsStateKey(toInt64(lastHeight, "height")));
    if (value === undefined || value.length === 0) throw errors.consensusStateNotFound();
    return value.slice();
  }
}

/** Creates a keeper on the chosen core (default "wasm"). Async only because the core compiles once. */
export async function createKeeperWith(options: KeeperOptions, infoFile?: UpgradeInfoFile): Promise<UpgradeKeeper> {
  const core = await loadCore(options.backend ?? "wasm");
  return new UpgradeKeeper(core, options, infoFile);
}
