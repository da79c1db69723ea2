// UTF-8 validation with the same rules as a fatal WHATWG TextDecoder (no overlongs, surrogates or > U+10FFFF).

export function validUtf8(ptr: usize, len: i32): bool {
  let i: usize = ptr;
  const end: usize = ptr + <usize>len;
  while (i < end) {
    const c = <u32>load<u8>(i);
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: i32;
    let lo: u32 = 0x80;
    let hi: u32 = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c == 0xe0) { need = 2; lo = 0xa0; }
    else if (c >= 0xe1 && c <= 0xec) need = 2;
    else if (c == 0xed) { need = 2; hi = 0x9f; }
    else if (c >= 0xee && c <= 0xef) need = 2;
    else if (c == 0xf0) { need = 3; lo = 0x90; }
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else if (c == 0xf4) { need = 3; hi = 0x8f; }
    else return false;
    if (end - i <= <usize>need) return false;
    const c1 = <u32>load<u8>(i + 1);
    if (c1 < lo || c1 > hi) return false;
    for (let k = 2; k <= need; k++) {
      const ck = <u32>load<u8>(i + <usize>k);
      if (ck < 0x80 || ck > 0xbf) return false;
    }
    i += <usize>(need + 1);
  }
  return true;
}

/**
 * The UTF-16 length of the bytes at [ptr, ptr + len) if they are UTF-8 (the rules of validUtf8), else -1.
 * Names are mostly ASCII, checked 8 bytes at a time; the rest is validated, then counted: one unit per
 * sequence, two for a 4-byte sequence (a surrogate pair).
 */
export function utf8Units(ptr: usize, len: i32): i32 {
  const end = ptr + <usize>len;
  let p = ptr;
  while (p + 8 <= end && (load<u64>(p) & 0x8080808080808080) == 0) p += 8;
  while (p < end && load<u8>(p) < 0x80) p++;
  if (p == end) return len;
  if (!validUtf8(p, <i32>(end - p))) return -1;
  let n = <i32>(p - ptr);
  for (; p < end; p++) {
    const c = <u32>load<u8>(p);
    if ((c & 0xc0) != 0x80) n += c >= 0xf0 ? 2 : 1;
  }
  return n;
}
