/**
 * The protobuf wire walk shared by the readiness codecs (proto/xupgrade/upgrade/v1/readiness.proto): every
 * field of a message handed to a visitor by number, with its wire type checked; an unknown field, a wrong
 * wire type or a truncated message is a ReadinessError. Writing goes through the core's ProtoWriter, driven so
 * that a default value (0, "", false, empty bytes) is never written: the one canonical encoding of proto3.
 */
import { ProtoReader, ProtoWriter, WireType } from "../../core/proto-wire.js";
import { ReadinessError, type ReadinessErrorKind } from "./errors.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** One field as the visitor sees it: readers for each scalar type the messages use. */
export interface Field {
  readonly no: number;
  varintU32(): number;
  int64(): bigint;
  bool(): boolean;
  bytes(): Uint8Array;
  /** A string that must be valid UTF-8. */
  string(): string;
}

/**
 * Walks `bytes` as one message. `fields` maps each known field number to its wire type; `visit` reads the
 * value. Errors carry `kind` ("malformed" for an extension from the network, "corrupt" for a stored value).
 */
export function walk(bytes: Uint8Array, what: string, kind: ReadinessErrorKind, fields: Readonly<Record<number, WireType>>, visit: (f: Field) => void): void {
  const fail = (detail: string) => new ReadinessError(kind, `${what}: ${detail}`);
  const r = new ProtoReader(bytes);
  try {
    while (!r.done) {
      const no = r.tag();
      const want = fields[no];
      if (want === undefined) throw fail(`unknown field ${no}`);
      if (r.wire !== want) throw fail(`field ${no} has wire type ${r.wire}, expected ${want}`);
      visit({
        no,
        varintU32: () => r.uint32(),
        int64: () => r.int64(),
        bool: () => r.bool(),
        bytes: () => r.bytes(),
        string: () => {
          const b = r.bytes();
          try {
            return strictUtf8.decode(b);
          } catch {
            throw fail(`field ${no} is not valid UTF-8`);
          }
        },
      });
    }
  } catch (e) {
    if (e instanceof ReadinessError) throw e;
    throw fail((e as Error).message);
  }
}

/** Writes the non-default fields of a message; each helper skips its default. */
export class Writer {
  private readonly w = new ProtoWriter();
  string(no: number, v: string): this {
    if (v !== "") this.w.tag(no, LEN).string(v);
    return this;
  }
  bytes(no: number, v: Uint8Array): this {
    if (v.length > 0) this.w.tag(no, LEN).bytes(v);
    return this;
  }
  int64(no: number, v: bigint): this {
    if (v !== 0n) this.w.tag(no, V).varint(v);
    return this;
  }
  uint32(no: number, v: number): this {
    if (v !== 0) this.w.tag(no, V).varint(v);
    return this;
  }
  bool(no: number, v: boolean): this {
    if (v) this.w.tag(no, V).varint(1);
    return this;
  }
  /** A nested message, or one element of a repeated bytes field: always written when given (even when empty). */
  message(no: number, v: Uint8Array | undefined): this {
    if (v !== undefined) this.w.tag(no, LEN).bytes(v);
    return this;
  }
  finish(): Uint8Array {
    return this.w.finish();
  }
}

export const V = WireType.Varint;
export const LEN = WireType.Len;
