/**
 * The REST gateway (node:http) with grpc-gateway semantics (interfaces.md §3): exact JSON bodies, statuses,
 * `{"code","message","details":[]}` errors, 501 for unknown routes, 405 for other methods, CORS, the
 * `x-cosmos-block-height` headers. Request heads are limited by `maxHeaderBytes` (431 from Node), bodies
 * (never read) by `maxBodyBytes` (413, connection closed); slow clients are timed out.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { formatAddress, parseAddress } from "./address.js";
import { HEIGHT_HEADER, HeightResolver } from "./height.js";
import { responseJson, statusJson } from "./json.js";
import { matchRoute } from "./rest-routes.js";
import { runQuery, type QueryEnv } from "./query.js";
import { GrpcCode, handlerError, httpStatusOf, QueryError } from "./status.js";

export const DEFAULT_REST_ADDRESS = "127.0.0.1:1317";

export interface RestGatewayOptions {
  /** `host:port`, default `127.0.0.1:1317`; port 0 picks a free port. */
  address?: string;
  /** Request line plus headers, default 16 KiB; larger → 431 from the HTTP layer. */
  maxHeaderBytes?: number;
  /** Request body (GETs carry none), default 64 KiB; larger → 413 and the connection is closed. */
  maxBodyBytes?: number;
  /** Time for a client to send the whole request head, default 10 s (then 408). */
  headersTimeoutMs?: number;
  /** Time for a client to send the whole request, default 30 s. */
  requestTimeoutMs?: number;
  /** Idle keep-alive connections are closed after this, default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Default grace period of close() before open connections are cut, default 5000 ms. */
  closeGraceMs?: number;
}

export interface RestGatewayHandle {
  readonly address: string;
  readonly port: number;
  /** `http://host:port` */
  readonly url: string;
  readonly server: Server;
  /** Stops accepting connections, lets in-flight requests finish (up to graceMs), then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

const CORS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, x-cosmos-block-height",
  "Access-Control-Expose-Headers": "x-cosmos-block-height, Grpc-Metadata-X-Cosmos-Block-Height",
};

function send(res: ServerResponse, status: number, body: string | undefined, headers: Record<string, string> = {}): void {
  const all: Record<string, string | number> = { ...CORS, ...headers };
  if (body !== undefined) {
    all["Content-Type"] = "application/json";
    all["Content-Length"] = Buffer.byteLength(body);
  }
  res.writeHead(status, all);
  res.end(body);
}

function heightHeaders(height: bigint): Record<string, string> {
  const h = height.toString();
  return { "Grpc-Metadata-X-Cosmos-Block-Height": h, "x-cosmos-block-height": h };
}

function sendError(res: ServerResponse, code: number, message: string, headers?: Record<string, string>): void {
  send(res, httpStatusOf(code), statusJson(code, message), headers);
}

function handle(env: QueryEnv, req: IncomingMessage, res: ServerResponse): void {
  const route = matchRoute(env.names, req.url ?? "");
  if (route.kind === "unmatched") return sendError(res, GrpcCode.UNIMPLEMENTED, "Not Implemented");
  if (req.method === "OPTIONS") return send(res, 204, undefined, { Allow: "GET, OPTIONS" });
  if (req.method !== "GET") {
    return send(res, 405, statusJson(GrpcCode.UNIMPLEMENTED, "Method Not Allowed"), { Allow: "GET, OPTIONS" });
  }
  if (route.kind === "invalid") return sendError(res, route.code, route.message);

  let height: bigint | undefined;
  try {
    const ctx = env.heights.at(HeightResolver.fromHeader(req.headersDistinct[HEIGHT_HEADER] ?? []));
    height = ctx.height;
    const body = responseJson(route.method, runQuery(route.method, ctx.keeper, route.request as never));
    send(res, 200, body, heightHeaders(ctx.height));
  } catch (e) {
    const err = e instanceof QueryError ? e : handlerError(e);
    sendError(res, err.grpcCode, err.grpcMessage, height === undefined ? undefined : heightHeaders(height));
  }
}

/** Starts the REST gateway on `options.address`. */
export async function startRestGateway(env: QueryEnv, options: RestGatewayOptions = {}): Promise<RestGatewayHandle> {
  const { host, port } = parseAddress(options.address ?? DEFAULT_REST_ADDRESS, "rest");
  const maxBody = options.maxBodyBytes ?? 64 * 1024;
  const server = createServer(
    {
      maxHeaderSize: options.maxHeaderBytes ?? 16 * 1024,
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs ?? 10_000),
    },
    (req, res) => {
      const declared = Number(req.headers["content-length"] ?? 0);
      if (declared > maxBody) {
        send(res, 413, statusJson(GrpcCode.RESOURCE_EXHAUSTED, `request body larger than max (${declared} vs. ${maxBody})`), {
          Connection: "close",
        });
        return;
      }
      // Bodies are never read; a chunked one that outgrows the limit costs the client its connection.
      let received = 0;
      req.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBody) req.socket.destroy();
      });
      try {
        handle(env, req, res);
      } catch (e) {
        if (!res.headersSent) sendError(res, GrpcCode.INTERNAL, `internal error: ${e instanceof Error ? e.message : String(e)}`);
        else res.destroy();
      }
    },
  );
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === "ECONNRESET") return void socket.destroy();
    const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const text = status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request";
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // After listening, an accept-time failure (e.g. out of file descriptors) must not crash the host.
  server.on("error", () => undefined);
  const bound = server.address();
  const boundPort = typeof bound === "object" && bound !== null ? bound.port : port;
  const address = formatAddress(host, boundPort);
  const defaultGrace = options.closeGraceMs ?? 5000;
  let closing: Promise<void> | undefined;
  return {
    address,
    port: boundPort,
    url: `http://${address}`,
    server,
    close(graceMs = defaultGrace) {
      closing ??= new Promise<void>((resolve) => {
        const sweep = setInterval(() => server.closeIdleConnections(), 25);
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
