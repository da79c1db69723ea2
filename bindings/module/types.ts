/** The module's shapes (as the SDK's x/upgrade/types): plans, version maps, store upgrades. 64-bit values are `bigint`. */
export type { CompletedUpgrade, DoneEntries, DoneLayout, ModuleVersion, Plan, PlanInput, StoreUpgrades, VersionMap } from "../core/types.js";
