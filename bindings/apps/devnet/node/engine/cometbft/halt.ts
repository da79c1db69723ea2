/**
 * After a consensus halt at height H (docs/spec/keeper.md §6.2) the node stays up: CometBFT's consensus
 * has stopped, but its p2p still carries this node's votes and block to the other validators. This tells
 * when that is no longer needed: every persistent peer is known, through this node's CometBFT
 * (`/dump_consensus_state`), to hold the decision for H — at a height above H, or at H in the commit step
 * with every part of the block this node committed. Such a peer finalizes H without this node's help. A
 * peer is remembered once seen so, even after it goes away (it may have halted and stopped first).
 */
import { sleep } from "../../../../../base/sleep.js";

/** CometBFT's RoundStepCommit (consensus/types/round_state.go). */
const STEP_COMMIT = 8;

export interface DecisionWatch {
  /** `http://host:port` of this node's CometBFT RPC. */
  rpcUrl: string;
  /** Node ids of the persistent peers (config.toml `[p2p] persistent_peers`). */
  peers: readonly string[];
  /** The height consensus stopped at. */
  height: bigint;
  signal: AbortSignal;
  pollMs?: number;
}

/**
 * `done` resolves once every peer holds the decision for the height (at once when there are none), and
 * never rejects; `missing()` names the peers not seen holding it so far.
 */
export function watchDecision(o: DecisionWatch): { done: Promise<void>; missing(): string[] } {
  const holding = new Set<string>();
  const done = (async () => {
    let block: string | undefined;
    while (!o.signal.aborted) {
      block ??= await blockPartsHash(o.rpcUrl, o.height);
      const dump = block === undefined ? undefined : await dumpConsensusState(o.rpcUrl);
      if (dump) for (const id of holdingDecision(dump, o.height, block!)) holding.add(id);
      if (o.peers.every((id) => holding.has(id))) return;
      await sleep(o.pollMs ?? 250);
    }
  })();
  return { done, missing: () => o.peers.filter((id) => !holding.has(id)) };
}

interface PeerDump {
  node_address?: unknown;
  peer_state?: {
    round_state?: { height?: unknown; step?: unknown; proposal_block_part_set_header?: { total?: unknown; hash?: unknown }; proposal_block_parts?: unknown };
  };
}

interface ConsensusDump {
  peers?: PeerDump[];
}

async function rpcResult<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return ((await res.json()) as { result?: T }).result;
  } catch {
    return undefined;
  }
}

const dumpConsensusState = (rpcUrl: string) => rpcResult<ConsensusDump>(`${rpcUrl}/dump_consensus_state`);

/** The part set hash of the block this node stored at `height` (the one consensus decided). */
async function blockPartsHash(rpcUrl: string, height: bigint): Promise<string | undefined> {
  const r = await rpcResult<{ block_id?: { parts?: { hash?: unknown } } }>(`${rpcUrl}/block?height=${height}`);
  const hash = r?.block_id?.parts?.hash;
  return typeof hash === "string" && hash !== "" ? hash : undefined;
}

/** Ids of the peers that hold the decision for `height` (the block whose parts hash to `ours`), by this node's view of them. */
export function holdingDecision(dump: ConsensusDump, height: bigint, ours: string): string[] {
  const out: string[] = [];
  for (const p of dump.peers ?? []) {
    const id = typeof p.node_address === "string" ? p.node_address.split("@")[0] : "";
    const rs = p.peer_state?.round_state;
    if (!id || !rs || typeof rs.height !== "string" || !/^\d+$/.test(rs.height)) continue;
    const h = BigInt(rs.height);
    if (h > height) {
      out.push(id);
      continue;
    }
    const parts = rs.proposal_block_parts;
    const header = rs.proposal_block_part_set_header;
    const whole = typeof parts === "string" && parts.length > 0 && !parts.includes("_") && String(parts.length) === String(header?.total);
    if (h === height && rs.step === STEP_COMMIT && whole && header?.hash === ours) out.push(id);
  }
  return out;
}
