/**
 * Query services (Node only): gRPC with reflection, the REST gateway and the ABCI query router.
 *
 * @module xupgrade/services
 */
export { serveQueries, type QueryServers, type ServeQueriesOptions } from "./serve.js";
export {
  DEFAULT_GRPC_ADDRESS,
  DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH,
  startGrpcServer,
  type GrpcLimits,
  type GrpcServerHandle,
  type GrpcServerOptions,
} from "./grpc-server.js";
export { grpcConnectionGuard, type GrpcConnectionGuard } from "./grpc-connections.js";
export {
  DEFAULT_REST_ADDRESS,
  restStatus,
  startRestGateway,
  type RestGatewayHandle,
  type RestGatewayOptions,
  type RestRoute,
  type RestRouteRequest,
  type RestRouteResult,
} from "./rest-gateway.js";
export { createAbciQueryRouter, type AbciQueryResponse, type AbciQueryRouter, type AbciRoute } from "./abci.js";
export { createQueryEnv, runQuery, queryBytes, type QueryEnv, type QueryEnvOptions } from "./query.js";
export { HEIGHT_HEADER, HeightResolver, type HeightProvider, type KeeperAtHeight, type QueryContext, type StoresAt, type StoresAtHeight } from "./height.js";
export { DEFAULT_NAMESPACE, QUERY_METHODS, serviceNames, type QueryMethod, type ServiceNames } from "./names.js";
export { decodeRequest, encodeRequest, encodeResponse, type QueryRequests, type QueryResponses } from "./codec.js";
export { responseJson, statusJson } from "./json.js";
export { GrpcCode, QueryError, httpStatusOf, internalError, answerFor, type AbciError } from "./status.js";
export { INTERNAL_MESSAGE, INTERNAL_ABCI, errorDetail, reportToStderr, type InternalErrorReporter } from "./internal.js";
export {
  HTTP_DEFAULTS,
  checkingIntervalMs,
  closeGracefully,
  createHardenedServer,
  listen,
  resolveHttpLimits,
  type HttpLimits,
  type RefuseBody,
  type ResolvedHttpLimits,
} from "./http.js";
export { MIME_TYPES, isStaticFileName, notFound, serveStaticFile, type StaticFileOptions } from "./static.js";
export { descriptorPool, descriptorSetBytes, type DescriptorPool } from "./descriptors.js";
