/**
 * One socket from CometBFT. Bytes are framed and decoded as they arrive; each request is queued on the
 * shared application queue at once, and responses are written strictly in request order (CometBFT matches
 * them FIFO per connection). Responses are written as soon as they are ready rather than held until a
 * Flush, so answering Flush only means keeping its place in that order.
 *
 * Garbage (a bad length prefix, a frame that does not decode, a request with no known method, a frame cut
 * off by the end of the stream) closes this connection only, with a logged reason; it never reaches the
 * application.
 */
import type { Socket } from "node:net";
import type { AbciApplication, AbciConsensusHalt } from "./application.js";
import { decodeRequest, type DecodedRequest } from "./decode.js";
import { dispatch, FLUSH_FRAME, type Outcome } from "./dispatch.js";
import { FrameReader } from "./framing.js";
import type { LogFields, Logger } from "../base/logger.js";
import { METHODS, type ConnectionRole, type MethodName } from "./methods.js";
import { DROPPED, type AppQueue } from "./queue.js";

/** What a connection needs from its server. */
export interface ConnectionHost {
  readonly app: AbciApplication;
  readonly queue: AppQueue;
  readonly logger: Required<Logger>;
  readonly maxFrameBytes: number;
  readonly closeGraceMs: number;
  /** The app failed on `method`; its exception frame has been written to `conn` (if still open). */
  appFailed(error: Error, method: MethodName, conn: Connection): void;
  /** The app stopped consensus in FinalizeBlock; the refused block result has been written to `conn`. */
  consensusHalted(halt: AbciConsensusHalt, conn: Connection): void;
}

/** Stop reading while this many responses are outstanding (Go's server buffers 1000 responses per connection). */
const MAX_PENDING = 1000;

export class Connection {
  /** Which of CometBFT's connections this is, known from the first method only that connection sends. */
  role: ConnectionRole | undefined;
  /** Resolves once the socket is fully closed. */
  readonly closed: Promise<void>;

  private readonly reader: FrameReader;
  /** Writes of responses, in request order. */
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private accepting = true;
  private paused = false;
  /** The peer has shut down its sending side. */
  private peerDone = false;
  /** A response was dropped (the server is stopping): nothing more may be written. */
  private gap = false;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
  ) {
    this.reader = new FrameReader(host.maxFrameBytes);
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        clearTimeout(this.graceTimer);
        this.accepting = false;
        resolve();
      }),
    );
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("end", () => this.peerEnded());
    socket.on("drain", () => this.updateFlow());
    socket.on("error", (err) => {
      // ECONNRESET/EPIPE when CometBFT goes away; 'close' follows.
      this.host.logger.debug("ABCI connection error", this.fields({ err: err.message }));
      socket.destroy();
    });
  }

  /** Stops taking requests (what arrives later is ignored) but keeps the socket open. */
  quiesce(): void {
    this.accepting = false;
  }

  /** Ends the connection after the responses already written; destroys it if the peer has not closed within `graceMs`. */
  end(graceMs: number): void {
    this.accepting = false;
    if (this.socket.destroyed || this.graceTimer !== undefined) return;
    this.socket.end();
    this.graceTimer = setTimeout(() => this.socket.destroy(), graceMs);
    this.graceTimer.unref();
  }

  private receive(chunk: Uint8Array): void {
    if (!this.accepting) return;
    this.reader.push(chunk);
    this.drain();
  }

  /** Takes the complete frames buffered so far, unless paused; finishes up once the peer has ended. */
  private drain(): void {
    while (this.accepting && !this.paused) {
      let request: DecodedRequest;
      try {
        const frame = this.reader.next();
        if (frame === undefined) break;
        request = decodeRequest(frame);
      } catch (e) {
        this.reject((e as Error).message);
        return;
      }
      this.handle(request);
    }
    if (this.peerDone && this.accepting && !this.paused) this.finish();
  }

  private handle(decoded: DecodedRequest): void {
    const { method } = decoded;
    const role = METHODS[method].role;
    if (role !== undefined && this.role === undefined) this.role = role;
    this.host.logger.debug("ABCI request", this.fields({ method }));

    const { queue, app } = this.host;
    const result: Promise<Outcome | typeof DROPPED> =
      method === "flush"
        ? Promise.resolve({ ok: true, frame: FLUSH_FRAME })
        : queue.run(async () => {
            const outcome = await dispatch(app, decoded);
            // Stop the queue before this task settles, so that nothing queued behind it starts.
            if (!outcome.ok) queue.stop();
            return outcome;
          });
    this.pending++;
    this.updateFlow();
    this.chain = this.chain
      .then(async () => {
        const outcome = await result;
        this.pending--;
        if (outcome === DROPPED) {
          // A request left unanswered: anything written after it would be matched to the wrong request.
          this.gap = true;
        } else {
          if (!this.gap && !this.socket.destroyed && !this.socket.writableEnded) this.socket.write(outcome.frame);
          if (!outcome.ok) this.host.appFailed(outcome.error, method, this);
          else if (outcome.consensusHalt) this.host.consensusHalted(outcome.consensusHalt, this);
        }
        this.updateFlow();
      })
      .catch(() => {
        // Only reachable if something we call back into throws (a logger); never leave a rejection unhandled.
        this.gap = true;
        this.socket.destroy();
      });
  }

  private peerEnded(): void {
    this.peerDone = true;
    this.drain();
  }

  /** The peer finished writing and every frame it sent is taken: answer, then close (unless it stopped mid-frame). */
  private finish(): void {
    const partial = this.reader.partialBytes;
    if (partial > 0) {
      const announced = this.reader.announcedLength;
      const of = announced === undefined ? "inside the length prefix" : `of a ${announced}-byte message`;
      this.reject(`the stream ended in the middle of a frame (${partial} bytes ${of})`);
      return;
    }
    this.host.logger.debug("ABCI connection closed by the peer", this.fields());
    this.accepting = false;
    void this.chain.then(() => this.end(this.host.closeGraceMs));
  }

  private reject(reason: string): void {
    this.host.logger.warn(`closing the ABCI connection: ${reason}`, this.fields());
    this.accepting = false;
    this.socket.destroy();
  }

  /**
   * Back-pressure: stop taking requests while too many answers are outstanding or the peer is not reading
   * them; frames already received wait in the reader. Resumes at half the limit, to avoid flapping.
   */
  private updateFlow(): void {
    const tooMany = this.paused ? this.pending > MAX_PENDING / 2 : this.pending >= MAX_PENDING;
    const shouldPause = this.accepting && (tooMany || this.socket.writableNeedDrain);
    if (shouldPause === this.paused) return;
    this.paused = shouldPause;
    if (shouldPause) {
      this.socket.pause();
    } else {
      this.socket.resume();
      this.drain();
    }
  }

  private fields(extra: LogFields = {}): LogFields {
    return { conn: this.id, ...(this.role ? { role: this.role } : {}), ...extra };
  }
}
