/**
 * Every transaction the load sent, accounted for against the blocks: committed exactly once (in a block, with
 * the height its client was told), or its client told plainly where it stood at the halt (refused for the
 * halt, an UpgradeHaltError, superseded), or never taken by any node and its client told the broadcast failed
 * (a node that did not answer) — an accepted transaction in no block whose client was not told plainly is
 * silently lost; more than one block holding it is a duplicate.
 */
import { sha256 } from "@cosmjs/crypto";
import type { SentTx } from "../../../support/tx-load.js";

export interface BlockTx {
  height: number;
  txhash: string;
  code: number;
}

export interface TxFigures {
  sent: number;
  /** CheckTx took them. */
  accepted: number;
  /** In exactly one block. */
  committed: number;
  /** Their client was told a halt (or a refusal for it) and they were committed after the switch all the same (a kept mempool). */
  told_then_committed: number;
  /** In no block, and their client was told so plainly: refused for the halt, an UpgradeHaltError, superseded. */
  dropped_and_told: number;
  /** Refused by CheckTx for another reason (e.g. a vote on a finished proposal): in no block, told so. */
  refused: number;
  /** Never accepted (no node answered the broadcast) and in no block: its client was told the broadcast failed. */
  not_sent: number;
  /** In no block, and their client was not told plainly (a timeout, a bare network error). */
  silently_lost: number;
  /** In more than one block. */
  duplicated: number;
  /** Their client was told a height no block holds them at. */
  wrong_height: number;
  /** Committed with a non-zero code (their messages failed, deterministically). */
  failed_in_block: number;
  /** From broadcast to the client knowing the height, for the transactions whose client learnt it: p50 and p99 (ms). */
  latency_p50_ms: number;
  latency_p99_ms: number;
  /** The same for those whose wait spanned the first halt. */
  across_halt: number;
  across_halt_p50_ms: number;
  across_halt_p99_ms: number;
}

const quantile = (xs: number[], q: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

/** The transactions of blocks `from`..`to` with their results, from a node's RPC. */
export async function blockTxs(rpcUrl: string, from: number, to: number): Promise<BlockTx[]> {
  const out: BlockTx[] = [];
  const get = async <T>(method: string, height: number): Promise<T> => {
    const res = await fetch(`${rpcUrl}/${method}?height=${height}`, { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { result?: T; error?: unknown };
    if (!body.result) throw new Error(`${method} ${height} at ${rpcUrl}: ${JSON.stringify(body.error)}`);
    return body.result;
  };
  for (let h = from; h <= to; h++) {
    const [b, r] = await Promise.all([
      get<{ block: { data: { txs: string[] | null } } }>("block", h),
      get<{ txs_results: { code?: number }[] | null }>("block_results", h),
    ]);
    const txs = b.block.data.txs ?? [];
    for (const [i, tx] of txs.entries()) {
      out.push({
        height: h,
        txhash: Buffer.from(sha256(Buffer.from(tx, "base64")))
          .toString("hex")
          .toUpperCase(),
        code: r.txs_results?.[i]?.code ?? 0,
      });
    }
  }
  return out;
}

/** Accounts for every transaction sent (see the module comment); `haltAt` is the first halt (ms since the epoch). */
export function accountTxs(sent: readonly SentTx[], blocks: readonly BlockTx[], haltAt: number): TxFigures & { lost: SentTx[] } {
  const where = new Map<string, BlockTx[]>();
  for (const b of blocks) where.set(b.txhash, [...(where.get(b.txhash) ?? []), b]);
  const f: TxFigures = {
    sent: sent.length,
    accepted: 0,
    committed: 0,
    told_then_committed: 0,
    dropped_and_told: 0,
    refused: 0,
    not_sent: 0,
    silently_lost: 0,
    duplicated: 0,
    wrong_height: 0,
    failed_in_block: 0,
    latency_p50_ms: 0,
    latency_p99_ms: 0,
    across_halt: 0,
    across_halt_p50_ms: 0,
    across_halt_p99_ms: 0,
  };
  const lost: SentTx[] = [];
  const latency: number[] = [];
  const across: number[] = [];
  for (const t of sent) {
    if (t.accepted) f.accepted++;
    const inBlocks = where.get(t.txhash) ?? [];
    if (inBlocks.length > 1) f.duplicated++;
    const toldHalt = t.told.kind === "halt" || (t.told.kind === "refused" && t.told.halt) || t.told.kind === "superseded";
    if (inBlocks.length >= 1) {
      f.committed++;
      if (inBlocks[0].code !== 0) f.failed_in_block++;
      if (toldHalt) f.told_then_committed++;
      const told = t.told;
      if (told.kind === "included") {
        if (!inBlocks.some((b) => b.height === told.height)) f.wrong_height++;
        latency.push(t.doneAt - t.sentAt);
        if (t.sentAt < haltAt && t.doneAt > haltAt) across.push(t.doneAt - t.sentAt);
      }
      continue;
    }
    if (t.told.kind === "included") {
      f.wrong_height++;
      lost.push(t);
    } else if (toldHalt) f.dropped_and_told++;
    else if (t.told.kind === "refused") f.refused++;
    else if (!t.accepted) f.not_sent++;
    else {
      f.silently_lost++;
      lost.push(t);
    }
  }
  f.latency_p50_ms = quantile(latency, 0.5);
  f.latency_p99_ms = quantile(latency, 0.99);
  f.across_halt = across.length;
  f.across_halt_p50_ms = quantile(across, 0.5);
  f.across_halt_p99_ms = quantile(across, 0.99);
  return { ...f, lost };
}
