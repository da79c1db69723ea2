// Status codes, decode-failure reasons and PreBlock actions. This file is their only source: the host's
// copies (Status, Malformed, Action in bindings/core/constants.generated.ts) are generated from it by
// scripts/constants.mjs during `npm run build:wasm`.
export const OK: i32 = 0;
export const TIME_DEPRECATED: i32 = 1;
export const IBC_MOVED: i32 = 2;
export const NAME_EMPTY: i32 = 3;
export const HEIGHT_NOT_POSITIVE: i32 = 4;
export const SCHEDULED_IN_PAST: i32 = 5;
export const ALREADY_COMPLETED: i32 = 6;
export const CORRUPT_VALUE: i32 = 7;
export const CORRUPT_PLAN: i32 = 8;
export const MALFORMED: i32 = 9;
export const NONE: i32 = 10;
export const WRONG_PREFIX: i32 = 11;
export const CORRUPT_NAME: i32 = 12;
// A done record that fits neither store layout (decodeDoneEntriesAnyLayout): key and value length in the header.
export const CORRUPT_DONE: i32 = 13;
// Done records in both layouts (decodeDoneEntriesAnyLayout): the first record of the other layout's key in the
// header, its layout (LAYOUT_* of entries.ts) in H_REASON.
export const MIXED_LAYOUT: i32 = 14;

export const M_TRUNCATED_VARINT: i32 = 1;
export const M_VARINT_OVERFLOW: i32 = 2;
export const M_LENGTH_PAST_END: i32 = 3;
export const M_WRONG_WIRE_TYPE: i32 = 4;
export const M_FIELD_ZERO: i32 = 5;
export const M_ILLEGAL_WIRE_TYPE: i32 = 6;
export const M_INVALID_UTF8: i32 = 7;
export const M_GROUP: i32 = 8;
export const M_TRUNCATED_FIXED: i32 = 9;

// PreBlock actions (non-negative); a negative result is -status.
export const ACT_NONE: i32 = 0;
export const ACT_SKIPPED: i32 = 1;
export const ACT_UPGRADE_NEEDED: i32 = 2;
export const ACT_APPLY: i32 = 3;
export const ACT_TOO_EARLY: i32 = 4;
export const ACT_DOWNGRADE: i32 = 5;
