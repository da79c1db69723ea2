/**
 * The readiness query on every surface of the node (docs/spec/readiness.md §8), an extension beside the
 * SDK's upgrade routes: ABCI `/xupgrade.upgrade.v1.Query/Readiness` (what `xupgrade query upgrade readiness`
 * asks through CometBFT's RPC), gRPC `xupgrade.upgrade.v1.Query/Readiness` (listed by reflection), and REST
 * `GET /xupgrade/upgrade/v1/readiness[?name=<plan>&height=<h>]`. All read the latest committed state.
 */
import type { Plan } from "../../../core/types.js";
import { goParseInt } from "../../../go/int.js";
import {
  READINESS_QUERY_PATH,
  READINESS_REST_PATH,
  ReadinessError,
  decodeReadinessRequest,
  encodeReadinessResponse,
  readinessResponseJson,
  type QueryReadinessRequest,
} from "../../../module/readiness/index.js";
import type { AbciRoute } from "../../../services/abci.js";
import type { GrpcHostService } from "../../../services/grpc-server.js";
import { restStatus, type RestRoute } from "../../../services/rest-gateway.js";
import { decodeError, GrpcCode } from "../../../services/status.js";
import { queryReadiness } from "../modules/readiness.js";
import type { StoreView } from "../shared/branch.js";
import { StoreQueryError } from "../../../store/errors.js";

export interface ReadinessRoutesOptions {
  /** The committed app stores of a retained height (undefined when it is not retained). */
  viewAt(height: bigint): StoreView | undefined;
  /** The plan scheduled at a retained height. */
  planAt(height: bigint): Plan | undefined;
  /** The last committed height. */
  height(): bigint;
}

export function readinessRoutes(o: ReadinessRoutesOptions): { abci: Record<string, AbciRoute>; grpc: GrpcHostService; rest: RestRoute[] } {
  const read = (req: QueryReadinessRequest, height: bigint) => {
    const view = o.viewAt(height);
    if (!view) throw new StoreQueryError(`height ${height} is not retained`);
    return queryReadiness(view, o.planAt(height), req);
  };
  const decode = (bytes: Uint8Array) => {
    try {
      return decodeReadinessRequest(bytes);
    } catch (e) {
      if (e instanceof ReadinessError) throw decodeError(e.message);
      throw e;
    }
  };
  return {
    // The height was resolved (and found retained) before the route runs; the raw store is /store/readiness/key.
    abci: { [READINESS_QUERY_PATH]: (data, ctx) => encodeReadinessResponse(read(decode(data), ctx.height)) },
    grpc: { name: "xupgrade.upgrade.v1.Query", methods: { Readiness: (bytes) => encodeReadinessResponse(read(decode(bytes), o.height())) } },
    rest: [
      {
        path: READINESS_REST_PATH,
        handler: ({ query }) => {
          const name = query.get("name") ?? "";
          const text = query.get("height") ?? "0";
          const parsed = goParseInt(text, 10);
          if (!parsed.ok) return restStatus(GrpcCode.INVALID_ARGUMENT, `type mismatch, parameter: height, error: ${parsed.error}`);
          if (parsed.value < 0n) return restStatus(GrpcCode.INVALID_ARGUMENT, `height ${parsed.value} is negative`);
          const latest = o.height();
          const body = readinessResponseJson(read({ name, height: parsed.value }, latest));
          return { body, headers: { "x-cosmos-block-height": latest.toString(), "Grpc-Metadata-X-Cosmos-Block-Height": latest.toString() } };
        },
      },
    ],
  };
}
