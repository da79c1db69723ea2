/**
 * Broadcasting a signed transaction and following it into a block, across an upgrade halt
 * (docs/spec/interfaces.md §7.3). `broadcast_tx_sync`, then `tx` until a block holds it; meanwhile the chain's
 * state tells a halt for an upgrade apart from a node that is merely slow or down:
 *
 * - the chain halted before the broadcast (or the node refused the transaction for the halt): nothing is sent;
 * - accepted, then the chain halted: the transaction is in block H (executed when the chain resumes), or it
 *   waits in mempools a restarting node may drop; a node that stops meanwhile is switching binaries.
 *
 * Without `waitUpgradeMs` each of these ends at once in an UpgradeHaltError saying so. With it, the client
 * waits for the chain to resume on the new binary, then broadcasts — or rebroadcasts the very same bytes, so
 * the same sequence: the chain applies it at most once — and follows it into a block. A rebroadcast refused
 * for its sequence is looked up again: committed (its own earlier copy), or superseded by another
 * transaction with that sequence.
 */
import { sha256 } from "@cosmjs/crypto";
import { sleep } from "../base/sleep.js";
import { ClientError } from "./errors.js";
import { type CometRpc, RpcError, int, obj } from "./rpc.js";
import { InclusionTimeoutError, TxRefusedError, TxSupersededError, UpgradeHaltError, type HaltStage } from "./tx-errors.js";
import { haltView, isHaltedTx, type HaltView, type UpgradePlanRef } from "./upgrade-halt.js";

export interface BroadcastOptions {
  /** How long to wait for a block to hold the transaction while the chain runs (ms). */
  timeoutMs: number;
  /**
   * How long to wait through an upgrade halt, from when it is seen, for the chain to resume and (re)take the
   * transaction (ms). 0 or absent: stop at the halt, saying where the transaction stands.
   */
  waitUpgradeMs?: number;
  /** Told what the client sees and does while it waits (the CLI prints it on stderr). */
  onProgress?: (e: BroadcastProgress) => void;
  /** How often `tx` is asked (default 250 ms). */
  pollMs?: number;
  /** How often the chain's state is asked while the transaction is pending (default 1 s), and how long a halt is watched before it is believed. */
  haltPollMs?: number;
}

export type BroadcastProgress =
  /** The node's CheckTx took it (or already had it). */
  | { kind: "accepted"; txhash: string }
  | { kind: "halted"; plan: UpgradePlanRef; stage: HaltStage }
  | { kind: "node-down"; plan: UpgradePlanRef }
  | { kind: "resumed"; plan: UpgradePlanRef; height: bigint }
  | { kind: "rebroadcast"; txhash: string; outcome: "accepted" | "already-known" | "sequence-used" };

export interface TxIncluded {
  txhash: string;
  height: bigint;
  /** The `tx_result` of the `tx` answer (code, codespace, log, data, events). */
  result: Record<string, unknown>;
}

/** Consecutive failed `tx` lookups (other than "not found") tolerated outside a halt: a node restarting, a proxy hiccup. */
const MAX_FAILURES = 5;
/** After a rebroadcast refused for its sequence: how many blocks the node's index gets to show the earlier copy. */
const SUPERSEDED_AFTER_BLOCKS = 3n;

const hexUpper = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

/** Broadcasts `txBytes` and resolves once a block holds it; see the module comment for how it ends otherwise. */
export async function broadcastTx(rpc: CometRpc, txBytes: Uint8Array, o: BroadcastOptions): Promise<TxIncluded> {
  return new TxFollower(rpc, txBytes, o).run();
}

type SendOutcome = "accepted" | "already-known" | "sequence-used";
/** What `send` returns besides an outcome: refused for the halt (when waiting), or the node did not answer (`unreachable` holds why). */
type NotSent = "halted" | "unreachable";
/**
 * How close to the plan's height (in blocks) the chain's state is watched at every `tx` poll, and a node going
 * quiet is taken for the halt (its height seen last may be a block or two behind: the halt comes fast).
 */
const NEAR_BLOCKS = 10n;

class TxFollower {
  readonly txhash: string;
  private readonly b64: string;
  private readonly wait: boolean;
  private readonly pollMs: number;
  private readonly haltPollMs: number;
  /** The plan the node had scheduled when last asked. */
  private plan: UpgradePlanRef | undefined;
  private lastHeight = 0n;
  /** When the halt was first seen (the wait for the switch counts from here). */
  private haltSince: number | undefined;
  private stage: HaltStage = "mempool";
  private lookupAsBase64 = false;
  /** Why the last broadcast reached no node. */
  private unreachable: ClientError | undefined;

  constructor(
    private readonly rpc: CometRpc,
    txBytes: Uint8Array,
    private readonly o: BroadcastOptions,
  ) {
    this.txhash = hexUpper(sha256(txBytes));
    this.b64 = Buffer.from(txBytes).toString("base64");
    this.wait = (o.waitUpgradeMs ?? 0) > 0;
    this.pollMs = o.pollMs ?? 250;
    this.haltPollMs = o.haltPollMs ?? 1000;
  }

  async run(): Promise<TxIncluded> {
    // A chain halted for an upgrade takes nothing (a Go node would take it into a mempool it loses at the switch).
    let before = await this.view(true);
    // Waiting through an upgrade, a node that does not answer yet (its binary being switched) is waited for too.
    if (!before && this.wait) before = await this.untilAnswering();
    if (before?.halted) await this.untilResumed("not-sent");
    for (;;) {
      const sent = await this.send(false);
      if (sent === "halted") {
        await this.untilResumed("not-sent");
        continue;
      }
      if (sent === "unreachable") {
        // The node went away right at the upgrade height: it halted and is being switched.
        if (!this.nearHalt(NEAR_BLOCKS)) throw this.unreachable!;
        await this.untilResumed("node-down");
        await this.rebroadcast(() => undefined);
      }
      break;
    }
    return this.follow();
  }

  /** The node's height and plan (and whether it is halted, confirmed when asked); undefined when it does not answer. */
  private async view(confirm = false): Promise<HaltView | undefined> {
    try {
      const v = await haltView(this.rpc, { confirm, recheckMs: this.haltPollMs });
      this.lastHeight = v.height;
      this.plan = v.plan ?? this.plan;
      return v;
    } catch (e) {
      if (e instanceof ClientError) return undefined;
      throw e;
    }
  }

  /** broadcast_tx_sync: accepted (or already known to the node), refused for the halt, unreachable, or — on a rebroadcast — its sequence used. */
  private async send(rebroadcast: boolean): Promise<SendOutcome | NotSent> {
    let res: Record<string, unknown>;
    try {
      res = await this.rpc.call("broadcast_tx_sync", { tx: this.b64 });
    } catch (e) {
      if (e instanceof ClientError && !(e instanceof RpcError)) {
        this.unreachable = e;
        return "unreachable";
      }
      // CometBFT's mempool cache: the same bytes are already there (a node that kept its mempool, or gossip).
      if (e instanceof RpcError && /already exists in cache/i.test(`${e.data} ${e.rpcMessage}`)) {
        this.o.onProgress?.({ kind: "accepted", txhash: this.txhash });
        return "already-known";
      }
      throw e;
    }
    const code = typeof res.code === "number" ? res.code : undefined;
    if (code === undefined) throw this.rpc.garbage("broadcast_tx_sync", "code is not a number");
    const codespace = typeof res.codespace === "string" ? res.codespace : "";
    const log = typeof res.log === "string" ? res.log : "";
    if (code === 0) {
      this.o.onProgress?.({ kind: "accepted", txhash: this.txhash });
      return "accepted";
    }
    if (isHaltedTx({ code, codespace })) {
      const plan = planFromLog(log) ?? this.plan;
      if (plan) this.plan = plan;
      if (!this.wait) throw new UpgradeHaltError("not-sent", this.txhash, this.planOrUnknown());
      return "halted";
    }
    // sdk 32 (incorrect account sequence), sdk 19 (already in the mempool): on a rebroadcast, where is the first copy?
    if (rebroadcast && codespace === "sdk" && (code === 32 || code === 19)) return code === 19 ? "already-known" : "sequence-used";
    throw new TxRefusedError(code, codespace, log);
  }

  private planOrUnknown(): UpgradePlanRef {
    return this.plan ?? { name: "", height: this.lastHeight };
  }

  /** Waits (when allowed) for the chain to resume past the plan's height; throws the halt when not waiting or when the wait runs out. */
  private async untilResumed(stage: HaltStage): Promise<void> {
    this.stage = stage;
    this.haltSince ??= Date.now();
    const plan = this.planOrUnknown();
    if (!this.wait) throw new UpgradeHaltError(stage, this.txhash, plan);
    this.o.onProgress?.({ kind: "halted", plan, stage });
    let down = false;
    for (;;) {
      this.checkWaitLeft();
      await sleep(this.haltPollMs);
      const v = await this.view();
      if (!v) {
        if (!down) this.o.onProgress?.({ kind: "node-down", plan: this.planOrUnknown() });
        down = true;
        continue;
      }
      down = false;
      if (!v.halted && v.height > plan.height) {
        this.o.onProgress?.({ kind: "resumed", plan, height: v.height });
        this.haltSince = undefined;
        return;
      }
    }
  }

  /** With --wait-upgrade, a node that does not answer at the start: waited for as long, then asked again. */
  private async untilAnswering(): Promise<HaltView | undefined> {
    const end = Date.now() + (this.o.waitUpgradeMs ?? 0);
    this.o.onProgress?.({ kind: "node-down", plan: this.planOrUnknown() });
    for (;;) {
      await sleep(this.haltPollMs);
      const v = await this.view(true);
      if (v || Date.now() > end) return v;
    }
  }

  private checkWaitLeft(): void {
    const waited = Date.now() - (this.haltSince ?? Date.now());
    if (waited > (this.o.waitUpgradeMs ?? 0)) throw new UpgradeHaltError(this.stage, this.txhash, this.planOrUnknown(), waited);
  }

  /** Polls `tx` until a block holds it, watching the chain's state for a halt. */
  private async follow(): Promise<TxIncluded> {
    let deadline = Date.now() + this.o.timeoutMs;
    let lastView = Date.now();
    let failures = 0;
    let lastError: unknown;
    /** Set after a rebroadcast refused for its sequence: by this height the earlier copy is indexed, or there is none. */
    let supersededAt: { height: bigint; log: string } | undefined;
    for (;;) {
      const found = await this.lookup().catch((e: unknown) => {
        if (!(e instanceof ClientError)) throw e;
        lastError = e;
        return "failed" as const;
      });
      if (typeof found === "object") return found;
      failures = found === "failed" ? failures + 1 : 0;
      if (found === "failed" || this.nearHalt(NEAR_BLOCKS) || Date.now() - lastView >= this.haltPollMs) {
        lastView = Date.now();
        const v = await this.view();
        if (!v) {
          if (this.nearHalt(NEAR_BLOCKS)) {
            // The node stopped near the upgrade height: it halted and its binary is being switched.
            await this.untilResumed("node-down");
            await this.rebroadcast((h) => (supersededAt = h));
            deadline = Date.now() + this.o.timeoutMs;
          } else if (failures >= MAX_FAILURES) throw lastError;
        } else if (v.halted) {
          const confirmed = await this.view(true);
          // A block before H may hold it, indexed since the last look.
          const late = confirmed?.halted ? await this.lookup().catch(() => "missing" as const) : "missing";
          if (typeof late === "object") return late;
          if (confirmed?.halted) {
            const stage: HaltStage = (await this.inBlock(confirmed.plan!.height)) ? "halt-block" : "mempool";
            await this.untilResumed(stage);
            if (stage === "mempool") await this.rebroadcast((h) => (supersededAt = h));
            deadline = Date.now() + this.o.timeoutMs;
          }
        } else if (supersededAt && v.height >= supersededAt.height) {
          if (typeof (await this.lookup()) === "object") continue;
          throw new TxSupersededError(this.txhash, supersededAt.log);
        }
      }
      if (Date.now() > deadline) throw new InclusionTimeoutError(this.txhash);
      await sleep(this.pollMs);
    }
  }

  /** The chain is within `blocks` of the plan's height (at it, when the node halted there). */
  private nearHalt(blocks: bigint): boolean {
    return this.plan !== undefined && this.lastHeight + blocks >= this.plan.height && this.lastHeight <= this.plan.height;
  }

  /** After the switch: the same bytes again, unless a block already holds them. */
  private async rebroadcast(superseded: (at: { height: bigint; log: string }) => void): Promise<void> {
    const giveUp = Date.now() + this.o.timeoutMs;
    for (;;) {
      const held = await this.lookup().catch((e: unknown) => {
        if (e instanceof ClientError && !(e instanceof RpcError)) return "unreachable" as const;
        throw e;
      });
      if (typeof held === "object") return;
      const outcome = held === "unreachable" ? held : await this.send(true);
      if (outcome === "unreachable") {
        // A node whose RPC answers status but not yet the rest (starting): try again for a while.
        if (Date.now() > giveUp) throw this.unreachable ?? new ClientError(`cannot reach node ${this.rpc.label}`);
        await sleep(this.pollMs);
        continue;
      }
      if (outcome === "halted") {
        await this.untilResumed("not-sent");
        continue;
      }
      this.o.onProgress?.({ kind: "rebroadcast", txhash: this.txhash, outcome });
      if (outcome === "sequence-used") superseded({ height: this.lastHeight + SUPERSEDED_AFTER_BLOCKS, log: "incorrect account sequence" });
      return;
    }
  }

  /** Whether block `h` (the one the chain halted on) holds the transaction. */
  private async inBlock(h: bigint): Promise<boolean> {
    try {
      const res = await this.rpc.call("block", { height: h.toString() });
      const txs = obj(this.rpc, "block", obj(this.rpc, "block", res, "block"), "data").txs;
      return Array.isArray(txs) && txs.includes(this.b64);
    } catch (e) {
      if (e instanceof ClientError) return false;
      throw e;
    }
  }

  /** `tx` by hash: the inclusion, "missing" (not found), or it throws the node's failure. */
  private async lookup(): Promise<TxIncluded | "missing"> {
    let res: Record<string, unknown>;
    try {
      res = await this.rpc.call("tx", { hash: this.lookupAsBase64 ? Buffer.from(this.txhash, "hex").toString("base64") : "0x" + this.txhash, prove: false });
    } catch (e) {
      if (e instanceof RpcError && e.code === -32602 && !this.lookupAsBase64) {
        this.lookupAsBase64 = true; // a node that wants the hash as bytes
        return this.lookup();
      }
      if (e instanceof RpcError && /not found/i.test(`${e.data} ${e.rpcMessage}`)) return "missing";
      throw e;
    }
    return { txhash: this.txhash, height: int(this.rpc, "tx", res, "height"), result: obj(this.rpc, "tx", res, "tx_result") };
  }
}

/** The plan an xupgrade node names when it refuses a transaction for the halt (upgrade-halt.ts haltedTxLog). */
function planFromLog(log: string): UpgradePlanRef | undefined {
  const m = /^chain halted at height (\d+) for upgrade ("(?:[^"\\]|\\.)*")/.exec(log);
  if (!m) return undefined;
  try {
    return { height: BigInt(m[1]), name: JSON.parse(m[2]) as string };
  } catch {
    return undefined;
  }
}
