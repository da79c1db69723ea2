// Big-endian 64-bit values: one byte swap, no allocation.

@inline export function storeBE64(ptr: usize, v: u64): void {
  store<u64>(ptr, bswap<u64>(v));
}

@inline export function loadBE64(ptr: usize): u64 {
  return bswap<u64>(load<u64>(ptr));
}
