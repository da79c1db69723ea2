/**
 * UTF-8 to and from byte buffers without allocating for ASCII, the common case for upgrade and module
 * names. Used by the pure-TS core and by the wasm bindings to move names through linear memory.
 */
const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes needed to encode a well-formed string. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2; // a surrogate pair: 2 units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** Writes `s` at `pos` (room must exist); returns the number of bytes written. */
export function writeUtf8(s: string, buf: Uint8Array, pos: number): number {
  const n = s.length;
  // Past ~30 characters TextEncoder's native loop wins despite the subarray it needs (measured: 230
  // ASCII characters 87 ns vs 398 ns in the loop below; 16 characters 83 ns vs 51 ns).
  if (n > 32) return encoder.encodeInto(s, buf.subarray(pos)).written;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return i + encoder.encodeInto(s.slice(i), buf.subarray(pos + i)).written;
    buf[pos + i] = c;
  }
  return n;
}

/** Decodes bytes known to be valid UTF-8. */
export function readUtf8(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= 32) {
    let s = "";
    for (let i = start; i < end; i++) {
      const c = buf[i];
      if (c >= 0x80) return strictDecoder.decode(buf.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return strictDecoder.decode(buf.subarray(start, end));
}

/** Decodes bytes that may not be UTF-8; returns undefined when they are not. */
export function tryReadUtf8(buf: Uint8Array, start: number, end: number): string | undefined {
  try {
    return readUtf8(buf, start, end);
  } catch {
    return undefined;
  }
}
