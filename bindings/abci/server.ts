/**
 * The ABCI++ socket server CometBFT v0.38 connects to through `proxy_app`. It accepts any number of
 * connections (CometBFT opens four), runs every request through one application queue, and stops as a
 * whole when the application fails: the failing request is answered with `Response.exception`, every
 * connection is closed, and `stopped` resolves with the reason. CometBFT, seeing the exception or the
 * closed sockets, SIGTERMs itself.
 *
 * An AbciConsensusHalt from FinalizeBlock is not a failure: CometBFT's consensus stops at that block while
 * the server, its connections and the queue go on (Query, CheckTx and Info are answered as before), and
 * `consensusHalt` resolves.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { parseAddress, formatAddress, removeStaleSocket, type ListenAddress } from "./address.js";
import { AbciHalt, type AbciApplication, type AbciConsensusHalt } from "./application.js";
import { Connection, type ConnectionHost } from "./connection.js";
import { DEFAULT_MAX_FRAME_BYTES } from "./framing.js";
import type { Logger } from "../base/logger.js";
import { completeLogger } from "./logger.js";
import type { MethodName } from "./methods.js";
import { AppQueue } from "./queue.js";

export interface AbciServerOptions {
  /** `tcp://host:port` (port 0 picks a free one), `unix:///path.sock`, `host:port`, or a socket path. */
  address: string;
  app: AbciApplication;
  logger?: Logger;
  /** Largest request accepted (default DEFAULT_MAX_FRAME_BYTES); a longer length prefix closes that connection. */
  maxFrameBytes?: number;
  /** How long a closing connection waits for the peer before it is destroyed (default 2000 ms). */
  closeGraceMs?: number;
}

/**
 * Why the server stopped: `closed` (close() was called), `halt` (the app threw an AbciHalt), `app-error`
 * (any other error escaped an app method, or the app gave an answer CometBFT would panic on), or
 * `listen-error` (the listening socket failed).
 */
export type AbciStopReason = "closed" | "halt" | "app-error" | "listen-error";

export interface AbciStopped {
  reason: AbciStopReason;
  /** The error, for every reason but `closed`. */
  error?: Error;
  /** The method that failed, for `halt` and `app-error`. */
  method?: MethodName;
}

export interface AbciServer {
  /** Where it listens, in CometBFT's notation (the real port when 0 was asked for): pass it as `--proxy_app`. */
  readonly address: string;
  /** Resolves once the server has stopped and every connection is closed; never rejects. */
  readonly stopped: Promise<AbciStopped>;
  /** Resolves when the app stops CometBFT's consensus (an AbciConsensusHalt from FinalizeBlock, answered); never rejects. */
  readonly consensusHalt: Promise<AbciConsensusHalt>;
  /** Connections currently open. */
  readonly connectionCount: number;
  /** Stops listening, ends every connection, lets a running app call finish; resolves with `stopped`'s value. */
  close(): Promise<AbciStopped>;
}

export async function startAbciServer(options: AbciServerOptions): Promise<AbciServer> {
  const where = parseAddress(options.address);
  if (where.kind === "unix") await removeStaleSocket(where.path);
  const server = new SocketServer(options, where);
  await server.listen();
  return server;
}

class SocketServer implements AbciServer, ConnectionHost {
  readonly app: AbciApplication;
  readonly queue = new AppQueue();
  readonly logger: Required<Logger>;
  readonly maxFrameBytes: number;
  readonly closeGraceMs: number;
  readonly stopped: Promise<AbciStopped>;
  readonly consensusHalt: Promise<AbciConsensusHalt>;
  address: string;

  private readonly net: Server;
  private readonly connections = new Set<Connection>();
  private nextId = 0;
  private stopping: Promise<AbciStopped> | undefined;
  private resolveStopped!: (s: AbciStopped) => void;
  private resolveConsensusHalt!: (h: AbciConsensusHalt) => void;

  constructor(
    options: AbciServerOptions,
    private readonly where: ListenAddress,
  ) {
    this.app = options.app;
    this.logger = completeLogger(options.logger);
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.closeGraceMs = options.closeGraceMs ?? 2000;
    this.address = formatAddress(where);
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    this.consensusHalt = new Promise((resolve) => (this.resolveConsensusHalt = resolve));
    // Half-open sockets: a peer that shuts down its sending side still gets the answers to what it sent.
    this.net = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.net.once("error", reject);
      const onListening = () => {
        this.net.off("error", reject);
        this.net.on("error", (err) => void this.stop("listen-error", err));
        if (this.where.kind === "tcp") this.address = formatAddress({ ...this.where, port: (this.net.address() as AddressInfo).port });
        this.logger.info("ABCI server listening", { address: this.address });
        resolve();
      };
      if (this.where.kind === "unix") this.net.listen({ path: this.where.path }, onListening);
      else this.net.listen({ host: this.where.host, port: this.where.port }, onListening);
    });
  }

  close(): Promise<AbciStopped> {
    return this.stop("closed");
  }

  appFailed(error: Error, method: MethodName, conn: Connection): void {
    const reason = error instanceof AbciHalt ? "halt" : "app-error";
    this.logger.error(`ABCI application ${reason === "halt" ? "halted" : "failed"} in ${method}; answered with an exception and closing every connection`, {
      method,
      err: error.message,
    });
    void this.stop(reason, error, method, conn);
  }

  consensusHalted(halt: AbciConsensusHalt, conn: Connection): void {
    this.logger.error(
      "ABCI application halted consensus in finalizeBlock; answered a block result CometBFT refuses, so its consensus stops there while the connections stay open",
      {
        conn: conn.id,
        err: halt.message,
      },
    );
    this.resolveConsensusHalt(halt);
  }

  private accept(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const conn = new Connection(this.nextId++, socket, this);
    this.connections.add(conn);
    this.logger.debug("ABCI connection accepted", { conn: conn.id });
    void conn.closed.then(() => this.connections.delete(conn));
  }

  /**
   * Stops everything. After an app failure the failing connection is closed first and the others only once
   * CometBFT has dropped it (or after the grace period): CometBFT logs the error of whichever connection
   * fails first, and this way that is the exception with the app's message, not an EOF on another one.
   */
  private stop(reason: AbciStopReason, error?: Error, method?: MethodName, failing?: Connection): Promise<AbciStopped> {
    if (this.stopping) return this.stopping;
    this.queue.stop();
    const listenerClosed = new Promise<void>((resolve) => this.net.close(() => resolve()));
    const open = [...this.connections];
    for (const conn of open) conn.quiesce();
    this.stopping = (async () => {
      if (failing) {
        failing.end(this.closeGraceMs);
        await Promise.race([failing.closed, new Promise((r) => setTimeout(r, this.closeGraceMs).unref())]);
      }
      for (const conn of open) conn.end(this.closeGraceMs);
      await Promise.all(open.map((c) => c.closed));
      await listenerClosed;
      await this.queue.idle(); // an app call still running finishes before we report
      // (Node removes a unix socket file itself when the listener closes.)
      const result: AbciStopped = { reason, ...(error ? { error } : {}), ...(method ? { method } : {}) };
      this.logger.info("ABCI server stopped", { reason });
      this.resolveStopped(result);
      return result;
    })();
    return this.stopping;
  }
}
