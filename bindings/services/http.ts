/**
 * The one hardening every HTTP server of the project gets (docs/spec/interfaces.md §12.2): the REST gateway
 * and the devnet's CometBFT RPC are created here, listen here and close here; the gRPC server takes the same
 * limits to HTTP/2 in grpc-connections.ts.
 *
 * - `headersTimeoutMs`: the request line and headers must arrive within it — also the first request of a
 *   connection that sends nothing (an idle connection) — else 408 and the connection is closed.
 * - `requestTimeoutMs`: the whole request, body included (408, closed).
 * - `keepAliveTimeoutMs`: an idle keep-alive connection between requests is closed after it (Node arms the
 *   timer 1 s later, its buffer against clients racing the close).
 * - Node checks the first two only every `connectionsCheckingInterval` (30 s by default, which made a 10 s
 *   timeout a 30 s one); here the check runs every min(1 s, timeout / 4), so both are honoured to within
 *   1 s (a quarter of the timeout when that is shorter).
 * - `maxHeaderBytes`: a larger head → 431. `maxBodyBytes`: a larger declared body → 413 before the handler
 *   runs and the connection closed (a server reading a chunked body enforces the same limit while reading).
 * - `maxConnections`: a connection beyond the cap is answered `503 Service Unavailable` (`Retry-After: 1`)
 *   and closed at once; the connections already open are not affected.
 * - Malformed requests → 400, all with `Connection: close` and no body from the HTTP layer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Server as NetServer, Socket } from "node:net";

export interface HttpLimits {
  /** Request line and headers (and an idle connection's first request), default 10 s; then 408 and closed. */
  headersTimeoutMs?: number;
  /** The whole request, body included, default 30 s; then 408 and closed. Must be ≥ headersTimeoutMs. */
  requestTimeoutMs?: number;
  /** Idle keep-alive connections are closed after this, default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Request line plus headers, default 16 KiB; larger → 431. */
  maxHeaderBytes?: number;
  /** Request body, default 64 KiB; larger → 413 and the connection is closed. */
  maxBodyBytes?: number;
  /** Open connections, default 512; one more is answered 503 and closed. */
  maxConnections?: number;
}

export type ResolvedHttpLimits = Readonly<Required<HttpLimits>>;

/** The defaults of docs/spec/interfaces.md §12.2 (a server may change some of them: the devnet RPC allows 64 KiB heads and 2 MiB bodies). */
export const HTTP_DEFAULTS: ResolvedHttpLimits = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  maxBodyBytes: 64 * 1024,
  maxConnections: 512,
});

/** The limits with the defaults filled in; TypeError for a value that is not a positive safe integer. */
export function resolveHttpLimits(limits: HttpLimits | undefined, defaults: ResolvedHttpLimits = HTTP_DEFAULTS): ResolvedHttpLimits {
  const out = { ...defaults } as Required<HttpLimits>;
  for (const key of Object.keys(defaults) as (keyof HttpLimits)[]) {
    const v = limits?.[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) throw new TypeError(`${key} must be a positive integer, got ${String(v)}`);
    out[key] = v;
  }
  if (out.headersTimeoutMs > out.requestTimeoutMs) {
    throw new TypeError(`headersTimeoutMs (${out.headersTimeoutMs}) must not exceed requestTimeoutMs (${out.requestTimeoutMs})`);
  }
  return Object.freeze(out);
}

/** How often Node sweeps for expired heads and requests: min(1 s, the shorter timeout / 4), at least 10 ms. */
export function checkingIntervalMs(l: ResolvedHttpLimits): number {
  return Math.max(10, Math.min(1000, Math.floor(Math.min(l.headersTimeoutMs, l.requestTimeoutMs) / 4)));
}

/** Answers a request whose declared body is over the limit, in the server's own format (status 413). */
export type RefuseBody = (res: ServerResponse, message: string) => void;

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 413: "Content Too Large", 431: "Request Header Fields Too Large" };
const OVER_CAP = Symbol("over the connection cap");

/** A raw answer from the HTTP layer (no handler involved), then the connection is closed. */
function rawAnswer(socket: Socket, status: number, text: string, extra = ""): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n${extra}Content-Length: 0\r\n\r\n`);
}

/** The declared Content-Length, or undefined (absent or chunked). */
function declaredLength(req: IncomingMessage): number | undefined {
  const v = req.headers["content-length"];
  if (v === undefined || !/^[0-9]+$/.test(v)) return undefined;
  return Number(v);
}

/**
 * A node:http server with the hardening of the module comment. `refuseBody` words the 413 answer (it should
 * set `Connection: close`); `handler` sees only requests within the limits.
 */
export function createHardenedServer(limits: ResolvedHttpLimits, handler: (req: IncomingMessage, res: ServerResponse) => void, refuseBody: RefuseBody): Server {
  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(limits),
    },
    (req, res) => {
      if ((req.socket as Socket & { [OVER_CAP]?: boolean })[OVER_CAP]) return void res.destroy();
      const declared = declaredLength(req);
      if (declared !== undefined && declared > limits.maxBodyBytes) {
        res.shouldKeepAlive = false;
        refuseBody(res, `request body larger than max (${declared} vs. ${limits.maxBodyBytes})`);
        return;
      }
      handler(req, res);
    },
  );
  let open = 0;
  // Before http's own listener: a connection over the cap gets its answer and no parser work.
  server.prependListener("connection", (socket: Socket) => {
    open++;
    socket.once("close", () => open--);
    if (open > limits.maxConnections) {
      (socket as Socket & { [OVER_CAP]?: boolean })[OVER_CAP] = true;
      socket.on("error", () => undefined);
      rawAnswer(socket, 503, "Service Unavailable", "Retry-After: 1\r\n");
      socket.setTimeout(1000, () => socket.destroy());
    }
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === "ECONNRESET" || (socket as Socket & { [OVER_CAP]?: boolean })[OVER_CAP]) return void socket.destroy();
    const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    rawAnswer(socket, status, STATUS_TEXT[status]);
  });
  return server;
}

/** Listens on host:port; after that, accept-time failures (e.g. out of file descriptors) never crash the host. */
export async function listen(server: NetServer, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", () => undefined);
  const bound = server.address();
  return typeof bound === "object" && bound !== null ? bound.port : port;
}

/**
 * Stops accepting connections, closes idle ones at once and the others as soon as their request is answered,
 * and cuts whatever is left after `graceMs`.
 */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
