/**
 * The mempool across an upgrade switch (docs/spec/interfaces.md §7.3). CometBFT keeps its mempool in memory, so a
 * node restarted on the new binary has lost every transaction it had accepted and not yet put in a block —
 * as a Go chain's node does. The devnet keeps them:
 *
 * - the app knows its mempool: every transaction its CheckTx accepted, less those a block included and those
 *   a recheck refused (`PendingTxs`);
 * - when FinalizeBlock reaches the scheduled plan's height, before the block runs (so before the keeper writes
 *   upgrade-info.json, which a sidecar acts on at once), the pending transactions not in that block are
 *   written durably to `data/mempool-at-halt.json`;
 * - the next binary, once it serves and has itself committed that height (so it has applied the plan: a binary
 *   without the handler halts there), puts each back through its own CheckTx (`broadcast_tx_sync` to its
 *   CometBFT), then deletes the file.
 *
 * Why that is safe: a transaction comes back only through the new binary's CheckTx, under the new rules, and
 * one those rules refuse is dropped (logged); one already committed (in block H, or since, its client having
 * rebroadcast it) fails its account-sequence check — the same check DeliverTx makes — so none is applied
 * twice.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { exists, writeFileAtomic } from "../../../../../base/file.js";
import { messageOf } from "../../../../../base/errors.js";
import type { Logger } from "../../../../../base/logger.js";
import { hexUpper, sha256 } from "../../../shared/util.js";
import type { ChainState } from "../../../chain/state.js";

/** More than CometBFT's default mempool holds (5,000): the oldest go first beyond it. */
const MAX_PENDING = 10_000;

export const carryPath = (home: string): string => join(home, "data", "mempool-at-halt.json");

/** The transactions this node's CheckTx accepted that no block has included yet, oldest first. */
export class PendingTxs {
  private readonly txs = new Map<string, Uint8Array>();

  accepted(tx: Uint8Array): void {
    const hash = hexUpper(sha256(tx));
    this.txs.delete(hash);
    this.txs.set(hash, tx);
    if (this.txs.size > MAX_PENDING) this.txs.delete(this.txs.keys().next().value!);
  }

  /** A recheck refused it: CometBFT dropped it from its mempool. */
  refused(tx: Uint8Array): void {
    this.txs.delete(hexUpper(sha256(tx)));
  }

  /** A block included them. */
  included(txs: readonly Uint8Array[]): void {
    for (const tx of txs) this.txs.delete(hexUpper(sha256(tx)));
  }

  /** The pending transactions but those of `block`, oldest first. */
  except(block: readonly Uint8Array[]): Uint8Array[] {
    const skip = new Set(block.map((tx) => hexUpper(sha256(tx))));
    return [...this.txs].filter(([h]) => !skip.has(h)).map(([, tx]) => tx);
  }

  get size(): number {
    return this.txs.size;
  }
}

/** What CometApp's `carry` option does: keep before the plan's block (best effort, never a halt), drop when that block went through after all. */
export function mempoolKeeper(
  home: string,
  chainId: string,
  logger: Required<Logger>,
): { keep(height: bigint, txs: Uint8Array[]): Promise<boolean>; drop(): Promise<void> } {
  return {
    async keep(height, txs) {
      try {
        const wrote = await saveCarry(home, chainId, height, txs);
        if (wrote) logger.info("kept the mempool for the upgrade's block", { module: "mempool", height, txs: txs.length, path: carryPath(home) });
        return wrote;
      } catch (e) {
        logger.warn("could not keep the mempool for the upgrade's block", { module: "mempool", height, err: messageOf(e) });
        return false;
      }
    },
    drop: () => rm(carryPath(home), { force: true }),
  };
}

export interface Carry {
  chain_id: string;
  /** The plan's height: the block the node halted on. */
  height: string;
  /** Each transaction's bytes, base64. */
  txs: string[];
}

/**
 * Writes the carry for the halt at `height` (durably: fsync, then the directory's), unless there is nothing to
 * carry or a carry is already there (the new binary replaying that block keeps what the old one wrote).
 * Returns whether it wrote one.
 */
async function saveCarry(home: string, chainId: string, height: bigint, txs: readonly Uint8Array[]): Promise<boolean> {
  if (txs.length === 0 || (await exists(carryPath(home)))) return false;
  const carry: Carry = { chain_id: chainId, height: height.toString(), txs: txs.map((t) => Buffer.from(t).toString("base64")) };
  await writeFileAtomic(carryPath(home), JSON.stringify(carry) + "\n", { mode: 0o600 });
  return true;
}

/** The carry left by the halt, or undefined; a file that is not one is reported and set aside. */
async function loadCarry(home: string, chainId: string, logger: Required<Logger>): Promise<Carry | undefined> {
  let text: string;
  try {
    text = await readFile(carryPath(home), "utf8");
  } catch {
    return undefined;
  }
  try {
    const c = JSON.parse(text) as Carry;
    if (c.chain_id !== chainId || !/^[1-9][0-9]*$/.test(c.height) || !Array.isArray(c.txs) || c.txs.some((t) => typeof t !== "string"))
      throw new Error("not a carry of this chain");
    return c;
  } catch (e) {
    logger.warn("the mempool kept at the halt is unreadable: dropped", { module: "mempool", path: carryPath(home), err: messageOf(e) });
    await rm(carryPath(home), { force: true });
    return undefined;
  }
}

export interface Reinjected {
  kept: number;
  accepted: number;
  /** Refused by CheckTx: their reasons, with how many each. */
  refused: Record<string, number>;
}

/**
 * Puts the carried transactions back through this node's CheckTx (its CometBFT's `broadcast_tx_sync`, so
 * they also reach its mempool and its peers), then deletes the file.
 */
async function reinject(o: { home: string; rpcUrl: string; carry: Carry; logger: Required<Logger> }): Promise<Reinjected> {
  const out: Reinjected = { kept: o.carry.txs.length, accepted: 0, refused: {} };
  for (const tx of o.carry.txs) {
    const why = await broadcastOne(o.rpcUrl, tx);
    if (why === "") out.accepted++;
    else out.refused[why] = (out.refused[why] ?? 0) + 1;
  }
  await rm(carryPath(o.home), { force: true });
  o.logger.info("put the transactions kept at the halt back through CheckTx", {
    module: "mempool",
    height: o.carry.height,
    ...out,
    refused: JSON.stringify(out.refused),
  });
  return out;
}

/** "" when CheckTx accepted it, else why not (codespace and code, or the RPC's error). */
async function broadcastOne(rpcUrl: string, tx: string): Promise<string> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "broadcast_tx_sync", params: { tx } }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { result?: { code?: number; codespace?: string }; error?: { data?: string; message?: string } };
    if (body.error) return String(body.error.data ?? body.error.message ?? "error");
    const code = body.result?.code ?? 0;
    return code === 0 ? "" : `${body.result?.codespace ?? ""} ${code}`;
  } catch (e) {
    return messageOf(e);
  }
}

/**
 * After a switch: the transactions the old binary kept go back through this one's CheckTx, once this node has
 * committed the plan's height itself — so the binary that runs them applied the plan (one without the
 * handler halts there and never gets this far). Resolves once done (or never, on a node that does not reach
 * that height); never throws.
 */
export async function reinjectAfterSwitch(o: { home: string; state: ChainState; rpcUrl: string; logger: Required<Logger> }): Promise<Reinjected | undefined> {
  const { state, logger } = o;
  try {
    const carry = await loadCarry(o.home, state.chainId, logger);
    if (!carry) return undefined;
    const height = BigInt(carry.height);
    if (state.height < height) {
      await new Promise<void>((resolve) => {
        const off = state.onCommit((h) => {
          if (h < height) return;
          off();
          resolve();
        });
      });
    }
    return await reinject({ home: o.home, rpcUrl: o.rpcUrl, carry, logger });
  } catch (e) {
    logger.warn("could not put back the mempool kept at the halt", { module: "mempool", err: messageOf(e) });
    return undefined;
  }
}
