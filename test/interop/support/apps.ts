/**
 * Devnet application definitions that stand in for the real peers on the devnet, so both chains hold the same
 * upgrade-store state: the module consensus versions of simd v0.47.17 and v0.50.15 (simapp at the pinned
 * commits) and of appd on each SDK line, read from their `module_versions` answers, and the handlers of the
 * real upgrades into each line (`v047-to-v050` adds the `circuit` store, `v050-to-v053` the `epochs` store;
 * all run the migrations, no-ops here: only the versions are compared).
 */
import type { AppDefinition, AppModule } from "../../../bindings/apps/devnet/chain/app.js";

/** `module_versions` of a fresh simd v0.47.17 chain (simapp 666c345ad23d). */
export const SIMD_V047_VERSIONS: Record<string, number> = {
  auth: 4,
  authz: 2,
  bank: 4,
  capability: 1,
  consensus: 1,
  crisis: 2,
  distribution: 3,
  evidence: 1,
  feegrant: 2,
  genutil: 1,
  gov: 4,
  group: 2,
  mint: 2,
  nft: 1,
  params: 1,
  slashing: 3,
  staking: 4,
  upgrade: 2,
  vesting: 1,
};

/** `module_versions` of a fresh simd v0.50.15 chain (simapp 3897926e722e); `runtime` is there with version 0. */
export const SIMD_V050_VERSIONS: Record<string, number> = {
  auth: 5,
  authz: 2,
  bank: 4,
  circuit: 1,
  consensus: 1,
  crisis: 2,
  distribution: 3,
  evidence: 1,
  feegrant: 2,
  genutil: 1,
  gov: 5,
  group: 2,
  mint: 2,
  nft: 1,
  params: 1,
  runtime: 0,
  slashing: 4,
  staking: 5,
  upgrade: 2,
  vesting: 1,
};

/**
 * `module_versions` of appd (test/peers/app) on each line: v0.50.15 with x/upgrade v0.1.4; v0.53.8 adds epochs
 * (no module of the set changes its consensus version between v0.50 and v0.53); v0.54.4 raises auth to 6.
 */
export const APP_V050_VERSIONS: Record<string, number> = {
  auth: 5,
  bank: 4,
  consensus: 1,
  distribution: 3,
  genutil: 1,
  gov: 5,
  runtime: 0,
  staking: 5,
  upgrade: 2,
};
export const APP_V053_VERSIONS: Record<string, number> = { ...APP_V050_VERSIONS, epochs: 1 };
export const APP_V054_VERSIONS: Record<string, number> = { ...APP_V053_VERSIONS, auth: 6 };

/** The devnet's own modules (bindings/apps/devnet/chain/app.ts BUILTIN_MODULES) keep their stores; the others mount none. */
const BUILTIN = new Set(["auth", "bank", "gov", "staking", "upgrade"]);
/** The stores a real upgrade adds (the store loader of v047-to-v050 and v050-to-v053). */
const ADDED_STORES = new Set(["circuit", "epochs"]);

function modules(versions: Record<string, number>, from?: Record<string, number>): AppModule[] {
  return Object.entries(versions).map(([name, v]) => {
    const m: AppModule = { name, consensusVersion: v };
    if (!BUILTIN.has(name)) m.stores = ADDED_STORES.has(name) ? [name] : [];
    const old = from?.[name];
    if (old !== undefined && old < v) {
      // No-op migrations: the compared state is the version map, not the modules' data.
      m.migrations = Object.fromEntries(Array.from({ length: v - old }, (_, i) => [old + i, () => undefined]));
    }
    return m;
  });
}

export const SIMD_V047_APP: AppDefinition = { name: "simd-v0.47-like", version: "0.47.17", modules: modules(SIMD_V047_VERSIONS), upgrades: [] };

export const SIMD_V050_APP: AppDefinition = {
  name: "simd-v0.50-like",
  version: "0.50.15",
  modules: modules(SIMD_V050_VERSIONS, SIMD_V047_VERSIONS),
  upgrades: [
    {
      name: "v047-to-v050",
      storeUpgrades: { added: ["circuit"] },
      handler: (ctx, _plan, fromVM) => ctx.runMigrations(fromVM),
    },
  ],
};

export const APP_V050_APP: AppDefinition = { name: "appd-v0.50-like", version: "0.50.15", modules: modules(APP_V050_VERSIONS), upgrades: [] };

export const APP_V053_APP: AppDefinition = {
  name: "appd-v0.53-like",
  version: "0.53.8",
  modules: modules(APP_V053_VERSIONS, APP_V050_VERSIONS),
  upgrades: [{ name: "v050-to-v053", storeUpgrades: { added: ["epochs"] }, handler: (ctx, _plan, fromVM) => ctx.runMigrations(fromVM) }],
};

export const APP_V054_APP: AppDefinition = {
  name: "appd-v0.54-like",
  version: "0.54.4",
  modules: modules(APP_V054_VERSIONS, APP_V053_VERSIONS),
  upgrades: [{ name: "v053-to-v054", handler: (ctx, _plan, fromVM) => ctx.runMigrations(fromVM) }],
};
