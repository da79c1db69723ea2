/**
 * Store entries in batches on the WebAssembly core (assembly/entries.ts; twin bindings/core/js/entries.ts):
 * raw entries written into IO, decoded in one call, and the core's name/value records read back — also
 * for moduleVersions (keeper.ts). Arguments are checked by the caller (index.ts).
 */
import type { CompletedUpgrade, DoneEntries, ModuleVersion } from "../types.js";
import { DONE_PREFIX, Layout, VERSION_PREFIX } from "../constants.generated.js";
import type { CoreInstance } from "./instance.js";

/** Writes `count` raw entries [u32 keyLen][key][u32 valueLen][value] into IO and decodes them in the core. */
function decodeEntries<T>(
  c: CoreInstance,
  prefix: number,
  kind: "int64" | "uint64",
  keys: Uint8Array[],
  values: Uint8Array[],
  make: (n: string, v: bigint) => T,
): T[] {
  putEntries(c, keys, values);
  c.check(c.x.decodeEntries(prefix, keys.length));
  return readEntries(c, keys.length, kind, make);
}

/** Writes raw entries [u32 keyLen][key][u32 valueLen][value] into IO, back to back. */
function putEntries(c: CoreInstance, keys: Uint8Array[], values: Uint8Array[]): void {
  let size = 0;
  for (let i = 0; i < keys.length; i++) size += 8 + keys[i].length + values[i].length;
  let at = c.reserve(size);
  const u8 = c.u8;
  const dv = c.dv;
  // Byte loops, not u8.set: keys and values are a few bytes and set()'s call overhead dominated.
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const value = values[i];
    const keyLen = key.length;
    const valueLen = value.length;
    dv.setUint32(at, keyLen, true);
    at += 4;
    if (keyLen > 32) u8.set(key, at);
    else for (let j = 0; j < keyLen; j++) u8[at + j] = key[j];
    at += keyLen;
    dv.setUint32(at, valueLen, true);
    at += 4;
    if (valueLen > 32) u8.set(value, at);
    else for (let j = 0; j < valueLen; j++) u8[at + j] = value[j];
    at += valueLen;
  }
}

export function decodeDoneEntries(c: CoreInstance, keys: Uint8Array[], values: Uint8Array[]): CompletedUpgrade[] {
  return decodeEntries(c, DONE_PREFIX, "int64", keys, values, (name, height) => ({ name, height }));
}

/** The done range in either layout: the core decides the layout (assembly/entries.ts decodeDoneEntriesAnyLayout). */
export function decodeDoneEntriesAnyLayout(c: CoreInstance, keys: Uint8Array[], values: Uint8Array[]): DoneEntries {
  putEntries(c, keys, values);
  const layout = c.x.decodeDoneEntriesAnyLayout(keys.length);
  if (layout < 0) throw c.error(-layout);
  return {
    layout: layout === Layout.Sdk ? "sdk" : layout === Layout.Seed ? "seed" : undefined,
    entries: readEntries(c, keys.length, "int64", (name, height) => ({ name, height })),
  };
}

export function decodeModuleVersionEntries(c: CoreInstance, keys: Uint8Array[], values: Uint8Array[]): ModuleVersion[] {
  return decodeEntries(c, VERSION_PREFIX, "uint64", keys, values, (name, version) => ({ name, version }));
}

/** 8 big-endian bytes per height, swapped in the core. */
export function encodeHeightsBE(c: CoreInstance, heights: BigInt64Array): Uint8Array {
  const at = c.reserve(heights.length * 8);
  if (at % 8 === 0) new BigInt64Array(c.u8.buffer, at, heights.length).set(heights);
  else for (let i = 0; i < heights.length; i++) c.dv.setBigInt64(at + i * 8, heights[i], true);
  c.x.encodeHeightsBE(heights.length);
  return c.out();
}

/** Decodes the names of a batch; the core validated them (fatal is not needed), and a leading U+FEFF is a name's first character, not a BOM. */
const NAMES = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Names are decoded this many bytes at a time. One string for a whole 10,000-name batch (~140 KB) lands in
 * V8's large-object space, which made the decode 5× slower than ten 14 KB ones (measured).
 */
const CHUNK_BYTES = 16 * 1024;

/**
 * Reads the core's name/value records (assembly/entries.ts) from OUT. Names are decoded a chunk at a
 * time and each one is a slice of its chunk's string: V8 makes a slice of 13+ characters a view of the
 * chunk, so a surviving name keeps at most its 16 KB chunk alive.
 */
export function readEntries<T>(c: CoreInstance, count: number, kind: "int64" | "uint64", make: (name: string, value: bigint) => T): T[] {
  const out = new Array<T>(count);
  if (count === 0) return out;
  const base = c.x.outPtr();
  const u8 = c.view();
  const dv = c.dv;
  const aligned = (base & 7) === 0; // the allocator aligns to 16: then typed-array reads, not DataView
  const i32 = c.i32;
  const values = kind === "int64" ? c.i64 : c.u64;
  const nameBytes = (i: number) => (aligned ? i32[(base >> 2) + i * 4] : dv.getUint32(base + i * 16, true));
  const nameUnits = (i: number) => (aligned ? i32[(base >> 2) + i * 4 + 1] : dv.getUint32(base + i * 16 + 4, true));
  const value = (i: number) =>
    aligned ? values[(base >> 3) + i * 2 + 1] : kind === "int64" ? dv.getBigInt64(base + i * 16 + 8, true) : dv.getBigUint64(base + i * 16 + 8, true);
  let at = base + count * 16;
  for (let i = 0; i < count;) {
    let j = i;
    let bytes = 0;
    while (j < count && (j === i || bytes + nameBytes(j) <= CHUNK_BYTES)) bytes += nameBytes(j++);
    const names = NAMES.decode(u8.subarray(at, at + bytes));
    at += bytes;
    for (let u = 0; i < j; i++) {
      const units = nameUnits(i);
      out[i] = make(names.slice(u, u + units), value(i));
      u += units;
    }
  }
  return out;
}
