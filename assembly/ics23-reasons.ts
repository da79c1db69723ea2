// Why an ICS23 proof was refused, and where a verified one's facts are (docs/spec/core.md §14.4). This file is
// their only source: the host's copies (Ics23Reason … Ics23Fact in bindings/core/constants.generated.ts) are
// generated from it by scripts/constants.mjs, and bindings/core/ics23.ts words each refusal. The checks follow
// cosmos/ics23's Go verifier, in its order.
export const E_OK: i32 = 0;
// The bytes are not a CommitmentProof: the protobuf reason (status.ts M_*) in a, the field in b, the wire type in c.
export const E_MALFORMED: i32 = 1;
export const E_EMPTY_PROOF: i32 = 2;
export const E_NOT_EXISTENCE: i32 = 3;
export const E_NOT_NONEXISTENCE: i32 = 4;
export const E_EMPTY_BATCH: i32 = 5;
export const E_NO_BATCH_ENTRY: i32 = 6;
export const E_NO_LEAF: i32 = 7;
// IAVL prefixes (spec iavl only): a varint that does not read (which one in a: 0 height, 1 size, 2 version),
// then each value's rule, then the bytes left after the varints (count in a).
export const E_IAVL_VARINT: i32 = 8;
export const E_IAVL_HEIGHT: i32 = 9;
export const E_IAVL_SIZE: i32 = 10;
export const E_IAVL_VERSION: i32 = 11;
export const E_IAVL_REMAINDER: i32 = 12;
export const E_LEAF_HASH: i32 = 13;
export const E_LEAF_PREHASH_KEY: i32 = 14;
export const E_LEAF_PREHASH_VALUE: i32 = 15;
export const E_LEAF_LENGTH: i32 = 16;
export const E_LEAF_PREFIX: i32 = 17;
export const E_MIN_DEPTH: i32 = 18;
export const E_MAX_DEPTH: i32 = 19;
export const E_INNER_HASH: i32 = 20;
// Tendermint inner prefixes (spec tendermint only): a 0 empty, 1 not exactly 01 beside a suffix, 2 not starting with 01.
export const E_TENDERMINT_PREFIX: i32 = 21;
export const E_INNER_LEAF_PREFIX: i32 = 22;
export const E_INNER_PREFIX_SHORT: i32 = 23;
export const E_INNER_PREFIX_LONG: i32 = 24;
export const E_INNER_SUFFIX: i32 = 25;
export const E_KEY_MISMATCH: i32 = 26;
export const E_VALUE_MISMATCH: i32 = 27;
export const E_EMPTY_KEY: i32 = 28;
export const E_EMPTY_VALUE: i32 = 29;
export const E_UNSUPPORTED_HASH: i32 = 30;
export const E_UNSUPPORTED_LENGTH: i32 = 31;
export const E_LENGTH_REQUIRED: i32 = 32;
export const E_ROOT_MISMATCH: i32 = 33;
export const E_NO_NEIGHBOURS: i32 = 34;
export const E_NOT_LEFT_OF_RIGHT: i32 = 35;
export const E_NOT_RIGHT_OF_LEFT: i32 = 36;
export const E_NOT_LEFT_MOST: i32 = 37;
export const E_NOT_RIGHT_MOST: i32 = 38;
export const E_NOT_ADJACENT: i32 = 39;
export const E_APP_HASH_MISMATCH: i32 = 40;
// A compressed batch's path names an inner op its lookup table does not have (the index in a, the table's size in b).
export const E_COMPRESSED_INDEX: i32 = 41;
// The bytes are protobuf, but not as an honest encoder writes them (§14.2): the form (N_*) in a, the message
// (MSG_*) in b, the field in c, and in v the field before it (N_ONEOF, N_ORDER) or which varint (N_VARINT: 0 a
// tag, 1 a length, 2 a value, 3 an element of a packed run).
export const E_NON_CANONICAL: i32 = 42;

// Where the check failed (the W_* of the result's `where`): the proof as a whole, its leaf, or an inner op
// (its index in the path in `step`).
export const W_PROOF: i32 = 0;
export const W_LEAF: i32 = 1;
export const W_INNER: i32 = 2;

// The non-canonical forms (E_NON_CANONICAL's a).
export const N_ONEOF: i32 = 1; // a second member of a oneof
export const N_TWICE: i32 = 2; // a singular field again
export const N_UNKNOWN: i32 = 3; // a field the message does not have
export const N_DEFAULT: i32 = 4; // an enum written as 0, a bytes field written empty
export const N_ORDER: i32 = 5; // a field after a higher-numbered one
export const N_VARINT: i32 = 6; // a varint longer than needed
export const N_INT32: i32 = 7; // an int32 (enum, index) whose varint is not a sign-extended 32-bit value
export const N_UNPACKED: i32 = 8; // the compressed path's indices not written as one packed run

// The messages of a CommitmentProof (E_NON_CANONICAL's b).
export const MSG_COMMITMENT_PROOF: i32 = 1;
export const MSG_EXISTENCE_PROOF: i32 = 2;
export const MSG_NON_EXISTENCE_PROOF: i32 = 3;
export const MSG_LEAF_OP: i32 = 4;
export const MSG_INNER_OP: i32 = 5;
export const MSG_BATCH_PROOF: i32 = 6;
export const MSG_BATCH_ENTRY: i32 = 7;
export const MSG_COMPRESSED_BATCH_PROOF: i32 = 8;
export const MSG_COMPRESSED_BATCH_ENTRY: i32 = 9;
export const MSG_COMPRESSED_EXISTENCE_PROOF: i32 = 10;
export const MSG_COMPRESSED_NON_EXISTENCE_PROOF: i32 = 11;

// What a verified proof proved (the block at ics23Facts(), valid until the next call): three records of
// F_RECORD bytes, [i32 present, u32 key address, i32 key length, u32 value address, i32 value length], the
// addresses into IO (the proof's own bytes): the existence entry checked (F_EXIST), the non-existence entry's
// left (F_LEFT) and right (F_RIGHT) neighbours. Set by a non-membership check and by op 0 of a store proof.
export const F_EXIST: i32 = 0;
export const F_LEFT: i32 = 20;
export const F_RIGHT: i32 = 40;
export const F_RECORD: i32 = 20;
export const F_SIZE: i32 = 60;

// Which existence proof of a non-existence proof failed (`side`).
export const S_NONE: i32 = 0;
export const S_LEFT: i32 = 1;
export const S_RIGHT: i32 = 2;
