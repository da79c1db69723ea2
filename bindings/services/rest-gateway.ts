/**
 * The REST gateway (node:http) with grpc-gateway semantics (docs/spec/interfaces.md §3): exact JSON bodies, statuses,
 * `{"code","message","details":[]}` errors, 501 for unknown routes, 405 for other methods, CORS, the
 * `x-cosmos-block-height` headers. The server is the project's hardened one (http.ts, docs/spec/interfaces.md §12.2):
 * heads limited by `maxHeaderBytes` (431), bodies (never read) by `maxBodyBytes` (413, connection closed),
 * slow and idle clients timed out to within a second, connections capped (503). An unexpected error is
 * answered `internal error` and reported, never described (docs/spec/interfaces.md §12.1).
 *
 * A host adds its own GET routes with `routes` (a devnet serves `/cosmos/base/tendermint/v1beta1/blocks/{height}`
 * there, and its light-client page under `/ui`): same server, same CORS, OPTIONS, 405 and error conventions;
 * the module's routes come first. A route may answer with bytes and its own `Content-Type`.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import { parseAddress } from "./address.js";
import { HEIGHT_HEADER, HeightResolver } from "./height.js";
import { closeGracefully, createHardenedServer, listen, resolveHttpLimits, type HttpLimits } from "./http.js";
import { responseJson, statusJson } from "./json.js";
import { matchRoute, splitTarget } from "./rest-routes.js";
import { runQuery, type QueryEnv } from "./query.js";
import { answerFor, GrpcCode, httpStatusOf } from "./status.js";
import { joinHostPort } from "../base/host-port.js";

export const DEFAULT_REST_ADDRESS = "127.0.0.1:1317";

/**
 * The HTTP limits (docs/spec/interfaces.md §12.2, defaults in HTTP_DEFAULTS): `maxHeaderBytes` 16 KiB (431),
 * `maxBodyBytes` 64 KiB (GETs carry none; 413 and closed), `headersTimeoutMs` 10 s (408; also an idle
 * connection's first request), `requestTimeoutMs` 30 s, `keepAliveTimeoutMs` 5 s, `maxConnections` 512 (503).
 */
export interface RestGatewayOptions extends HttpLimits {
  /** `host:port`, default `127.0.0.1:1317`; port 0 picks a free port. */
  address?: string;
  /** Default grace period of close() before open connections are cut, default 5000 ms. */
  closeGraceMs?: number;
  /** Extra GET routes of the host, tried when no route of the upgrade module matches. */
  routes?: readonly RestRoute[];
}

/**
 * An extra GET route. `path` is literal segments and `{name}` segments, e.g.
 * `/cosmos/base/tendermint/v1beta1/blocks/{height}`; a `{name}` segment matches one non-empty raw segment,
 * handed to the handler percent-decoded. The handler answers with a status (default 200), a body (JSON
 * text, or a value to JSON.stringify) and extra headers; throwing a {@link QueryError} answers with its
 * google.rpc.Status (HTTP status from its gRPC code), anything else with 500 `internal error` (the detail is
 * reported, docs/spec/interfaces.md §12.1).
 */
export interface RestRoute {
  path: string;
  handler(request: RestRouteRequest): RestRouteResult | Promise<RestRouteResult>;
}

export interface RestRouteRequest {
  /** The `{name}` segments, percent-decoded. */
  params: Record<string, string>;
  /** The query string. */
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw path of the request target. */
  path: string;
}

export interface RestRouteResult {
  status?: number;
  /** JSON text, bytes (sent as they are), or a value to JSON.stringify. */
  body: string | Uint8Array | object;
  /** Extra headers; a `Content-Type` here replaces the default `application/json` (e.g. a host serving a web page). */
  headers?: Record<string, string>;
}

/** A google.rpc.Status answer for a route handler: `restStatus(3, "bad height")` → 400 `{"code":3,…}`. */
export function restStatus(grpcCode: number, message: string, headers?: Record<string, string>): RestRouteResult {
  return { status: httpStatusOf(grpcCode), body: statusJson(grpcCode, message), headers };
}

type CompiledRoute = { route: RestRoute; segments: ({ literal: string } | { param: string })[] };

function compileRoutes(routes: readonly RestRoute[]): CompiledRoute[] {
  const seen = new Set<string>();
  return routes.map((route) => {
    if (typeof route?.path !== "string" || !route.path.startsWith("/") || typeof route.handler !== "function") {
      throw new TypeError(`invalid REST route ${JSON.stringify(route?.path)}: a path starting with "/" and a handler are required`);
    }
    const names = new Set<string>();
    const segments = route.path
      .slice(1)
      .split("/")
      .map((seg) => {
        if (seg === "") throw new TypeError(`invalid REST route ${JSON.stringify(route.path)}: empty segment`);
        const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(seg);
        if (!m) {
          if (/[{}]/.test(seg)) throw new TypeError(`invalid REST route ${JSON.stringify(route.path)}: bad parameter segment ${JSON.stringify(seg)}`);
          return { literal: seg };
        }
        if (names.has(m[1])) throw new TypeError(`invalid REST route ${JSON.stringify(route.path)}: parameter ${m[1]} appears twice`);
        names.add(m[1]);
        return { param: m[1] };
      });
    const shape = segments.map((s) => ("literal" in s ? s.literal : "{}")).join("/");
    if (seen.has(shape)) throw new TypeError(`duplicate REST route ${JSON.stringify(route.path)}`);
    seen.add(shape);
    return { route, segments };
  });
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The first extra route matching the request target, with its parameters. */
function matchExtra(routes: CompiledRoute[], target: string): { route: RestRoute; request: RestRouteRequest } | undefined {
  if (routes.length === 0) return undefined;
  const split = splitTarget(target);
  if (split === undefined || !split.path.startsWith("/")) return undefined;
  const parts = split.path.slice(1).split("/");
  for (const { route, segments } of routes) {
    if (segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = segments.every((seg, i) => {
      if ("literal" in seg) return seg.literal === parts[i];
      if (parts[i] === "") return false;
      params[seg.param] = decodeSegment(parts[i]);
      return true;
    });
    if (ok) return { route, request: { params, query: new URLSearchParams(split.query), headers: {}, path: split.path } };
  }
  return undefined;
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

function send(res: ServerResponse, status: number, body: string | Uint8Array | undefined, headers: Record<string, string> = {}): void {
  const all: Record<string, string | number> = { ...CORS, ...headers };
  if (body !== undefined) {
    if (!Object.keys(headers).some((k) => k.toLowerCase() === "content-type")) all["Content-Type"] = "application/json";
    all["Content-Length"] = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
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

function handle(env: QueryEnv, extra: CompiledRoute[], req: IncomingMessage, res: ServerResponse): void {
  const route = matchRoute(env.names, req.url ?? "");
  if (route.kind === "unmatched") {
    const found = matchExtra(extra, req.url ?? "");
    if (!found) return sendError(res, GrpcCode.UNIMPLEMENTED, "Not Implemented");
    return handleExtra(env, found.route, { ...found.request, headers: req.headers }, req, res);
  }
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
    const err = answerFor(e, "rest", env.report);
    sendError(res, err.grpcCode, err.grpcMessage, height === undefined ? undefined : heightHeaders(height));
  }
}

function handleExtra(env: QueryEnv, route: RestRoute, request: RestRouteRequest, req: IncomingMessage, res: ServerResponse): void {
  if (req.method === "OPTIONS") return send(res, 204, undefined, { Allow: "GET, OPTIONS" });
  if (req.method !== "GET") {
    return send(res, 405, statusJson(GrpcCode.UNIMPLEMENTED, "Method Not Allowed"), { Allow: "GET, OPTIONS" });
  }
  const fail = (e: unknown) => {
    const err = answerFor(e, `rest ${route.path}`, env.report);
    if (res.headersSent) return void res.destroy();
    sendError(res, err.grpcCode, err.grpcMessage);
  };
  let result: RestRouteResult | Promise<RestRouteResult>;
  try {
    result = route.handler(request);
  } catch (e) {
    return fail(e);
  }
  Promise.resolve(result)
    .then((r) => {
      if (res.destroyed) return;
      const body = typeof r.body === "string" || r.body instanceof Uint8Array ? r.body : JSON.stringify(r.body);
      send(res, r.status ?? 200, body, r.headers);
    }, fail)
    .catch(fail);
}

/** Starts the REST gateway on `options.address`. */
export async function startRestGateway(env: QueryEnv, options: RestGatewayOptions = {}): Promise<RestGatewayHandle> {
  const extra = compileRoutes(options.routes ?? []);
  const { host, port } = parseAddress(options.address ?? DEFAULT_REST_ADDRESS, "rest");
  const limits = resolveHttpLimits(options);
  const server = createHardenedServer(
    limits,
    (req, res) => {
      // Bodies are never read; a chunked one that outgrows the limit costs the client its connection.
      let received = 0;
      req.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > limits.maxBodyBytes) req.socket.destroy();
      });
      try {
        handle(env, extra, req, res);
      } catch (e) {
        const err = answerFor(e, "rest", env.report);
        if (!res.headersSent) sendError(res, err.grpcCode, err.grpcMessage);
        else res.destroy();
      }
    },
    (res, message) => send(res, 413, statusJson(GrpcCode.RESOURCE_EXHAUSTED, message), { Connection: "close" }),
  );
  const boundPort = await listen(server, host, port);
  const address = joinHostPort(host, boundPort);
  const defaultGrace = options.closeGraceMs ?? 5000;
  let closing: Promise<void> | undefined;
  return {
    address,
    port: boundPort,
    url: `http://${address}`,
    server,
    close(graceMs = defaultGrace) {
      closing ??= closeGracefully(server, graceMs);
      return closing;
    },
  };
}
