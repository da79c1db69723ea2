/**
 * The gRPC server's share of the one hardening (docs/spec/interfaces.md §12.2): the same `HttpLimits` as the
 * node:http servers of http.ts, applied to HTTP/2.
 *
 * grpc-js listens itself when asked to bind, and then keeps every connection for as long as the peer likes:
 * one that never sends the HTTP/2 preface, one that trickles it, one that opens a call and never finishes its
 * request. So the server here owns the listening socket and hands each accepted connection to grpc-js
 * (`createConnectionInjector`), which lets it count and cap connections; the rest are grpc-js options and a
 * server interceptor:
 *
 * - `headersTimeoutMs`: the client's connection preface (24 bytes) must have arrived within it; a connection
 *   that sends nothing, or trickles the preface, is destroyed.
 * - `keepAliveTimeoutMs`: an HTTP/2 session with no call in progress (before its first call too) is closed
 *   after it (`grpc.max_connection_idle_ms`: GOAWAY, then closed; a client reconnects for its next call).
 * - `requestTimeoutMs`: a call's request (its message and end of stream) must arrive within it once its headers
 *   have; otherwise the call ends with `DEADLINE_EXCEEDED` and, as after an HTTP 408, the connection is closed.
 * - `maxConnections`: one more connection is closed at once; the open ones are not affected.
 *
 * Messages keep gRPC's own limit (`maxReceiveMessageLength`, 4 MiB as grpc-go) rather than `maxBodyBytes`.
 */
import { createServer, type Server as NetServer, type Socket } from "node:net";
import { ServerInterceptingCall, ServerListenerBuilder, status, type Server, type ServerCredentials, type ServerInterceptor } from "@grpc/grpc-js";
import type { ResolvedHttpLimits } from "./http.js";

/** The limits applied to one gRPC server: its grpc-js options and its listening socket. */
export interface GrpcConnectionGuard {
  /** grpc-js server options carrying the limits (spread before a caller's own `serverOptions`). */
  readonly serverOptions: Record<string, unknown>;
  /**
   * A TCP listener whose connections go to `server` (built with `serverOptions`), at most
   * `limits.maxConnections` at a time. Closing it stops accepting; the server's own shutdown ends the sessions.
   */
  listener(server: Server, credentials: ServerCredentials): NetServer;
}

/** `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, which every HTTP/2 client sends first (RFC 9113 §3.4). */
const HTTP2_PREFACE_BYTES = 24;
/** Time for the DEADLINE_EXCEEDED trailers to leave before a timed-out call's connection is closed. */
const FLUSH_MS = 100;

export function grpcConnectionGuard(limits: ResolvedHttpLimits): GrpcConnectionGuard {
  const sockets = new Map<string, Socket>(); // by "remoteAddress:remotePort", as grpc-js reports a call's peer
  const keyOf = (address: string | undefined, port: number | undefined) => `${address}:${port}`;

  /** Ends a call whose request has not fully arrived `requestTimeoutMs` after its headers, then its connection. */
  const requestTimeout: ServerInterceptor = (_method, call) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    const expire = () => {
      timer = undefined;
      const ms = limits.requestTimeoutMs;
      call.sendStatus({ code: status.DEADLINE_EXCEEDED, details: `request not received within ${ms} ms` });
      // The client may go on sending on that stream for ever (and so keep the session from being idle):
      // as the HTTP servers do after a 408, close the connection once the answer is out.
      const info = call.getConnectionInfo();
      const socket = sockets.get(keyOf(info.remoteAddress, info.remotePort));
      if (socket !== undefined) setTimeout(() => socket.destroy(), FLUSH_MS).unref();
    };
    return new ServerInterceptingCall(call, {
      start(next) {
        timer = setTimeout(expire, limits.requestTimeoutMs);
        timer.unref();
        next(
          new ServerListenerBuilder()
            .withOnReceiveHalfClose((done) => {
              stop();
              done();
            })
            .withOnCancel(stop)
            .build(),
        );
      },
      sendStatus(st, next) {
        stop();
        next(st);
      },
    });
  };

  return {
    serverOptions: {
      "grpc.max_connection_idle_ms": limits.keepAliveTimeoutMs,
      interceptors: [requestTimeout],
    },
    listener(server, credentials) {
      const injector = server.createConnectionInjector(credentials);
      return createServer({ noDelay: true }, (socket: Socket) => {
        socket.on("error", () => undefined); // a reset peer; the HTTP/2 session sees the close
        if (sockets.size >= limits.maxConnections) return void socket.destroy();
        const key = keyOf(socket.remoteAddress, socket.remotePort);
        sockets.set(key, socket);
        const preface = setTimeout(() => {
          if (socket.bytesRead < HTTP2_PREFACE_BYTES) socket.destroy();
        }, limits.headersTimeoutMs);
        socket.once("close", () => {
          sockets.delete(key);
          clearTimeout(preface);
        });
        // grpc-js's HTTP/2 session takes the socket's handle over; bytesRead still counts what it reads.
        injector.injectConnection(socket);
      });
    },
  };
}
