/**
 * The devnet's REST additions, served as extra routes of the query services' REST gateway (same address,
 * same CORS and error conventions): `GET /cosmos/base/tendermint/v1beta1/blocks/{height}` (and
 * `/blocks/latest`) and `/cosmos/base/tendermint/v1beta1/syncing`. The blocks come from the engine: the
 * single-process engine's records, or CometBFT's RPC (as a Cosmos node's REST server asks its CometBFT).
 */
import { toBech32 } from "@cosmjs/encoding";
import { restStatus, type RestRoute, type RestRouteResult } from "../../../services/rest-gateway.js";
import { GrpcCode } from "../../../services/status.js";
import { gatewayBlockJson, type GatewayBlock } from "../chain/blocks.js";
import { goParseInt } from "../../../go/int.js";

const PREFIX = "/cosmos/base/tendermint/v1beta1";

/** Where the REST block route finds blocks. */
export interface BlockSource {
  /** The last committed height. */
  height(): bigint;
  /** The block at a committed height, or undefined when it is not available. */
  block(height: bigint): GatewayBlock | undefined | Promise<GatewayBlock | undefined>;
}

/** The devnet's extra REST routes (for `startRestGateway`'s / `serveQueries`' `rest.routes`). */
export function devnetRestRoutes(blocks: BlockSource): RestRoute[] {
  return [
    { path: `${PREFIX}/blocks/{height}`, handler: ({ params }) => answerBlock(blocks, params.height) },
    { path: `${PREFIX}/syncing`, handler: () => ({ body: `{"syncing":false}` }) },
  ];
}

async function answerBlock(blocks: BlockSource, param: string): Promise<RestRouteResult> {
  const latest = blocks.height();
  let height: bigint;
  if (param === "latest") height = latest;
  else {
    const parsed = goParseInt(param, 10);
    if (!parsed.ok) return restStatus(GrpcCode.INVALID_ARGUMENT, `type mismatch, parameter: height, error: ${parsed.error}`);
    height = parsed.value;
  }
  if (height > latest) return restStatus(GrpcCode.INVALID_ARGUMENT, "requested block height is bigger then the chain length");
  if (height < 1n) return restStatus(GrpcCode.UNKNOWN, `height must be greater than 0, but got ${height}`);
  const block = await blocks.block(height);
  if (!block) return restStatus(GrpcCode.UNKNOWN, `height ${height} is not available`);
  return {
    body: gatewayBlockJson(block, (hex) => toBech32("cosmosvalcons", Buffer.from(hex, "hex"))),
    headers: { "x-cosmos-block-height": latest.toString(), "Grpc-Metadata-X-Cosmos-Block-Height": latest.toString() },
  };
}
