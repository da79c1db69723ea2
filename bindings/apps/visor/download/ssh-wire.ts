/** The SSH wire encoding (RFC 4251 §5) the keys and signatures use: `uint32` lengths, then the bytes. */
import { SshEncodingError } from "../errors.js";

export class SshReader {
  private pos = 0;

  constructor(
    private readonly buf: Uint8Array,
    /** What is being read, for the error messages. */
    private readonly what: string,
  ) {}

  /** `n` raw bytes. */
  raw(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new SshEncodingError(`the ${this.what} is truncated`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  u32(): number {
    const b = this.raw(4);
    return ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  }

  /** A `string`: a uint32 length, then that many bytes. */
  bytes(): Uint8Array {
    return this.raw(this.u32());
  }

  text(): string {
    return Buffer.from(this.bytes()).toString("utf8");
  }

  /** Nothing may follow. */
  end(): void {
    if (this.pos !== this.buf.length) throw new SshEncodingError(`the ${this.what} has ${this.buf.length - this.pos} trailing bytes`);
  }
}

/** A `string` of the SSH wire encoding. */
export function sshString(b: Uint8Array | string): Uint8Array {
  const bytes = typeof b === "string" ? new TextEncoder().encode(b) : b;
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length);
  out.set(bytes, 4);
  return out;
}
