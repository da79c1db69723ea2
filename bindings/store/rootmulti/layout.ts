/**
 * The commit multistore's database (docs/spec/store.md §4). Every key starts with a tag byte:
 *
 * - `F` → the format marker (`FORMAT`), written by the first commit;
 * - `h` → BE64 last committed height;
 * - `c` ‖ BE64 version → the version's record: every store that exists at it, with its root;
 * - `n` ‖ BE16 len(name) ‖ name ‖ BE64 version ‖ BE32 nonce → a saved node of store `name`;
 * - `o` ‖ BE64 version → the nodes that version replaced (its orphans), deleted when the version before
 *   it is pruned.
 */
import { toHex } from "../../core/errors.js";
import { bytesSize, Reader, uvarintSize, varintSize, writeBytes, writeUvarint, writeVarint } from "../iavl/encoding.js";
import type { NodeKey } from "../iavl/tree.js";
import { concatBytes } from "../../base/bytes.js";
import { CorruptStoreError } from "../errors.js";

export const FORMAT = "xupgrade commit multistore: IAVL trees, SDK commit info; format 2";
export const FORMAT_KEY = Uint8Array.of(0x46); // 'F'
export const HEIGHT_KEY = Uint8Array.of(0x68); // 'h'
const RECORD = 0x63; // 'c'
const NODE = 0x6e; // 'n'
const ORPHANS = 0x6f; // 'o'

/** The tags of the older DurableMultiStore layout (a hash chain over block writes, no format marker). */
export const OLD_LAYOUT_TAGS = new Set([0x72 /* r */, 0x73 /* s */]);

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function be64(v: number): Uint8Array {
  const out = new Uint8Array(8);
  writeBe64(new DataView(out.buffer), 0, v);
  return out;
}

/** A safe integer as 8 big-endian bytes, without a BigInt (node keys are made by the thousand). */
function writeBe64(view: DataView, pos: number, v: number): void {
  view.setUint32(pos, Math.floor(v / 0x1_0000_0000));
  view.setUint32(pos + 4, v >>> 0);
}

export function encodeHeight(v: number): Uint8Array {
  return be64(v);
}

export function decodeHeight(b: Uint8Array): number {
  if (b.length !== 8) throw new CorruptStoreError(`corrupt multistore height: ${b.length} bytes, expected 8`);
  const v = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new CorruptStoreError(`multistore height ${v} is beyond 2^53`);
  return Number(v);
}

export const recordKey = (version: number) => concatBytes(Uint8Array.of(RECORD), be64(version));
export const RECORD_RANGE = { gte: Uint8Array.of(RECORD), lt: Uint8Array.of(RECORD + 1) };
export const orphansKey = (version: number) => concatBytes(Uint8Array.of(ORPHANS), be64(version));

export function versionOfRecordKey(key: Uint8Array): number {
  return decodeHeight(key.subarray(1));
}

/** The key prefix of store `name`'s nodes. */
export function nodePrefix(name: string): Uint8Array {
  const n = encoder.encode(name);
  if (n.length === 0 || n.length > 0xffff) throw new TypeError("store name must be 1 to 65535 bytes of UTF-8");
  const out = new Uint8Array(3 + n.length);
  out[0] = NODE;
  out[1] = n.length >> 8;
  out[2] = n.length & 0xff;
  out.set(n, 3);
  return out;
}

export const nodeKeySize = (prefix: Uint8Array) => prefix.length + 12;

/** Writes the key of node (version, nonce) at `pos` of `out`; returns a view of it. */
export function writeNodeKey(out: Uint8Array, pos: number, prefix: Uint8Array, version: number, nonce: number): Uint8Array {
  out.set(prefix, pos);
  let at = pos + prefix.length;
  at = writeBe32(out, at, Math.floor(version / 0x1_0000_0000));
  at = writeBe32(out, at, version >>> 0);
  at = writeBe32(out, at, nonce >>> 0);
  return out.subarray(pos, at);
}

function writeBe32(out: Uint8Array, at: number, word: number): number {
  out[at] = word >>> 24;
  out[at + 1] = (word >>> 16) & 0xff;
  out[at + 2] = (word >>> 8) & 0xff;
  out[at + 3] = word & 0xff;
  return at + 4;
}

/** One store in a version's record. */
export interface StoreRecord {
  name: string;
  /** Kept out of the app hash (a host's own bookkeeping). */
  host: boolean;
  /** The root node; undefined for an empty tree. */
  root: NodeKey | undefined;
  hash: Uint8Array;
}

/** uvarint count, then per store: bytes name ‖ byte host ‖ varint root version ‖ varint root nonce (0 0: empty) ‖ bytes hash. */
export function encodeRecord(stores: readonly StoreRecord[]): Uint8Array {
  const names = stores.map((s) => encoder.encode(s.name));
  let size = uvarintSize(stores.length);
  stores.forEach((s, i) => {
    size += bytesSize(names[i]) + 1 + varintSize(s.root?.version ?? 0) + varintSize(s.root?.nonce ?? 0) + bytesSize(s.hash);
  });
  const out = new Uint8Array(size);
  let pos = writeUvarint(out, 0, stores.length);
  stores.forEach((s, i) => {
    pos = writeBytes(out, pos, names[i]);
    out[pos++] = s.host ? 1 : 0;
    pos = writeVarint(out, pos, s.root?.version ?? 0);
    pos = writeVarint(out, pos, s.root?.nonce ?? 0);
    pos = writeBytes(out, pos, s.hash);
  });
  return out;
}

export function decodeRecord(bytes: Uint8Array, version: number): StoreRecord[] {
  try {
    const r = new Reader(bytes);
    const n = r.uvarint();
    const out: StoreRecord[] = [];
    for (let i = 0; i < n; i++) {
      const name = decoder.decode(r.bytes());
      const flag = r.byte();
      if (flag !== 0 && flag !== 1) throw new CorruptStoreError(`bad host flag ${flag}`);
      const rootVersion = r.varint();
      const rootNonce = r.varint();
      const hash = r.bytes();
      out.push({ name, host: flag === 1, root: rootVersion === 0 ? undefined : { version: rootVersion, nonce: rootNonce }, hash });
    }
    if (r.pos !== bytes.length) throw new CorruptStoreError("trailing bytes");
    return out;
  } catch (e) {
    throw new CorruptStoreError(`corrupt multistore record of version ${version} (0x${toHex(bytes.subarray(0, 32))}…): ${(e as Error).message}`, { cause: e });
  }
}

/** The orphans of a version, per store: uvarint count, then per store: bytes name ‖ uvarint n ‖ n × (varint version ‖ varint nonce). */
export function encodeOrphans(byStore: ReadonlyMap<string, readonly NodeKey[]>): Uint8Array {
  const parts: Uint8Array[] = [];
  const head = new Uint8Array(10);
  parts.push(head.slice(0, writeUvarint(head, 0, byStore.size)));
  for (const [name, keys] of byStore) {
    const n = encoder.encode(name);
    let size = bytesSize(n) + uvarintSize(keys.length);
    for (const k of keys) size += varintSize(k.version) + varintSize(k.nonce);
    const out = new Uint8Array(size);
    let pos = writeBytes(out, 0, n);
    pos = writeUvarint(out, pos, keys.length);
    for (const k of keys) {
      pos = writeVarint(out, pos, k.version);
      pos = writeVarint(out, pos, k.nonce);
    }
    parts.push(out);
  }
  return concatBytes(...parts);
}

export function decodeOrphans(bytes: Uint8Array, version: number): Map<string, NodeKey[]> {
  try {
    const r = new Reader(bytes);
    const stores = r.uvarint();
    const out = new Map<string, NodeKey[]>();
    for (let i = 0; i < stores; i++) {
      const name = decoder.decode(r.bytes());
      const n = r.uvarint();
      const keys: NodeKey[] = [];
      for (let j = 0; j < n; j++) keys.push({ version: r.varint(), nonce: r.varint() });
      out.set(name, keys);
    }
    if (r.pos !== bytes.length) throw new CorruptStoreError("trailing bytes");
    return out;
  } catch (e) {
    throw new CorruptStoreError(`corrupt orphan list of version ${version}: ${(e as Error).message}`, { cause: e });
  }
}
