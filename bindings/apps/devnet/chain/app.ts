/**
 * Application definitions: what `startDevnet({app})` loads — the binary's name, its modules (consensus
 * versions, stores, migrations, genesis and block hooks), its upgrade handlers and StoreUpgrades — and
 * RunMigrations (docs/spec/keeper.md §8.3) over them.
 *
 * An app module is a plain ES module whose default export (or export named `app`) is an
 * {@link AppDefinition}. It needs no import from this package: everything it uses comes in through the
 * contexts the devnet hands it, so the same file works with the sources, the built package or a copy.
 *
 * ```js
 * // examples/apps/v2/index.mjs (abridged)
 * export default {
 *   name: "example-v2",
 *   modules: [
 *     { name: "counter", consensusVersion: 2, migrations: { 1: migrateCounterV1toV2 }, endBlock: countBlock },
 *     { name: "tags", consensusVersion: 1, initGenesis: seedTags },
 *   ],
 *   upgrades: [
 *     { name: "v2", storeUpgrades: { added: ["tags"], renamed: [{ oldKey: "notes", newKey: "memos" }] },
 *       handler: (ctx, plan, fromVM) => ctx.runMigrations(fromVM) },
 *   ],
 * };
 * ```
 */
import { pathToFileURL } from "node:url";
import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { UpgradeError } from "../../../core/errors.js";
import type { UpgradeContext } from "../../../module/keeper.js";
import type { KVStore } from "../../../core/kv.js";
import { upgradeStoreLoader } from "../../../module/store-loader.js";
import type { Plan, StoreUpgrades, VersionMap } from "../../../core/types.js";
import { isUint64 } from "../../../go/int.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";
import { DevnetError } from "../shared/errors.js";

/** What a module's hooks and migrations get. */
export interface ModuleContext {
  /** The block being executed. */
  readonly height: bigint;
  /** Block time, nanoseconds since the Unix epoch. */
  readonly timeNs: bigint;
  readonly chainId: string;
  /** The module the hook belongs to ("" in an upgrade handler). */
  readonly module: string;
  /** A mounted store of the block's state (writes are committed with the block, or dropped with it). */
  store(name: string): KVStore;
  readonly logger: Required<Logger>;
}

/** A migration from version `n` (its key in `migrations`) to `n + 1`. */
export type Migration = (ctx: ModuleContext) => void | Promise<void>;

export interface AppModule {
  name: string;
  /** The module's ConsensusVersion (uint64). */
  consensusVersion: number | bigint;
  /** Store keys the module mounts (default `[name]`; `[]` for none). */
  stores?: string[];
  /** Migrations keyed by the version they start from: `{1: v1→v2, 2: v2→v3}`. */
  migrations?: Record<number, Migration>;
  /** Default genesis: at chain start, and by RunMigrations when the module is new in an upgrade. */
  initGenesis?: (ctx: ModuleContext) => void | Promise<void>;
  beginBlock?: (ctx: ModuleContext) => void | Promise<void>;
  endBlock?: (ctx: ModuleContext) => void | Promise<void>;
}

/** The context of an upgrade handler: the keeper's block context plus the app's RunMigrations. */
export interface AppUpgradeContext extends UpgradeContext, ModuleContext {
  /** RunMigrations (docs/spec/keeper.md §8.3): returns the version map to hand back to the keeper. */
  runMigrations(fromVM: VersionMap): Promise<VersionMap>;
  /** The app's consensus versions of every module. */
  moduleVersions(): VersionMap;
}

export type AppUpgradeHandler = (ctx: AppUpgradeContext, plan: Plan, fromVM: VersionMap) => VersionMap | Promise<VersionMap>;

export interface AppUpgrade {
  /** The upgrade (plan) name this binary handles. */
  name: string;
  /** Default: `(ctx, plan, fromVM) => ctx.runMigrations(fromVM)`. */
  handler?: AppUpgradeHandler;
  /** Store changes applied by the store loader when this upgrade is the one being started (docs/spec/keeper.md §8.2). */
  storeUpgrades?: StoreUpgrades;
}

export interface AppDefinition {
  /** The binary's name (reported as `abci_info.data` and in logs). */
  name: string;
  /** Free text version reported in logs. */
  version?: string;
  /** App modules; modules named auth, bank, gov, staking or upgrade override the built-in's version and migrations. */
  modules?: AppModule[];
  upgrades?: AppUpgrade[];
  /** RunMigrations order (default: names sorted, `auth` last). Modules not listed run after, in the default order. */
  migrationOrder?: string[];
}

/** The host's own modules, with their v0.50 consensus versions, and their stores. */
export const BUILTIN_MODULES: readonly { name: string; consensusVersion: bigint; stores: string[] }[] = [
  { name: "auth", consensusVersion: 5n, stores: ["auth"] },
  { name: "bank", consensusVersion: 4n, stores: ["bank"] },
  { name: "gov", consensusVersion: 5n, stores: ["gov"] },
  { name: "staking", consensusVersion: 5n, stores: ["staking"] },
  // x/upgrade's readiness tally (docs/spec/readiness.md §5) lives in a store of its own.
  { name: "upgrade", consensusVersion: 2n, stores: ["upgrade", "readiness"] },
];

/** Host bookkeeping stores (blocks, tx index, node state); app modules may not use names starting with `_`. */
export const HOST_STORES = ["_blocks", "_node", "_txs"] as const;

export const DEFAULT_APP: AppDefinition = { name: "xupgrade-devnet", modules: [], upgrades: [] };

/** An app after validation: modules merged with the built-ins. */
export interface LoadedApp {
  definition: AppDefinition;
  name: string;
  /** Every module (built-in and app), by name. */
  modules: Map<string, ResolvedModule>;
  upgrades: Map<string, AppUpgrade>;
  /** Every store to mount (module stores and host stores), sorted. */
  stores: string[];
}

export interface ResolvedModule {
  name: string;
  consensusVersion: bigint;
  stores: string[];
  builtin: boolean;
  def?: AppModule;
}

/** Loads an app: a definition object, or a path to an ES module (a directory means its index.mjs / index.js). */
export async function loadApp(app: string | AppDefinition | undefined): Promise<LoadedApp> {
  if (app === undefined) return resolveApp(DEFAULT_APP);
  if (typeof app !== "string") return resolveApp(app);
  let path = resolve(app);
  let info;
  try {
    info = await stat(path);
  } catch {
    // Not a file: a package name ("my-app", "@org/app/v2") is imported as such.
    if (!/^[./\\]|^[A-Za-z]:/.test(app)) {
      let mod: Record<string, unknown>;
      try {
        mod = (await import(app)) as Record<string, unknown>;
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === "ERR_MODULE_NOT_FOUND" && String((e as Error).message).includes(`'${app.split("/")[0]}`)) {
          throw new DevnetError("app", `app module ${app} not found (neither a file nor an installed package)`);
        }
        throw new DevnetError("app", `cannot load app module ${app}: ${messageOf(e)}`);
      }
      return resolveApp(pick(mod, app));
    }
    throw new DevnetError("app", `app module ${app} not found`);
  }
  if (info.isDirectory()) {
    let found: string | undefined;
    for (const f of ["index.mjs", "index.js"]) {
      try {
        if ((await stat(join(path, f))).isFile()) {
          found = join(path, f);
          break;
        }
      } catch {
        /* next */
      }
    }
    if (!found) throw new DevnetError("app", `app directory ${app} has no index.mjs or index.js`);
    path = found;
  }
  return resolveApp(pick(await importModule(pathToFileURL(path).href, app), app));
}

async function importModule(specifier: string, shown: string): Promise<Record<string, unknown>> {
  try {
    return (await import(specifier)) as Record<string, unknown>;
  } catch (e) {
    throw new DevnetError("app", `cannot load app module ${shown}: ${messageOf(e)}`);
  }
}

function pick(mod: Record<string, unknown>, shown: string): AppDefinition {
  const def = (mod.default ?? mod.app) as AppDefinition | undefined;
  if (def === undefined) throw new DevnetError("app", `app module ${shown} has no default export (or export named "app")`);
  return def;
}

/** Validates an app definition and merges its modules with the built-ins. */
export function resolveApp(def: AppDefinition): LoadedApp {
  const fail = (msg: string) => new DevnetError("app", `invalid app definition: ${msg}`);
  if (typeof def !== "object" || def === null) throw fail("not an object");
  if (typeof def.name !== "string" || def.name === "") throw fail("name must be a non-empty string");
  const modules = new Map<string, ResolvedModule>();
  for (const b of BUILTIN_MODULES) modules.set(b.name, { ...b, builtin: true });
  const storeOwner = new Map<string, string>();
  for (const b of BUILTIN_MODULES) for (const s of b.stores) storeOwner.set(s, b.name);
  const seen = new Set<string>();
  for (const m of def.modules ?? []) {
    if (typeof m !== "object" || m === null || typeof m.name !== "string" || m.name === "") throw fail("every module needs a name");
    if (seen.has(m.name)) throw fail(`module ${m.name} is defined twice`);
    seen.add(m.name);
    const v = typeof m.consensusVersion === "number" && Number.isSafeInteger(m.consensusVersion) ? BigInt(m.consensusVersion) : m.consensusVersion;
    if (typeof v !== "bigint" || !isUint64(v)) throw fail(`module ${m.name}: consensusVersion must be a uint64`);
    for (const hook of ["initGenesis", "beginBlock", "endBlock"] as const) {
      if (m[hook] !== undefined && typeof m[hook] !== "function") throw fail(`module ${m.name}: ${hook} must be a function`);
    }
    for (const [from, fn] of Object.entries(m.migrations ?? {})) {
      if (!/^[1-9][0-9]*$/.test(from) || typeof fn !== "function") throw fail(`module ${m.name}: migrations must map versions ≥ 1 to functions`);
    }
    const builtin = modules.get(m.name);
    let stores: string[];
    if (builtin?.builtin) {
      if (m.stores !== undefined) throw fail(`module ${m.name} is built in: its stores cannot be changed`);
      stores = builtin.stores;
    } else {
      stores = m.stores ?? [m.name];
      for (const s of stores) {
        if (typeof s !== "string" || s === "" || s.startsWith("_")) throw fail(`module ${m.name}: invalid store name ${JSON.stringify(s)}`);
        const owner = storeOwner.get(s);
        if (owner !== undefined) throw fail(`store ${s} belongs to both ${owner} and ${m.name}`);
        storeOwner.set(s, m.name);
      }
    }
    modules.set(m.name, { name: m.name, consensusVersion: v, stores, builtin: builtin?.builtin ?? false, def: m });
  }
  const upgrades = new Map<string, AppUpgrade>();
  for (const u of def.upgrades ?? []) {
    if (typeof u !== "object" || u === null || typeof u.name !== "string" || u.name === "") throw fail("every upgrade needs a name");
    if (upgrades.has(u.name)) throw fail(`upgrade ${u.name} is defined twice`);
    if (u.handler !== undefined && typeof u.handler !== "function") throw fail(`upgrade ${u.name}: handler must be a function`);
    if (u.storeUpgrades !== undefined) {
      try {
        upgradeStoreLoader(1n, u.storeUpgrades); // validates
      } catch (e) {
        throw fail(`upgrade ${u.name}: ${messageOf(e)}`);
      }
      const mounted = new Set(storeOwner.keys());
      for (const s of u.storeUpgrades.added ?? []) {
        if (!mounted.has(s)) throw fail(`upgrade ${u.name}: added store ${s} is not a store of any module`);
      }
      for (const r of u.storeUpgrades.renamed ?? []) {
        if (!mounted.has(r.newKey)) throw fail(`upgrade ${u.name}: renamed store ${r.newKey} is not a store of any module`);
      }
    }
    upgrades.set(u.name, u);
  }
  if (def.migrationOrder !== undefined && (!Array.isArray(def.migrationOrder) || def.migrationOrder.some((n) => !modules.has(n)))) {
    throw fail("migrationOrder must list module names of this app");
  }
  const stores = [...new Set([...storeOwner.keys(), ...HOST_STORES])].sort();
  return { definition: def, name: def.name, modules, upgrades, stores };
}

/** The app's consensus version of every module. */
export function appVersionMap(app: LoadedApp): VersionMap {
  const vm: VersionMap = new Map();
  for (const m of app.modules.values()) vm.set(m.name, m.consensusVersion);
  return vm;
}

/** RunMigrations order: `migrationOrder` first, then the rest sorted by name with `auth` last. */
export function migrationOrder(app: LoadedApp): string[] {
  const explicit = app.definition.migrationOrder ?? [];
  const rest = [...app.modules.keys()].filter((n) => !explicit.includes(n)).sort((a, b) => (a === "auth" ? 1 : b === "auth" ? -1 : a < b ? -1 : a > b ? 1 : 0));
  return [...explicit, ...rest];
}

const notFound = (text: string) => new UpgradeError("sdk", 38, `${text}: not found`, "handler-failed");

/**
 * RunMigrations (docs/spec/keeper.md §8.3): for each module in order, run its migrations from `fromVM`'s
 * version up to its ConsensusVersion (none when to ≤ 1 or from == to); a module absent from `fromVM` is
 * new and gets its default genesis. Returns every app module's ConsensusVersion.
 */
export async function runMigrations(
  app: LoadedApp,
  fromVM: VersionMap,
  ctxFor: (module: string) => ModuleContext,
  logger: Required<Logger>,
): Promise<VersionMap> {
  const updated: VersionMap = new Map();
  for (const name of migrationOrder(app)) {
    const m = app.modules.get(name)!;
    const to = m.consensusVersion;
    const from = fromVM.get(name);
    if (from === undefined) {
      logger.info(`adding a new module: ${name}`, { module: "x/upgrade", target: name, version: to });
      if (m.def?.initGenesis) await m.def.initGenesis(ctxFor(name));
    } else if (!(to <= 1n || from === to)) {
      const migrations = m.def?.migrations;
      if (!migrations || Object.keys(migrations).length === 0) throw notFound(`no migrations found for module ${name}`);
      for (let v = from; v < to; v++) {
        const fn = migrations[Number(v)];
        if (typeof fn !== "function") throw notFound(`no migration found for module ${name} from version ${v} to version ${v + 1n}`);
        logger.info(`migrating module ${name} from version ${v} to version ${v + 1n}`, { module: "x/upgrade", target: name, from: v, to: v + 1n });
        await fn(ctxFor(name));
      }
    }
    updated.set(name, to);
  }
  return updated;
}
