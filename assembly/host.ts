// The host supplies the upgrade store. Under the project's own module name: never "env" (see the notes).

/** Copies the value of a key into dst when it fits; returns its length, or -1 when absent. */
@external("host", "kvGet")
export declare function kvGet(keyPtr: usize, keyLen: i32, dstPtr: usize, dstCap: i32): i32;

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
