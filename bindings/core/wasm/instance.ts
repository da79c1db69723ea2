/**
 * One instance of the core and the host side of its boundary: views over linear memory, the KV-store
 * imports, and moving names in and results out. Only numbers cross; nothing is allocated on the wasm
 * side per call once its regions are warm.
 */
import type { KVStore } from "../../store/kv.js";
import { Status, statusError } from "../status.js";
import { readUtf8, writeUtf8 } from "../utf8.js";
import { type CoreExports, H_FIELD, H_KEY_LEN, H_KEY_PTR, H_LEN, H_OUT_LEN, H_REASON, H_WIRE } from "./layout.js";

const NO_STORE: KVStore = {
  get: noStore,
  has: noStore,
  set: noStore,
  delete: noStore,
  iterate: noStore,
};

function noStore(): never {
  throw new Error("this core instance has no store; use core.session(store)");
}

export class CoreInstance {
  readonly x: CoreExports;
  /** Byte view of linear memory; re-created only when memory grew (the old view then has length 0). */
  u8!: Uint8Array;
  i32!: Int32Array;
  i64!: BigInt64Array;
  dv!: DataView;
  private header = 0;
  private io = 0;
  private ioCap = 0;

  constructor(module: WebAssembly.Module, store: KVStore = NO_STORE) {
    const instance = new WebAssembly.Instance(module, {
      host: {
        kvGet: (keyPtr: number, keyLen: number, dst: number, cap: number): number => {
          const value = store.get(this.view().subarray(keyPtr, keyPtr + keyLen));
          if (value === undefined) return -1;
          if (value.length <= cap) this.u8.set(value, dst);
          return value.length;
        },
        kvSet: (keyPtr: number, keyLen: number, valPtr: number, valLen: number): void => {
          const u8 = this.view();
          store.set(u8.slice(keyPtr, keyPtr + keyLen), u8.slice(valPtr, valPtr + valLen));
        },
        kvDelete: (keyPtr: number, keyLen: number): void => {
          store.delete(this.view().slice(keyPtr, keyPtr + keyLen));
        },
        kvScan: (prefix: number): number => this.scanInto(store, prefix),
      },
      env: {
        abort: (msg: number, file: number, line: number, column: number): never => {
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
    this.dv = new DataView(buf);
  }

  // ---- header ----

  hi32(offset: number): number {
    this.view();
    return this.i32[(this.header + offset) >> 2];
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

  /** Writes a name (well-formed string) at the start of IO; returns its byte length. */
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
      key: status === Status.CorruptValue || status === Status.CorruptName || status === Status.WrongPrefix
        ? this.u8.slice(keyPtr, keyPtr + this.hi32(H_KEY_LEN))
        : undefined,
      name,
    });
  }

  check(status: number, name?: string): void {
    if (status !== Status.Ok) throw this.error(status, name);
  }

  // ---- host side of kvScan ----

  private scanInto(store: KVStore, prefix: number): number {
    const start = Uint8Array.of(prefix);
    const end = Uint8Array.of(prefix + 1);
    const entries: [Uint8Array, Uint8Array][] = [];
    let total = 0;
    for (const entry of store.iterate(start, end)) {
      entries.push(entry);
      total += 8 + entry[0].length + entry[1].length;
    }
    let at = this.x.scanReserve(total);
    const u8 = this.view();
    const dv = this.dv;
    for (const [key, value] of entries) {
      dv.setUint32(at, key.length, true);
      u8.set(key, at + 4);
      at += 4 + key.length;
      dv.setUint32(at, value.length, true);
      u8.set(value, at + 4);
      at += 4 + value.length;
    }
    return entries.length;
  }

  /** An AssemblyScript string (UTF-16, byte length stored before it), for abort messages. */
  private asString(ptr: number): string {
    if (!ptr) return "";
    const u8 = this.view();
    const len = this.dv.getUint32(ptr - 4, true);
    return new TextDecoder("utf-16le").decode(u8.subarray(ptr, ptr + len));
  }
}
