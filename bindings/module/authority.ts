/**
 * The default upgrade authority: the gov module account, bech32 of sha256("gov")[:20]
 * (keeper.md docs/spec/keeper.md §1). A constant here, so the CLI's help can name it without loading the keeper.
 */
export const GOV_AUTHORITY = "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn";
