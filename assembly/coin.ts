// Coin expressions `<amount><denom>` (a deposit such as `10000000stake`), parsed and range-checked here:
// the amount is decimal digits only and at most 2^256 - 1 (as-bignum u256), the denom follows the Cosmos
// rule [a-zA-Z][a-zA-Z0-9/:._-]{2,127}. Surrounding ASCII whitespace is ignored, and whitespace may stand
// between amount and denom (as the SDK's coin regex allows).
//
// as-bignum's u256 has no fromString and wraps silently, so the digits are checked first and every
// step r * 10 + d is checked against floor((2^256 - 1) / 10) before it is taken.
//
// Result codes are this file's own (bindings/core/constants.generated.ts has them as CoinStatus, generated
// from here by scripts/constants.mjs). Twin of bindings/core/js/coin.ts. On success OUT holds the
// amount as 32 big-endian bytes and the header's name fields point at the denom inside IO; on
// COIN_BAD_DENOM they point at the offending denom.
import { u256 } from "as-bignum/assembly";
import { storeBE64 } from "./bigendian";
import { H_NAME_LEN, H_NAME_PTR, H_OUT_LEN, IO, OUT, ensure, regionPtr, setHeaderI32 } from "./memory";

export const COIN_OK: i32 = 0;
export const COIN_EMPTY: i32 = 1;
export const COIN_NEGATIVE: i32 = 2;
export const COIN_NOT_WHOLE: i32 = 3;
export const COIN_NO_AMOUNT: i32 = 4;
export const COIN_OVERFLOW: i32 = 5;
export const COIN_NO_DENOM: i32 = 6;
export const COIN_BAD_DENOM: i32 = 7;

/** 2^256 - 1 has 78 decimal digits. */
const MAX_DIGITS: i32 = 78;

@inline function isSpace(c: u32): bool {
  return c == 0x20 || (c >= 0x09 && c <= 0x0d);
}

@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

@inline function isAlpha(c: u32): bool {
  return (c | 0x20) - 0x61 < 26;
}

@inline function isDenomTail(c: u32): bool {
  return isAlpha(c) || isDigit(c) || c == 0x2f || c == 0x3a || c == 0x2e || c == 0x5f || c == 0x2d;
}

/** The coin expression in IO[0, len). */
export function parseCoin(len: i32): i32 {
  const base = regionPtr(IO);
  let start: usize = base;
  let end: usize = base + <usize>len;
  while (start < end && isSpace(<u32>load<u8>(start))) start++;
  while (end > start && isSpace(<u32>load<u8>(end - 1))) end--;
  setHeaderI32(H_NAME_PTR, <i32>start);
  setHeaderI32(H_NAME_LEN, 0);
  if (start == end) return COIN_EMPTY;

  const first = <u32>load<u8>(start);
  if (first == 0x2d) return COIN_NEGATIVE; // '-'

  let i = start;
  while (i < end && isDigit(<u32>load<u8>(i))) i++;
  const digitsEnd = i;
  if (i < end && load<u8>(i) == 0x2e) return COIN_NOT_WHOLE; // '.': 1.5stake, .5stake
  if (digitsEnd == start) return COIN_NO_AMOUNT;

  // Amount: leading zeros do not count towards the length limit.
  let d = start;
  while (d < digitsEnd - 1 && load<u8>(d) == 0x30) d++;
  if (<i32>(digitsEnd - d) > MAX_DIGITS) return COIN_OVERFLOW;
  const limit = new u256(0x9999999999999999, 0x9999999999999999, 0x9999999999999999, 0x1999999999999999);
  const ten = u256.fromU32(10);
  let amount = u256.Zero;
  while (d < digitsEnd) {
    const digit = <u32>load<u8>(d) - 0x30;
    // (2^256 - 1) = 10 * limit + 5
    if (amount > limit || (amount == limit && digit > 5)) return COIN_OVERFLOW;
    amount = amount * ten + u256.fromU32(digit);
    d++;
  }

  // Denom.
  while (i < end && isSpace(<u32>load<u8>(i))) i++;
  setHeaderI32(H_NAME_PTR, <i32>i);
  setHeaderI32(H_NAME_LEN, <i32>(end - i));
  if (i == end) return COIN_NO_DENOM;
  const denomLen = <i32>(end - i);
  if (denomLen < 3 || denomLen > 128 || !isAlpha(<u32>load<u8>(i))) return COIN_BAD_DENOM;
  for (let k = i + 1; k < end; k++) {
    if (!isDenomTail(<u32>load<u8>(k))) return COIN_BAD_DENOM;
  }

  const out = ensure(OUT, 32);
  storeBE64(out, amount.hi2);
  storeBE64(out + 8, amount.hi1);
  storeBE64(out + 16, amount.lo2);
  storeBE64(out + 24, amount.lo1);
  setHeaderI32(H_OUT_LEN, 32);
  return COIN_OK;
}
