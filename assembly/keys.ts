// Store keys of the seed's layout, built in the KEY region. Twin of bindings/core/js/keys.ts; the host's
// *_PREFIX constants are generated from this file (scripts/constants.mjs).
import { copyBytes, ensure, KEY } from "./memory";

export const PLAN_PREFIX: u8 = 0x00;
export const DONE_PREFIX: u8 = 0x01;
export const VERSION_PREFIX: u8 = 0x02;
export const PROTOCOL_VERSION_PREFIX: u8 = 0x03;

export const PLAN_KEY: usize = memory.data<u8>([PLAN_PREFIX]);
export const PROTOCOL_VERSION_KEY: usize = memory.data<u8>([PROTOCOL_VERSION_PREFIX]);

/** prefix ‖ name bytes; returns the key's address (its length is nameLen + 1). */
export function prefixedKey(prefix: u8, namePtr: usize, nameLen: i32): usize {
  const key = ensure(KEY, nameLen + 1);
  store<u8>(key, prefix);
  copyBytes(key + 1, namePtr, <usize>nameLen);
  return key;
}

const IBC_PREFIX = "upgradedIBCState/";
const IBC_CLIENT = "/upgradedClient";
const IBC_CONS = "/upgradedConsState";

/** ASCII `upgradedIBCState/<height>/upgradedClient` (or `…/upgradedConsState`); returns its length. */
export function ibcKey(height: i64, consensus: bool): i32 {
  const suffix = consensus ? IBC_CONS : IBC_CLIENT;
  const key = ensure(KEY, 17 + 20 + suffix.length);
  let pos = writeAscii(key, IBC_PREFIX);
  pos += writeDecimal(key + <usize>pos, height);
  pos += writeAscii(key + <usize>pos, suffix);
  return pos;
}

function writeAscii(dst: usize, s: string): i32 {
  for (let i = 0; i < s.length; i++) store<u8>(dst + <usize>i, <u8>s.charCodeAt(i));
  return s.length;
}

function writeDecimal(dst: usize, v: i64): i32 {
  let pos = 0;
  let u: u64 = <u64>v;
  if (v < 0) {
    store<u8>(dst, 0x2d); // '-'
    pos = 1;
    u = <u64>(-v); // -i64.MIN wraps to itself, which as u64 is its magnitude
  }
  let digits = 1;
  for (let t = u; t >= 10; t /= 10) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    store<u8>(dst + <usize>(pos + i), <u8>(0x30 + <u32>(u % 10)));
    u /= 10;
  }
  return pos + digits;
}
