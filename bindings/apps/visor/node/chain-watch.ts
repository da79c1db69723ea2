/**
 * What the visor asks the running node (docs/spec/sidecar.md §11), every `DAEMON_RPC_POLL_INTERVAL` over
 * `DAEMON_RPC_ADDRESS`:
 *
 * - after a switch, its height, until the new binary has committed the upgrade height: then the
 *   `first_block` stage, and the upgrade's done marker (`upgrades/<dir>/.xupgrade-done.json`), which the
 *   reconciliation at the next start reads;
 * - when someone listens (webhooks, metrics): its height, and the chain's scheduled plan (CurrentPlan), told
 *   as `plan_seen` once per plan.
 *
 * An unreachable node is "not yet", never an error.
 */
import { join } from "node:path";
import { writeFileAtomic } from "../../../base/file.js";
import type { VisorEvents } from "../telling/events.js";
import type { Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { chainPlan, nodeHeight } from "./node-rpc.js";
import { DONE_MARKER } from "../reconcile.js";
import { Poller } from "./poller.js";

export interface ChainWatchOptions {
  rpcAddress: string;
  intervalMs: number;
  layout: Layout;
  log: VisorLogger;
  events: VisorEvents;
}

export class ChainWatch {
  private awaiting: { name: string; height: bigint } | undefined;
  private lastPlan = "";
  private readonly poller: Poller;

  constructor(private readonly o: ChainWatchOptions) {
    this.poller = new Poller(o.intervalMs, () => this.look());
  }

  /** After a switch to `plan`: watch for the new binary's first block. */
  expectFirstBlock(plan: { name: string; height: bigint }): void {
    this.awaiting = { name: plan.name, height: plan.height };
  }

  /** Polls while the node runs (call again after each start). */
  start(): void {
    this.stop();
    if (!this.awaiting && !this.o.events.listened) return;
    this.poller.start();
  }

  stop(): void {
    this.poller.stop();
  }

  /** One look at the node (exposed for tests). */
  tick(): Promise<void> {
    return this.poller.tick();
  }

  private async look(): Promise<void> {
    const h = await nodeHeight(this.o.rpcAddress, Math.min(2000, this.o.intervalMs));
    if (h !== undefined) this.o.events.emit("node_height", undefined, { height: Number(h) });
    const want = this.awaiting;
    if (want && h !== undefined && h >= want.height) {
      this.awaiting = undefined;
      await this.done(want, h);
    }
    if (this.o.events.listened) await this.lookAtPlan();
    if (!this.awaiting && !this.o.events.listened) this.stop();
  }

  private async done(plan: { name: string; height: bigint }, h: bigint): Promise<void> {
    const record = { name: plan.name, height: plan.height.toString(), first_block_height: h.toString(), at: new Date().toISOString() };
    try {
      await writeFileAtomic(join(this.o.layout.upgradeDir(plan.name), DONE_MARKER), JSON.stringify(record) + "\n", { mode: 0o644 });
    } catch (e) {
      this.o.log.warn("cannot write the upgrade's done marker", { err: (e as Error).message });
    }
    this.o.log.info(`upgrade "${plan.name}" done: the new binary committed height ${h}`);
    this.o.events.emit("first_block", plan, { height: Number(h) });
  }

  private async lookAtPlan(): Promise<void> {
    let plan;
    try {
      plan = await chainPlan(this.o.rpcAddress, Math.min(5000, this.o.intervalMs));
    } catch {
      return;
    }
    if (!plan) return;
    const key = `${plan.name}@${plan.height}|${plan.info}`;
    if (key === this.lastPlan) return;
    this.lastPlan = key;
    this.o.log.info(`scheduled upgrade "${plan.name}" at height ${plan.height} seen on the chain`);
    this.o.events.emit("plan_seen", plan, { info: plan.info });
  }
}
