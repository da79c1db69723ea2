/**
 * The readiness query over a node's CometBFT RPC (`abci_query` on `/xupgrade.upgrade.v1.Query/Readiness`,
 * docs/spec/readiness.md §8), and the warnings a client draws from a tally (§9): less than two thirds of the
 * power ready within N blocks of the height, rehearsed app hashes that disagree.
 */
import {
  READINESS_QUERY_PATH,
  decodeReadinessResponse,
  encodeReadinessRequest,
  moreThanTwoThirdsReady,
  type QueryReadinessRequest,
  type QueryReadinessResponse,
  type ReadinessTally,
} from "../module/readiness/index.js";
import { abciQuery } from "./abci.js";
import { ClientError } from "./errors.js";
import type { CometRpc } from "./rpc.js";

/** Blocks before the height from which too little readiness is warned about (docs/spec/readiness.md §9). */
export const DEFAULT_READINESS_WARN_BLOCKS = 1000n;

/** The readiness of the scheduled plan (or the named one), and the height of the state it was read at. */
export async function queryReadiness(
  rpc: CometRpc,
  req: Partial<QueryReadinessRequest> = {},
  height = 0n,
): Promise<QueryReadinessResponse & { height: bigint }> {
  const { value, height: at } = await abciQuery(rpc, READINESS_QUERY_PATH, encodeReadinessRequest({ name: req.name ?? "", height: req.height ?? 0n }), height);
  try {
    return { ...decodeReadinessResponse(value), height: at };
  } catch (e) {
    throw new ClientError(`the node answered ${READINESS_QUERY_PATH} with bytes that are not a QueryReadinessResponse: ${(e as Error).message}`);
  }
}

/** Percent of the total power, one decimal ("66.7"). */
export function percentOf(part: bigint, total: bigint): string {
  if (total <= 0n) return "0.0";
  const tenths = (part * 1000n + total / 2n) / total;
  return `${tenths / 10n}.${tenths % 10n}`;
}

/**
 * The warnings for a tally read at `height`: too little readiness when the plan is at most `warnBlocks`
 * blocks away, and rehearsed app hashes that disagree (at any distance: a determinism bug).
 */
export function readinessWarnings(t: ReadinessTally, height: bigint, warnBlocks = DEFAULT_READINESS_WARN_BLOCKS): string[] {
  const out: string[] = [];
  const away = t.planHeight - height;
  if (away >= 0n && away <= warnBlocks && !moreThanTwoThirdsReady(t)) {
    out.push(
      `upgrade "${t.planName}" at height ${t.planHeight} is ${away} blocks away and only ${percentOf(t.readyPower, t.totalPower)}% of the voting power ` +
        `(${t.readyPower} of ${t.totalPower}) is ready: the chain resumes after the halt only once more than 2/3 runs the new binary`,
    );
  }
  if (t.appHashesDisagree) {
    const heights = [...new Set(t.appHashGroups.map((g) => g.snapshotHeight))].filter((h) => t.appHashGroups.filter((g) => g.snapshotHeight === h).length > 1);
    for (const h of heights) {
      const groups = t.appHashGroups.filter((g) => g.snapshotHeight === h);
      out.push(
        `rehearsals of upgrade "${t.planName}" on the state of height ${h} disagree on the app hash (${groups.length} groups: ` +
          groups.map((g) => `${percentOf(g.power, t.totalPower)}% ${hexShort(g.appHash)}`).join(", ") +
          "): the upgrade is not deterministic on every validator, or they run different binaries",
      );
    }
  }
  return out;
}

const hexShort = (b: Uint8Array) => {
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
  return `${h.slice(0, 8)}…`;
};
