/**
 * The devnet's REST additions, served as extra routes of the query services' REST gateway (same address,
 * same CORS and error conventions): `GET /cosmos/base/tendermint/v1beta1/blocks/{height}` (and
 * `/blocks/latest`) and `/cosmos/base/tendermint/v1beta1/syncing`.
 */
import { toBech32 } from "@cosmjs/encoding";
import { restStatus, type RestRoute, type RestRouteResult } from "../../services/rest-gateway.js";
import { GrpcCode } from "../../services/status.js";
import { gatewayBlockJson } from "./blocks.js";
import type { Chain } from "./chain.js";
import { goParseInt } from "../../go/int.js";

const PREFIX = "/cosmos/base/tendermint/v1beta1";

/** The devnet's extra REST routes over `chain` (for `startRestGateway`'s / `serveQueries`' `rest.routes`). */
export function devnetRestRoutes(chain: Chain): RestRoute[] {
  return [
    { path: `${PREFIX}/blocks/{height}`, handler: ({ params }) => answerBlock(chain, params.height) },
    { path: `${PREFIX}/syncing`, handler: () => ({ body: `{"syncing":false}` }) },
  ];
}

function answerBlock(chain: Chain, param: string): RestRouteResult {
  const latest = chain.height;
  let height: bigint;
  if (param === "latest") height = latest;
  else {
    const parsed = goParseInt(param, 10);
    if (!parsed.ok) return restStatus(GrpcCode.INVALID_ARGUMENT, `type mismatch, parameter: height, error: ${parsed.error}`);
    height = parsed.value;
  }
  if (height > latest) return restStatus(GrpcCode.INVALID_ARGUMENT, "requested block height is bigger then the chain length");
  if (height < 1n) return restStatus(GrpcCode.UNKNOWN, `height must be greater than 0, but got ${height}`);
  const rec = chain.getBlock(height);
  if (!rec) return restStatus(GrpcCode.UNKNOWN, `height ${height} is not available`);
  return {
    body: gatewayBlockJson(rec, (hex) => toBech32("cosmosvalcons", Buffer.from(hex, "hex"))),
    headers: { "x-cosmos-block-height": latest.toString(), "Grpc-Metadata-X-Cosmos-Block-Height": latest.toString() },
  };
}
