/**
 * ABCI socket framing as CometBFT v0.37+ writes it: every protobuf message is preceded by its length as an
 * unsigned varint (Go's `binary.PutUvarint`). v0.34 used a signed zigzag varint instead; the two are not
 * compatible, which is why the old `abci` npm package cannot talk to v0.38.
 */

/**
 * Default largest frame we accept. CometBFT's own limit is MaxInt32; its largest block is 100 MB
 * (MaxBlockSizeBytes), and a FinalizeBlock carrying such a block needs a little more than that, so
 * 128 MiB never refuses a legal request while bounding what a bad peer can make us buffer.
 */
export const DEFAULT_MAX_FRAME_BYTES = 128 * 1024 * 1024;

/** Go's binary.MaxVarintLen64: a uint64 never needs more varint bytes than this. */
const MAX_VARINT_BYTES = 10;

/** A byte stream that is not a sequence of well-formed frames; the connection cannot be resynchronised. */
export class FrameError extends Error {
  override readonly name = "FrameError";
}

/** The unsigned varint of a non-negative safe integer. */
export function encodeUvarint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`cannot encode ${n} as an unsigned varint`);
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Uint8Array.from(out);
}

/** One frame: the uvarint length of `message`, then `message`. */
export function encodeFrame(message: Uint8Array): Uint8Array {
  const prefix = encodeUvarint(message.length);
  const frame = new Uint8Array(prefix.length + message.length);
  frame.set(prefix, 0);
  frame.set(message, prefix.length);
  return frame;
}

/**
 * Reassembles frames from the chunks a socket delivers, however the stream was cut: feed chunks with
 * `push`, take complete messages with `next` until it returns `undefined`. A malformed length makes `next`
 * throw a FrameError, now and on every later call. Memory for a message is taken only as its bytes
 * arrive, so a huge length prefix alone costs nothing.
 */
export class FrameReader {
  private readonly chunks: Uint8Array[] = [];
  /** Read position inside chunks[0]. */
  private offset = 0;
  /** Unread bytes in `chunks`. */
  private buffered = 0;
  /** Varint state of the length being read; `length` is set once it is complete. */
  private prefixBytes = 0;
  private prefixValue = 0;
  private length: number | undefined;
  private failure: FrameError | undefined;

  constructor(readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES) {
    if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes < 0) throw new RangeError(`bad maxFrameBytes ${maxFrameBytes}`);
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** Bytes of a frame that has started but is not complete (0 between frames): a stream ending here is truncated. */
  get partialBytes(): number {
    return this.prefixBytes + this.buffered;
  }

  /** The length announced by the frame being read, once its prefix is complete. */
  get announcedLength(): number | undefined {
    return this.length;
  }

  next(): Uint8Array | undefined {
    if (this.failure) throw this.failure;
    if (this.length === undefined && !this.readLength()) return undefined;
    const length = this.length as number;
    if (this.buffered < length) return undefined;
    const message = this.take(length);
    this.length = undefined;
    this.prefixBytes = 0;
    this.prefixValue = 0;
    return message;
  }

  /** Consumes prefix bytes; true once the length is known. Mirrors Go's binary.ReadUvarint errors. */
  private readLength(): boolean {
    while (this.buffered > 0) {
      const b = this.takeByte();
      const i = this.prefixBytes++;
      if (b < 0x80) {
        if (i === MAX_VARINT_BYTES - 1 && b > 1) throw this.fail("the length prefix overflows a 64-bit integer");
        // Numbers are exact up to 2^53; anything larger is far over any limit, so precision does not matter there.
        const length = this.prefixValue + b * 2 ** (7 * i);
        if (length > this.maxFrameBytes) throw this.fail(`frame length ${length} exceeds the maximum of ${this.maxFrameBytes} bytes`);
        this.length = length;
        return true;
      }
      if (i === MAX_VARINT_BYTES - 1) throw this.fail(`the length prefix is longer than ${MAX_VARINT_BYTES} bytes`);
      this.prefixValue += (b & 0x7f) * 2 ** (7 * i);
    }
    return false;
  }

  private fail(reason: string): FrameError {
    this.failure = new FrameError(reason);
    // Nothing after a bad prefix can be trusted; drop what is buffered.
    this.chunks.length = 0;
    this.buffered = 0;
    return this.failure;
  }

  private takeByte(): number {
    const head = this.chunks[0];
    const b = head[this.offset++];
    this.consumed(1);
    return b;
  }

  private take(n: number): Uint8Array {
    const head = this.chunks[0];
    if (n === 0) return new Uint8Array(0);
    if (head.length - this.offset >= n) {
      // Common case: the whole message is inside one chunk; no copy (the protobuf decoder copies anyway).
      const out = head.subarray(this.offset, this.offset + n);
      this.offset += n;
      this.consumed(n);
      return out;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0];
      const count = Math.min(chunk.length - this.offset, n - filled);
      out.set(chunk.subarray(this.offset, this.offset + count), filled);
      filled += count;
      this.offset += count;
      this.consumed(count);
    }
    return out;
  }

  /** Bookkeeping after reading `n` bytes: drop exhausted chunks. */
  private consumed(n: number): void {
    this.buffered -= n;
    while (this.chunks.length > 0 && this.offset >= this.chunks[0].length) {
      this.chunks.shift();
      this.offset = 0;
    }
  }
}
