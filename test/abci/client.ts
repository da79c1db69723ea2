/** A bare ABCI socket client for the server tests: raw bytes out, decoded Responses in, over a real socket. */
import { connect, type Socket } from "node:net";
import { Request, Response } from "cosmjs-types/tendermint/abci/types";
import type { DeepPartial } from "cosmjs-types/helpers";
import { encodeFrame, FrameReader, parseAddress } from "../../bindings/abci/index.js";

export class TestClient {
  readonly closed: Promise<void>;
  private readonly reader = new FrameReader();
  private readonly received: Response[] = [];
  private waiters: Array<() => void> = [];
  private isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.reader.push(chunk);
      for (let f = this.reader.next(); f !== undefined; f = this.reader.next()) this.received.push(Response.decode(f));
      this.wake();
    });
    socket.on("error", () => {}); // resets are expected in several tests; 'close' follows
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        this.isClosed = true;
        this.wake();
        resolve();
      }),
    );
  }

  static connect(address: string): Promise<TestClient> {
    const where = parseAddress(address);
    return new Promise((resolve, reject) => {
      const socket = where.kind === "unix" ? connect({ path: where.path }) : connect({ host: where.host, port: where.port });
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new TestClient(socket));
      });
    });
  }

  /** Encodes and frames requests (all in one write). */
  static frames(...requests: DeepPartial<Request>[]): Buffer {
    return Buffer.concat(requests.map((r) => encodeFrame(Request.encode(Request.fromPartial(r as never)).finish())));
  }

  send(...requests: DeepPartial<Request>[]): void {
    this.socket.write(TestClient.frames(...requests));
  }

  writeRaw(bytes: Uint8Array | number[]): void {
    this.socket.write(Uint8Array.from(bytes));
  }

  /** The next `n` responses, in arrival order; rejects if the connection closes first or after `timeoutMs`. */
  async responses(n: number, timeoutMs = 10_000): Promise<Response[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (this.isClosed) throw new Error(`connection closed after ${this.received.length} of ${n} responses`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${this.received.length} of ${n} responses`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.received.splice(0, n);
  }

  /** Everything received so far (not consumed). */
  get pending(): readonly Response[] {
    return this.received;
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** Which oneof a Response carries. */
export function kindOf(r: Response): string {
  const keys = Object.entries(r)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  return keys.join("+");
}

/** Resolves when `p` does within `ms`, rejects otherwise. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
