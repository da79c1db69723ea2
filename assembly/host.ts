// The host supplies the upgrade store. Under the project's own module name: never "env" (see the notes).

/** Copies the value of a key into dst when it fits; returns its length, or -1 when absent. */
@external("host", "kvGet")
export declare function kvGet(keyPtr: usize, keyLen: i32, dstPtr: usize, dstCap: i32): i32;

/** kvGetPlan's answer when the stored plan is the value it copied last time (the host's UNCHANGED is generated from this). */
export const UNCHANGED: i32 = -2;

/**
 * The stored plan (the value of key 0x00): the host copies it into the PLAN region (reserved through the
 * exported planReserve) and returns its length; -1 when there is no plan; UNCHANGED when the store
 * handed back the very value it copied last time. Store values are immutable by contract
 * (bindings/core/kv.ts), so the same value object means the bytes in PLAN are still current.
 */
@external("host", "kvGetPlan")
export declare function kvGetPlan(): i32;

@external("host", "kvSet")
export declare function kvSet(keyPtr: usize, keyLen: i32, valPtr: usize, valLen: i32): void;

@external("host", "kvDelete")
export declare function kvDelete(keyPtr: usize, keyLen: i32): void;

/**
 * Writes every entry with key prefix byte `prefix` into the SCAN region (reserved through the
 * exported scanReserve) as [u32 keyLen][key][u32 valueLen][value], ascending; returns the count.
 */
@external("host", "kvScan")
export declare function kvScan(prefix: i32): i32;

/**
 * Feeds the done range (key prefix 01), ascending, to the export lastChunk a chunk at a time, as slots in
 * SCAN (keeper.ts, "the last completed upgrade"); then writes the key lastChunk asked for — the first
 * corrupt record's, else the winner's — at the start of SCAN and returns its length for lastKey, or -1
 * when the range is empty.
 */
@external("host", "kvScanDone")
export declare function kvScanDone(): i32;
