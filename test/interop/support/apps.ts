/**
 * Devnet application definitions that stand in for simd on the devnet, so both chains hold the same
 * upgrade-store state: the module consensus versions of simd v0.47.17 and v0.50.15 (simapp at the pinned
 * commits, read from their `module_versions` answers), and v0.50's upgrade handler `v047-to-v050`, which adds
 * the `circuit` store and runs the migrations (no-ops here: only the versions are compared).
 */
import type { AppDefinition, AppModule } from "../../../bindings/apps/devnet/chain/app.js";

/** `module_versions` of a fresh simd v0.47.17 chain (simapp 666c345ad23d). */
export const SIMD_V047_VERSIONS: Record<string, number> = {
  auth: 4, authz: 2, bank: 4, capability: 1, consensus: 1, crisis: 2, distribution: 3, evidence: 1, feegrant: 2, genutil: 1,
  gov: 4, group: 2, mint: 2, nft: 1, params: 1, slashing: 3, staking: 4, upgrade: 2, vesting: 1,
};

/** `module_versions` of a fresh simd v0.50.15 chain (simapp 3897926e722e); `runtime` is there with version 0. */
export const SIMD_V050_VERSIONS: Record<string, number> = {
  auth: 5, authz: 2, bank: 4, circuit: 1, consensus: 1, crisis: 2, distribution: 3, evidence: 1, feegrant: 2, genutil: 1,
  gov: 5, group: 2, mint: 2, nft: 1, params: 1, runtime: 0, slashing: 4, staking: 5, upgrade: 2, vesting: 1,
};

/** The devnet's own modules (bindings/apps/devnet/chain/app.ts BUILTIN_MODULES) keep their stores; the others mount none. */
const BUILTIN = new Set(["auth", "bank", "gov", "staking", "upgrade"]);

function modules(versions: Record<string, number>, from?: Record<string, number>): AppModule[] {
  return Object.entries(versions).map(([name, v]) => {
    const m: AppModule = { name, consensusVersion: v };
    if (!BUILTIN.has(name)) m.stores = name === "circuit" ? ["circuit"] : [];
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
