/**
 * The gRPC server (@grpc/grpc-js, plaintext HTTP/2): `<ns>.upgrade.v1beta1.Query` with binary protobuf as a
 * real node (docs/spec/interfaces.md §2) plus server reflection. Requests are decoded before the height header is
 * checked, as grpc-go does; every answer that reaches the handler carries `x-cosmos-block-height`.
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { parseAddress } from "./address.js";
import { grpcConnectionGuard } from "./grpc-connections.js";
import { listen, resolveHttpLimits, type HttpLimits } from "./http.js";
import { decodeRequest } from "./codec.js";
import { descriptorPool, withServices } from "./descriptors.js";
import { HEIGHT_HEADER, HeightResolver } from "./height.js";
import { QUERY_METHODS } from "./names.js";
import { queryBytes, type QueryEnv } from "./query.js";
import { reflectionServices } from "./reflection.js";
import { answerFor, GrpcCode, QueryError } from "./status.js";
import { joinHostPort } from "../base/host-port.js";

export const DEFAULT_GRPC_ADDRESS = "127.0.0.1:9090";
export const DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH = 4 * 1024 * 1024;

/** The limits of docs/spec/interfaces.md §12.2 that apply to HTTP/2 (grpc-connections.ts says how). */
export type GrpcLimits = Pick<HttpLimits, "headersTimeoutMs" | "requestTimeoutMs" | "keepAliveTimeoutMs" | "maxConnections">;

export interface GrpcServerOptions extends GrpcLimits {
  /** `host:port`, default `127.0.0.1:9090`; port 0 picks a free port. */
  address?: string;
  /** Largest request message accepted (RESOURCE_EXHAUSTED above it), default 4 MiB as grpc-go. */
  maxReceiveMessageLength?: number;
  /** Serve server reflection (v1 and v1alpha), default true. */
  reflection?: boolean;
  /** Default grace period of close() before remaining calls are cancelled, default 5000 ms. */
  closeGraceMs?: number;
  /** Further grpc-js server options (keepalive, max_connection_idle_ms, …); they win over the limits. */
  serverOptions?: Record<string, unknown>;
  /** The host's own query services beside the upgrade Query service (a devnet's readiness query). */
  services?: readonly GrpcHostService[];
}

/**
 * A host's unary query service, answered from the latest committed state. Its .proto must be in the
 * descriptor set (scripts/build-descriptors.mjs), so reflection lists and describes it. A method may throw
 * a QueryError (its gRPC code and message are answered).
 */
export interface GrpcHostService {
  /** Fully qualified, e.g. `xupgrade.upgrade.v1.Query`. */
  name: string;
  methods: Readonly<Record<string, (request: Uint8Array) => Uint8Array>>;
}

export interface GrpcServerHandle {
  /** The bound address, `host:port` with the actual port. */
  readonly address: string;
  readonly port: number;
  readonly server: Server;
  /** Stops accepting calls, lets in-flight calls finish (up to graceMs), then cancels what is left. */
  close(graceMs?: number): Promise<void>;
}

const identity = (b: Buffer) => b;

/** What a method resolves before anything is sent: the height answered at, and the answer computed after the header is out. */
interface Resolved {
  height: bigint;
  answer(): Uint8Array;
}

/** One unary method on raw bytes: its path and how it resolves a call (throwing what the client is answered). */
interface RawMethod {
  name: string;
  path: string;
  resolve(call: ServerUnaryCall<Buffer, Buffer>): Resolved;
}

/**
 * The service of `methods`: each call is resolved, then `x-cosmos-block-height` is sent, then the answer is computed
 * — so a failure to resolve (a bad request, a height out of range) carries no height, as a real node's does.
 */
function rawUnaryService(env: QueryEnv, methods: readonly RawMethod[]): { definition: ServiceDefinition; implementation: UntypedServiceImplementation } {
  const definition: Record<string, unknown> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const { name, path, resolve } of methods) {
    definition[name] = {
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
      originalName: name[0].toLowerCase() + name.slice(1),
    };
    implementation[name] = (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
      try {
        const resolved = resolve(call);
        const md = new Metadata();
        md.set(HEIGHT_HEADER, resolved.height.toString());
        call.sendMetadata(md);
        const bytes = resolved.answer();
        callback(null, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } catch (e) {
        const err = answerFor(e, "grpc", env.report);
        const details = statusMessage(err.grpcMessage);
        callback({ code: err.grpcCode, details, name: "QueryError", message: details });
      }
    };
  }
  return { definition: definition as ServiceDefinition, implementation };
}

function requestedHeight(call: ServerUnaryCall<Buffer, Buffer>): bigint | undefined {
  const values = call.metadata.get(HEIGHT_HEADER).map((v) => (typeof v === "string" ? v : v.toString("latin1")));
  return HeightResolver.fromHeader(values);
}

/** The upgrade Query service: the request is decoded before the height header is read, as grpc-go does. */
function queryServiceDefinition(env: QueryEnv) {
  return rawUnaryService(
    env,
    QUERY_METHODS.map((method) => ({
      name: method,
      path: env.names.methodPath(method),
      resolve: (call) => {
        const req = decodeRequest(method, call.request);
        const ctx = env.heights.at(requestedHeight(call));
        return { height: ctx.height, answer: () => queryBytes(method, ctx.keeper, req) };
      },
    })),
  );
}

/** A host's service: the height rules of the upgrade service, but it reads the latest state only. */
function hostServiceDefinition(env: QueryEnv, service: GrpcHostService) {
  return rawUnaryService(
    env,
    Object.entries(service.methods).map(([method, answer]) => ({
      name: method,
      path: `/${service.name}/${method}`,
      resolve: (call) => {
        const ctx = env.heights.at(requestedHeight(call));
        if (ctx.height !== env.heights.latest()) {
          const msg = `${service.name} answers from the latest height only (${env.heights.latest()}), not ${ctx.height}`;
          throw new QueryError(GrpcCode.INVALID_ARGUMENT, msg, { codespace: "sdk", code: 18, log: `${msg}: invalid request` });
        }
        const request = new Uint8Array(call.request.buffer, call.request.byteOffset, call.request.byteLength);
        return { height: ctx.height, answer: () => answer(request) };
      },
    })),
  );
}

/**
 * The status message as sent in the `grpc-message` trailer: at most 4096 UTF-16 units (then `… (truncated)`), so
 * that an error echoing a huge request field (a 1 MiB module name) still fits a client's header-list limit
 * (64 KiB by default in Node, after percent-encoding) instead of leaving the call to its deadline.
 */
export function statusMessage(text: string): string {
  if (text.length <= MAX_STATUS_MESSAGE) return text;
  let end = MAX_STATUS_MESSAGE;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // never cut a surrogate pair in two
  return `${text.slice(0, end)}… (truncated)`;
}
const MAX_STATUS_MESSAGE = 4096;

/** Starts the gRPC server on `options.address`. */
export async function startGrpcServer(env: QueryEnv, options: GrpcServerOptions = {}): Promise<GrpcServerHandle> {
  const { host, port } = parseAddress(options.address ?? DEFAULT_GRPC_ADDRESS, "grpc");
  const maxReceive = options.maxReceiveMessageLength ?? DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH;
  if (!Number.isSafeInteger(maxReceive) || maxReceive < 1) throw new TypeError("maxReceiveMessageLength must be a positive integer");
  const guard = grpcConnectionGuard(resolveHttpLimits(options));
  const server = new Server({
    "grpc.max_receive_message_length": maxReceive,
    ...guard.serverOptions,
    ...options.serverOptions,
  });
  const query = queryServiceDefinition(env);
  server.addService(query.definition, query.implementation);
  const hosted = options.services ?? [];
  let pool = descriptorPool(env.names);
  for (const h of hosted) {
    if (pool.fileContainingSymbol(h.name) === undefined)
      throw new TypeError(`the gRPC service ${h.name} is not in the descriptor set (scripts/build-descriptors.mjs)`);
    const s = hostServiceDefinition(env, h);
    server.addService(s.definition, s.implementation);
  }
  if (hosted.length > 0)
    pool = withServices(
      pool,
      hosted.map((h) => h.name),
    );
  if (options.reflection !== false) {
    for (const s of reflectionServices(pool)) server.addService(s.definition, s.implementation);
  }
  const listener = guard.listener(server, ServerCredentials.createInsecure());
  const boundPort = await listen(listener, host, port);
  const defaultGrace = options.closeGraceMs ?? 5000;
  let closing: Promise<void> | undefined;
  return {
    address: joinHostPort(host, boundPort),
    port: boundPort,
    server,
    close(graceMs = defaultGrace) {
      closing ??= new Promise<void>((resolve) => {
        listener.close(); // no new connections; the sessions end below
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return closing;
    },
  };
}
