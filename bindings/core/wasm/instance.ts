/**
 * One instance of the core and the host side of its boundary: views over linear memory, the KV-store
 * imports, and moving names in and results out. Only numbers cross; nothing is allocated on the wasm
 * side per call once its regions are warm.
 */
import type { KVStore } from "../kv.js";
import { Status, statusError } from "../status.js";
import { readUtf8, writeUtf8 } from "../utf8.js";
import { DONE_PREFIX, H_FIELD, H_KEY_LEN, H_KEY_PTR, H_LEN, H_OUT_LEN, H_REASON, H_WIRE, UNCHANGED } from "../constants.generated.js";
import { type CoreExports, PLAN_KEY } from "./layout.js";

const NO_STORE: KVStore = {
  get: noStore,
  has: noStore,
  set: noStore,
  delete: noStore,
  iterate: noStore,
};

const ONE_BYTE_KEYS: (Uint8Array | undefined)[] = [];

/** The statuses whose error names a key (H_KEY_PTR, H_KEY_LEN). */
const KEYED: ReadonlySet<number> = new Set([Status.CorruptValue, Status.CorruptName, Status.WrongPrefix, Status.CorruptDone, Status.MixedLayout]);

const DONE_START = Uint8Array.of(DONE_PREFIX);
const DONE_END = Uint8Array.of(DONE_PREFIX + 1);

/** Done records per lastChunk call: few enough that their keys die young, many enough that calls are rare. */
const DONE_CHUNK = 256;

/** `CoreInstance.plan` before the first read and while a copy is under way: equal to no store value. */
const NOT_READ: Uint8Array = new Uint8Array(0);

function noStore(): never {
  // An invariant: only the stateless calls run without a session, and none of them reads the store.
  throw new Error("this core instance has no store; use core.session(store)");
}

export class CoreInstance {
  readonly x: CoreExports;
  /** Byte view of linear memory; re-created only when memory grew (the old view then has length 0). */
  u8!: Uint8Array;
  i32!: Int32Array;
  i64!: BigInt64Array;
  u64!: BigUint64Array;
  dv!: DataView;
  /**
   * The stored plan as the core last received it (kvGetPlan in assembly/host.ts): the value copied into
   * its PLAN region, or `undefined` when it was told there is no plan; NOT_READ before the first read and
   * if a copy failed, so it then matches no store value.
   */
  plan: Uint8Array | undefined = NOT_READ;
  /** Reused views of the core's key region, by key length (see key()). */
  private readonly keyViews: (Uint8Array | undefined)[] = [];
  /** The keys of the done records of the chunk under way (scanDone). */
  private readonly chunkKeys: Uint8Array[] = new Array<Uint8Array>(DONE_CHUNK);
  /** Bytes the last kvScan wrote: the next one reserves that much up front. */
  private scanHint = 256;
  /** SCAN's address, and the size it is known to hold (scanRoom). */
  private scanAt = 0;
  private scanCap = 0;
  private header = 0;
  private io = 0;
  private ioCap = 0;

  constructor(
    module: WebAssembly.Module,
    private readonly store: KVStore = NO_STORE,
  ) {
    const instance = new WebAssembly.Instance(module, {
      host: {
        kvGet: (keyPtr: number, keyLen: number, dst: number, cap: number): number => {
          const value = store.get(this.key(keyPtr, keyLen));
          if (value === undefined) return -1;
          if (value.length <= cap) this.copyIn(value, dst);
          return value.length;
        },
        kvGetPlan: (): number => this.readPlan(),
        kvSet: (keyPtr: number, keyLen: number, valPtr: number, valLen: number): void => {
          const u8 = this.view();
          store.set(u8.slice(keyPtr, keyPtr + keyLen), u8.slice(valPtr, valPtr + valLen));
        },
        kvDelete: (keyPtr: number, keyLen: number): void => {
          store.delete(this.view().slice(keyPtr, keyPtr + keyLen));
        },
        kvScan: (prefix: number): number => this.scanInto(store, prefix),
        kvScanDone: (): number => this.scanDone(),
      },
      env: {
        abort: (msg: number, file: number, line: number, column: number): never => {
          // An invariant broken inside the core (an assertion of its own, memory it cannot grow), not a caller's
          // mistake: input is checked and refused with a status before anything could abort.
          throw new Error(`xupgrade core aborted: ${this.asString(msg)} at ${this.asString(file)}:${line}:${column}`);
        },
      },
    });
    this.x = instance.exports as unknown as CoreExports;
    this.refresh();
    this.header = this.x.headerPtr();
    this.io = this.x.ioReserve(1024);
    this.ioCap = this.x.ioCap();
    this.refresh();
  }

  /**
   * A key the core built in its memory, as the store's `get` takes it. Stores must not keep that array
   * (kv.ts), so instead of a new view per lookup, one view per key length is kept and reused while the
   * core builds its keys at the same address (it does: the KEY region); one-byte keys (protocol version)
   * use shared arrays.
   */
  private key(ptr: number, len: number): Uint8Array {
    const u8 = this.view();
    if (len === 1) return (ONE_BYTE_KEYS[u8[ptr]] ??= Uint8Array.of(u8[ptr]));
    let view = this.keyViews[len];
    // A view of the old buffer after memory grew has length 0, so it fails the length test.
    if (view === undefined || view.byteOffset !== ptr || view.length !== len) {
      view = this.keyViews[len] = u8.subarray(ptr, ptr + len);
    }
    return view;
  }

  /** Copies a store value into linear memory; a byte loop beats TypedArray.set's call overhead below ~32 bytes. */
  copyIn(value: Uint8Array, dst: number): void {
    const u8 = this.view();
    const n = value.length;
    if (n > 32) u8.set(value, dst);
    else for (let i = 0; i < n; i++) u8[dst + i] = value[i];
  }

  /**
   * The host side of kvGetPlan, also called by the session before preBlock to hand the result in with
   * the call: copies the stored plan into the core unless it is the value copied last time.
   */
  readPlan(): number {
    return this.handPlan(this.store.get(PLAN_KEY));
  }

  /** The kvGetPlan answer for `value`, the store's current plan value, copying it into PLAN when new. */
  handPlan(value: Uint8Array | undefined): number {
    if (value === this.plan) return value === undefined ? -1 : UNCHANGED;
    this.plan = NOT_READ;
    if (value === undefined) {
      this.plan = undefined;
      return -1;
    }
    this.copyIn(value, this.x.planReserve(value.length));
    this.plan = value;
    return value.length;
  }

  /** The memory view, re-created if memory grew since it was made. */
  view(): Uint8Array {
    if (this.u8.byteLength === 0) this.refresh();
    return this.u8;
  }

  private refresh(): void {
    const buf = this.x.memory.buffer;
    this.u8 = new Uint8Array(buf);
    this.i32 = new Int32Array(buf);
    this.i64 = new BigInt64Array(buf);
    this.u64 = new BigUint64Array(buf);
    this.dv = new DataView(buf);
  }

  // ---- header ----

  hi32(offset: number): number {
    this.view();
    return this.i32[(this.header + offset) >> 2];
  }

  /** The index of a header i32 / i64 in the `i32` / `i64` view (the header does not move). */
  headerIndex32(offset: number): number {
    return (this.header + offset) >> 2;
  }

  headerIndex64(offset: number): number {
    return (this.header + offset) >> 3;
  }

  hi64(offset: number): bigint {
    this.view();
    return this.i64[(this.header + offset) >> 3];
  }

  // ---- IO region ----

  /** Makes IO hold n bytes; returns its address. */
  reserve(n: number): number {
    if (n > this.ioCap) {
      this.io = this.x.ioReserve(n);
      this.ioCap = this.x.ioCap();
    }
    this.view();
    return this.io;
  }

  /** Writes a name (a string the caller checked: well-formed, ../args.ts) at the start of IO; returns its byte length. */
  putName(name: string): number {
    const at = this.reserve(name.length * 3);
    return writeUtf8(name, this.u8, at);
  }

  /** Writes name then info at the start of IO; returns [nameLen, infoLen]. */
  putNameInfo(name: string, info: string): [number, number] {
    const at = this.reserve((name.length + info.length) * 3);
    const nameLen = writeUtf8(name, this.u8, at);
    return [nameLen, writeUtf8(info, this.u8, at + nameLen)];
  }

  putBytes(bytes: Uint8Array): number {
    const at = this.reserve(bytes.length);
    this.u8.set(bytes, at);
    return bytes.length;
  }

  // ---- results ----

  /** The bytes the last call wrote to OUT (a copy). */
  out(): Uint8Array {
    const len = this.hi32(H_OUT_LEN);
    const at = this.x.outPtr();
    return this.view().slice(at, at + len);
  }

  str(ptrOffset: number, lenOffset: number): string {
    const ptr = this.hi32(ptrOffset) >>> 0;
    return readUtf8(this.u8, ptr, ptr + this.hi32(lenOffset));
  }

  /** The typed error for a failing status, with the facts the core left in the header. */
  error(status: number, name?: string): Error {
    const keyPtr = this.hi32(H_KEY_PTR) >>> 0;
    return statusError(status, {
      reason: this.hi32(H_REASON),
      field: this.hi32(H_FIELD),
      wireType: this.hi32(H_WIRE),
      length: this.hi32(H_LEN),
      key: KEYED.has(status) ? this.u8.slice(keyPtr, keyPtr + this.hi32(H_KEY_LEN)) : undefined,
      name,
    });
  }

  check(status: number, name?: string): void {
    if (status !== Status.Ok) throw this.error(status, name);
  }

  // ---- host side of kvScan ----

  /**
   * Writes the entries straight into SCAN while iterating (no intermediate array: at 100,000 entries
   * holding them all first cost more than the copy), growing the region by doubling. The first guess is
   * the size the last scan needed.
   */
  private scanInto(store: KVStore, prefix: number): number {
    let cap = this.scanHint;
    let base = this.scanRoom(cap);
    let u8 = this.u8;
    let dv = this.dv;
    let used = 0;
    let count = 0;
    for (const [key, value] of store.iterate(Uint8Array.of(prefix), Uint8Array.of(prefix + 1))) {
      const need = 8 + key.length + value.length;
      if (used + need > cap) {
        cap = Math.max(cap * 2, used + need);
        base = this.scanRoom(cap); // keeps what was written; may move it and grow memory
        u8 = this.u8;
        dv = this.dv;
      }
      // Inline byte loops: keys and values are a few bytes, and a call per copy doubled the cost.
      let at = base + used;
      const keyLen = key.length;
      dv.setUint32(at, keyLen, true);
      at += 4;
      if (keyLen > 32) u8.set(key, at);
      else for (let i = 0; i < keyLen; i++) u8[at + i] = key[i];
      at += keyLen;
      const valueLen = value.length;
      dv.setUint32(at, valueLen, true);
      at += 4;
      if (valueLen > 32) u8.set(value, at);
      else for (let i = 0; i < valueLen; i++) u8[at + i] = value[i];
      used += need;
      count++;
    }
    this.scanHint = Math.max(used, 256);
    return count;
  }

  // ---- the done scan (kvScanDone; also called by the session's lastCompleted) ----

  /**
   * Feeds the done range to the core's lastChunk (assembly/keeper.ts): per record its value's length and,
   * for an 8-byte value, its two big-endian words, 12 bytes a slot. Only the chunk's keys are kept, so
   * that the one the core asks for can be handed over at the end (its length returned for lastKey; -1
   * for an empty range); no other key is copied.
   */
  scanDone(): number {
    const keys = this.chunkKeys;
    const base = this.scanRoom(DONE_CHUNK * 12) >> 2;
    const i32 = this.i32;
    let n = 0;
    let at = base;
    let first = 1;
    let winner: Uint8Array | undefined;
    let corrupt: Uint8Array | undefined;
    for (const [key, value] of this.store.iterate(DONE_START, DONE_END)) {
      const len = value.length;
      i32[at] = len;
      if (len === 8) {
        i32[at + 1] = (value[0] << 24) | (value[1] << 16) | (value[2] << 8) | value[3];
        i32[at + 2] = (value[4] << 24) | (value[5] << 16) | (value[6] << 8) | value[7];
      }
      at += 3;
      keys[n++] = key;
      if (n === DONE_CHUNK) {
        const r = this.x.lastChunk(n, first);
        if (r >= 0) winner = keys[r];
        else if (r < -1) {
          corrupt = keys[-2 - r];
          break;
        }
        first = n = 0;
        at = base;
      }
    }
    if (corrupt === undefined && n > 0) {
      const r = this.x.lastChunk(n, first);
      if (r >= 0) winner = keys[r];
      else if (r < -1) corrupt = keys[-2 - r];
    }
    const key = corrupt ?? winner;
    if (key === undefined) return -1;
    const to = this.scanRoom(key.length);
    const u8 = this.u8;
    for (let j = 0; j < key.length; j++) u8[to + j] = key[j];
    return key.length;
  }

  /**
   * Makes SCAN hold n bytes, keeping its contents; returns its address (the views are current after).
   * Only the host reserves SCAN, so its address is known here and the core is called only to grow it.
   */
  scanRoom(n: number): number {
    if (n > this.scanCap) {
      this.scanAt = this.x.scanReserve(n);
      this.scanCap = n;
    }
    this.view();
    return this.scanAt;
  }

  /** An AssemblyScript string (UTF-16, byte length stored before it), for abort messages. */
  private asString(ptr: number): string {
    if (!ptr) return "";
    const u8 = this.view();
    const len = this.dv.getUint32(ptr - 4, true);
    return new TextDecoder("utf-16le").decode(u8.subarray(ptr, ptr + len));
  }
}
