// SHA-256 (FIPS 180-4) over bytes in linear memory, one shot. Twin of bindings/core/js/sha256.ts
// (@noble/hashes); test/core/ics23.ts holds both to the NIST vectors and test/core/sha256.test.ts to each other.

const K: usize = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The message schedule, and the last one or two padded blocks. */
const W: usize = memory.data(64 * 4, 16);
const TAIL: usize = memory.data(128, 16);
const STATE: usize = memory.data(32, 16);

@inline function rotr(x: u32, n: u32): u32 {
  return (x >>> n) | (x << (32 - n));
}

/** One 64-byte block at `p` into STATE. */
function block(p: usize): void {
  for (let i: usize = 0; i < 16; i++) store<u32>(W + (i << 2), bswap<u32>(load<u32>(p + (i << 2))));
  for (let i: usize = 16; i < 64; i++) {
    const w15 = load<u32>(W + ((i - 15) << 2));
    const w2 = load<u32>(W + ((i - 2) << 2));
    const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
    store<u32>(W + (i << 2), load<u32>(W + ((i - 16) << 2)) + s0 + load<u32>(W + ((i - 7) << 2)) + s1);
  }
  let a = load<u32>(STATE, 0);
  let b = load<u32>(STATE, 4);
  let c = load<u32>(STATE, 8);
  let d = load<u32>(STATE, 12);
  let e = load<u32>(STATE, 16);
  let f = load<u32>(STATE, 20);
  let g = load<u32>(STATE, 24);
  let h = load<u32>(STATE, 28);
  for (let i: usize = 0; i < 64; i++) {
    const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = h + S1 + ch + load<u32>(K + (i << 2)) + load<u32>(W + (i << 2));
    const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  store<u32>(STATE, load<u32>(STATE, 0) + a, 0);
  store<u32>(STATE, load<u32>(STATE, 4) + b, 4);
  store<u32>(STATE, load<u32>(STATE, 8) + c, 8);
  store<u32>(STATE, load<u32>(STATE, 12) + d, 12);
  store<u32>(STATE, load<u32>(STATE, 16) + e, 16);
  store<u32>(STATE, load<u32>(STATE, 20) + f, 20);
  store<u32>(STATE, load<u32>(STATE, 24) + g, 24);
  store<u32>(STATE, load<u32>(STATE, 28) + h, 28);
}

/** SHA-256 of `len` bytes at `src`, written as 32 bytes at `dst` (which may overlap `src`). */
export function sha256(src: usize, len: i32, dst: usize): void {
  store<u32>(STATE, 0x6a09e667, 0);
  store<u32>(STATE, 0xbb67ae85, 4);
  store<u32>(STATE, 0x3c6ef372, 8);
  store<u32>(STATE, 0xa54ff53a, 12);
  store<u32>(STATE, 0x510e527f, 16);
  store<u32>(STATE, 0x9b05688c, 20);
  store<u32>(STATE, 0x1f83d9ab, 24);
  store<u32>(STATE, 0x5be0cd19, 28);
  const n = <usize>len;
  let p: usize = 0;
  for (; p + 64 <= n; p += 64) block(src + p);
  const rest = n - p;
  memory.fill(TAIL, 0, 128);
  memory.copy(TAIL, src + p, rest);
  store<u8>(TAIL + rest, 0x80);
  const tailLen: usize = rest < 56 ? 64 : 128;
  const bits = <u64>n << 3;
  store<u64>(TAIL + tailLen - 8, bswap<u64>(bits));
  block(TAIL);
  if (tailLen == 128) block(TAIL + 64);
  for (let i: usize = 0; i < 8; i++) store<u32>(dst + (i << 2), bswap<u32>(load<u32>(STATE + (i << 2))));
}
