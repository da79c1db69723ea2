/**
 * Turns one frame into one method call, or refuses it. cosmjs-types' decoders are lenient (they do not
 * check wire types and let a nested message read past its own end), so the top level of `Request` is
 * walked here first: every field must be well formed, and the method's payload is decoded from exactly
 * its own bytes. As in any protobuf decoder, when several oneof members appear the last one wins.
 */
import { METHODS, METHOD_BY_FIELD, type MethodName, type RequestOf } from "./methods.js";

/** A frame that is not a usable Request; the connection that sent it is closed. */
export class RequestError extends Error {
  override readonly name = "RequestError";
}

export type DecodedRequest = { [M in MethodName]: { method: M; request: RequestOf<M> } }[MethodName];

export function decodeRequest(bytes: Uint8Array): DecodedRequest {
  const wire = new WireWalker(bytes);
  let chosen: { method: MethodName; payload: Uint8Array } | undefined;
  const unknown = new Set<number>();
  while (!wire.done) {
    const { field, wireType } = wire.tag();
    const method = METHOD_BY_FIELD.get(field);
    if (method !== undefined) {
      if (wireType !== 2) throw new RequestError(`field ${field} (${method}) has wire type ${wireType}, not a message`);
      chosen = { method, payload: wire.lengthDelimited() };
    } else {
      unknown.add(field);
      wire.skip(wireType);
    }
  }
  if (!chosen) {
    // Fields 4, 7, 9 and 10 were SetOption, BeginBlock, DeliverTx and EndBlock before ABCI++.
    const seen = unknown.size > 0 ? ` (fields present: ${[...unknown].join(", ")})` : "";
    throw new RequestError(`request has no known method set${seen}`);
  }
  try {
    const request = METHODS[chosen.method].decodeRequest(chosen.payload);
    return { method: chosen.method, request } as DecodedRequest;
  } catch (e) {
    throw new RequestError(`cannot decode the ${chosen.method} request: ${(e as Error).message}`);
  }
}

/** A bounds-checked reader of protobuf fields, enough to walk one message level. */
class WireWalker {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  tag(): { field: number; wireType: number } {
    const key = this.varint();
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (field < 1 || field > 0x1fffffff) throw new RequestError(`invalid field number ${field}`);
    return { field, wireType };
  }

  lengthDelimited(): Uint8Array {
    const length = this.varint();
    if (length > this.buf.length - this.pos) throw new RequestError(`a field length of ${length} runs past the end of the message`);
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.advance(8);
        return;
      case 2:
        this.lengthDelimited();
        return;
      case 5:
        this.advance(4);
        return;
      default:
        // 3/4 are proto2 groups, which no ABCI message has; 6/7 do not exist.
        throw new RequestError(`unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (n > this.buf.length - this.pos) throw new RequestError("the message ends inside a field");
    this.pos += n;
  }

  /** An unsigned varint of at most 10 bytes (exact only up to 2^53, which is all that lengths and tags need). */
  private varint(): number {
    let value = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new RequestError("the message ends inside a varint");
      const b = this.buf[this.pos++];
      value += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) return value;
    }
    throw new RequestError("a varint is longer than 10 bytes");
  }
}
