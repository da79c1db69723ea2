/**
 * Deciding when `data/upgrade-info.json` calls for an upgrade (docs/spec/sidecar.md §5.1–§5.2).
 *
 * - Change detection: the file's (mtime, ctime, size, inode) differs from the last parsed version.
 * - An empty, partial or invalid file is never fatal (D6 #3): logged once per distinct content, and the
 *   watch state does not advance, so the next tick parses it again.
 * - Trigger: on the first successful read, a name other than the current upgrade's; afterwards a height
 *   above the last one seen. Heights in the node's `--unsafe-skip-upgrades` are ignored (the node is not
 *   stopped).
 * - Keeper-written plans are trusted; only a file equal to the visor's own manual record waits for the
 *   node's height over RPC (an unreachable node means "not yet").
 */
import { isManual, planFromText, readManualRecord, readText, sameStamp, stampOf, type Stamp, type VisorPlan } from "./info-file.js";
import type { Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { sameName } from "../names.js";

export interface WatchOptions {
  layout: Layout;
  log: VisorLogger;
  skip: readonly bigint[];
  /** The node's latest height, undefined when it cannot be asked. */
  nodeHeight: () => Promise<bigint | undefined>;
}

export class InfoWatcher {
  private stamp: Stamp | undefined;
  private seenHeight: bigint | undefined;
  private lastProblem: string | undefined;
  private skipped = new Set<bigint>();
  /** A fresh plan not carried out yet (a manual plan waiting for its height). */
  private gated: VisorPlan | undefined;
  private announced: string | undefined;
  /** The current upgrade's name (kept up to date by the run loop). */
  currentName = "";
  /** Whether the last read found a file it could not use (empty, partial, invalid). */
  lastReadFailed = false;

  constructor(private readonly o: WatchOptions) {}

  /** Reads and validates the file; undefined when missing or invalid (logged once per distinct content). */
  async read(): Promise<VisorPlan | undefined> {
    const path = this.o.layout.infoFile;
    this.lastReadFailed = true;
    let text: string | undefined;
    try {
      text = await readText(path);
    } catch (e) {
      this.problem(`error while reading upgrade-info.json: ${(e as Error).message}`, "io");
      return undefined;
    }
    if (text === undefined) {
      this.lastReadFailed = false;
      return undefined;
    }
    try {
      const plan = planFromText(text, path, this.o.layout.cfg.disableRecase);
      this.lastProblem = undefined;
      this.lastReadFailed = false;
      return plan;
    } catch (e) {
      this.problem((e as Error).message, text);
      return undefined;
    }
  }

  private problem(message: string, content: string): void {
    const key = `${message}\0${content}`;
    if (key === this.lastProblem) return;
    this.lastProblem = key;
    this.o.log.error("invalid upgrade-info.json, retrying on the next check", { err: message });
  }

  private isSkipped(plan: VisorPlan): boolean {
    if (!this.o.skip.includes(plan.height)) return false;
    if (!this.skipped.has(plan.height)) {
      this.skipped.add(plan.height);
      this.o.log.info(`upgrade "${plan.name}" at height ${plan.height} is skipped (--unsafe-skip-upgrades): not stopping the node`);
    }
    return true;
  }

  /** A manual plan waits for the node's height; everything else is trusted. */
  private async gateOpen(plan: VisorPlan): Promise<boolean> {
    if (!isManual(plan, await readManualRecord(this.o.layout.manualRecord))) return true;
    const h = await this.o.nodeHeight();
    if (h !== undefined && h >= plan.height) return true;
    const key = `${plan.name}@${plan.height}`;
    if (this.announced !== key) {
      this.announced = key;
      this.o.log.info(`manual upgrade "${plan.name}" waits for height ${plan.height}`, { node_height: h === undefined ? "unknown" : h });
    }
    return false;
  }

  /**
   * docs/spec/sidecar.md §5.1: the plan to carry out before (re)starting the node — valid, not the current upgrade, not skipped,
   * and (manual plans) its height reached.
   */
  async pending(): Promise<VisorPlan | undefined> {
    const plan = await this.read();
    if (!plan || sameName(plan.name, this.currentName) || this.isSkipped(plan)) return undefined;
    return (await this.gateOpen(plan)) ? plan : undefined;
  }

  /** One watch tick while the node runs: the plan that should stop it, if any. */
  async tick(): Promise<VisorPlan | undefined> {
    const stamp = await stampOf(this.o.layout.infoFile).catch(() => undefined);
    if (!stamp) {
      this.gated = undefined;
      return undefined;
    }
    if (!sameStamp(stamp, this.stamp)) {
      const plan = await this.read();
      if (!plan) return undefined; // the stamp is not advanced: the same file is parsed again next time
      this.stamp = stamp;
      this.gated = undefined;
      const fresh = this.seenHeight === undefined ? !sameName(plan.name, this.currentName) : plan.height > this.seenHeight;
      if (!fresh || this.isSkipped(plan)) {
        this.seenHeight = plan.height;
        return undefined;
      }
      this.gated = plan;
    }
    const plan = this.gated;
    if (!plan || !(await this.gateOpen(plan))) return undefined;
    this.gated = undefined;
    this.seenHeight = plan.height;
    return plan;
  }

  /**
   * After a start that runs the node although the file names another plan (too early for it, or skipped):
   * that file, as it is, is not an upgrade; a rewrite of it with a height above `height` is.
   */
  async prime(height: bigint): Promise<void> {
    this.stamp = await stampOf(this.o.layout.infoFile).catch(() => undefined);
    this.seenHeight = height;
    this.gated = undefined;
  }

  /** After a switch: the plan is the current upgrade and its height the last seen. */
  upgraded(plan: VisorPlan): void {
    this.currentName = plan.name;
    this.seenHeight = plan.height;
    this.gated = undefined;
  }
}
