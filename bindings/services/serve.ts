/**
 * serveQueries: the gRPC server and the REST gateway over one keeper, plus the ABCI query router, with a
 * graceful close() that lets in-flight requests finish.
 */
import { createAbciQueryRouter, type AbciQueryRouter, type AbciRoute } from "./abci.js";
import { startGrpcServer, type GrpcServerHandle, type GrpcServerOptions } from "./grpc-server.js";
import { createQueryEnv, type QueryEnvOptions } from "./query.js";
import { startRestGateway, type RestGatewayHandle, type RestGatewayOptions } from "./rest-gateway.js";

export interface ServeQueriesOptions extends QueryEnvOptions {
  /** gRPC server options (default address 127.0.0.1:9090); false: no gRPC server. */
  grpc?: GrpcServerOptions | false;
  /**
   * REST gateway options (default address 127.0.0.1:1317), including the host's extra GET `routes`;
   * false: no REST gateway.
   */
  rest?: RestGatewayOptions | false;
  /** Extra ABCI query routes by exact path (e.g. `/cosmos.gov.v1.Query/Params` on a devnet). */
  abciRoutes?: Record<string, AbciRoute>;
}

export interface QueryServers {
  readonly namespace: string;
  readonly grpc: GrpcServerHandle | undefined;
  readonly rest: RestGatewayHandle | undefined;
  /** The ABCI query router over the same keeper and heights. */
  readonly abci: AbciQueryRouter;
  /** Closes both servers gracefully (in-flight requests finish; after graceMs the rest is cut). */
  close(graceMs?: number): Promise<void>;
}

export async function serveQueries(options: ServeQueriesOptions): Promise<QueryServers> {
  const env = createQueryEnv(options);
  const abci = createAbciQueryRouter(env, options.abciRoutes);
  let grpc: GrpcServerHandle | undefined;
  let rest: RestGatewayHandle | undefined;
  try {
    if (options.grpc !== false) grpc = await startGrpcServer(env, options.grpc ?? {});
    if (options.rest !== false) rest = await startRestGateway(env, options.rest ?? {});
  } catch (e) {
    await grpc?.close(0);
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    namespace: env.names.namespace,
    grpc,
    rest,
    abci,
    close(graceMs?: number) {
      closing ??= Promise.all([grpc?.close(graceMs), rest?.close(graceMs)]).then(() => undefined);
      return closing;
    },
  };
}
