/**
 * The Prometheus text the visor serves at `/metrics` on its endpoint (docs/spec/sidecar.md §11.2), made by
 * prom-client from the visor's events: the plan and its height, the stage, the node's height, the current
 * upgrade, and the timings of the last upgrade (halt → switch → first block, the backup's time and bytes,
 * the download's). Loaded only when DAEMON_HTTP_ADDRESS is set.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import type { Route } from "./endpoint.js";
import { STAGES, type VisorEvent } from "./events.js";

const P = "xupgrade_visor_";

export class VisorMetrics {
  readonly registry = new Registry();
  private readonly plan = new Gauge({
    name: `${P}upgrade_plan`,
    help: "The plan the visor is following (its height as the value; 0 when none)",
    labelNames: ["name"],
    registers: [this.registry],
  });
  private readonly upgradeHeight = new Gauge({
    name: `${P}upgrade_height`,
    help: "The height of the plan the visor is following; 0 when none",
    registers: [this.registry],
  });
  private readonly stage = new Gauge({
    name: `${P}stage`,
    help: "1 for the stage the visor is in, 0 for the others",
    labelNames: ["stage"],
    registers: [this.registry],
  });
  private readonly stageTime = new Gauge({
    name: `${P}stage_timestamp_seconds`,
    help: "When each stage last happened (Unix time)",
    labelNames: ["stage"],
    registers: [this.registry],
  });
  private readonly nodeHeight = new Gauge({
    name: `${P}node_height`,
    help: "The node's latest block height, as its RPC last said",
    registers: [this.registry],
  });
  private readonly current = new Gauge({
    name: `${P}current_upgrade`,
    help: '1 for the upgrade `current` points at (genesis: "genesis")',
    labelNames: ["name"],
    registers: [this.registry],
  });
  private readonly haltToSwitch = new Gauge({
    name: `${P}halt_to_switch_seconds`,
    help: "The last upgrade: from the halt to the switch",
    registers: [this.registry],
  });
  private readonly haltToFirstBlock = new Gauge({
    name: `${P}halt_to_first_block_seconds`,
    help: "The last upgrade: from the halt to the new binary's first block",
    registers: [this.registry],
  });
  private readonly backupSeconds = new Gauge({ name: `${P}backup_seconds`, help: "The last data backup's duration", registers: [this.registry] });
  private readonly backupBytes = new Gauge({
    name: `${P}backup_bytes`,
    help: "The last data backup's bytes, copied or hard-linked",
    labelNames: ["how"],
    registers: [this.registry],
  });
  private readonly downloadSeconds = new Gauge({
    name: `${P}download_seconds`,
    help: "The last binary download's duration (verification and unpacking included)",
    registers: [this.registry],
  });
  private readonly downloadBytes = new Gauge({ name: `${P}download_bytes`, help: "The last binary download's size", registers: [this.registry] });
  private readonly upgrades = new Counter({ name: `${P}upgrades_total`, help: "Switches made by this visor process", registers: [this.registry] });
  private readonly failures = new Counter({ name: `${P}failures_total`, help: "Upgrades that stopped with an error", registers: [this.registry] });
  private readonly nodeStarts = new Counter({ name: `${P}node_starts_total`, help: "Times the visor started the node", registers: [this.registry] });
  private haltAt: number | undefined;
  private planKey = "";

  constructor(o: { currentUpgrade: string }) {
    collectDefaultMetrics({ register: this.registry, prefix: P });
    for (const s of ["running", ...STAGES]) this.stage.set({ stage: s }, s === "running" ? 1 : 0);
    this.setCurrent(o.currentUpgrade);
    this.upgradeHeight.set(0);
  }

  private setCurrent(name: string): void {
    this.current.reset();
    this.current.set({ name: name || "genesis" }, 1);
  }

  private setStage(stage: string): void {
    for (const s of ["running", ...STAGES]) this.stage.set({ stage: s }, s === stage ? 1 : 0);
  }

  /** Follows one event (an events.ts listener). */
  readonly observe = (e: VisorEvent): void => {
    const secs = e.at / 1000;
    if (e.plan) {
      const key = `${e.plan.name}@${e.plan.height}`;
      if (key !== this.planKey) {
        this.planKey = key;
        this.plan.reset();
        this.plan.set({ name: e.plan.name }, Number(e.plan.height));
      }
      this.upgradeHeight.set(Number(e.plan.height));
    }
    const d = e.details;
    switch (e.stage) {
      case "node_height":
        if (typeof d.height === "number") this.nodeHeight.set(d.height);
        return;
      case "node_start":
        this.nodeStarts.inc();
        return;
      case "halt":
        this.haltAt = e.at;
        break;
      case "backup":
        if (typeof d.seconds === "number") this.backupSeconds.set(d.seconds);
        if (typeof d.bytes_copied === "number") this.backupBytes.set({ how: "copied" }, d.bytes_copied);
        if (typeof d.bytes_linked === "number") this.backupBytes.set({ how: "linked" }, d.bytes_linked);
        break;
      case "binary_staged":
        if (d.source === "downloaded" && typeof d.seconds === "number") this.downloadSeconds.set(d.seconds);
        if (d.source === "downloaded" && typeof d.bytes === "number") this.downloadBytes.set(d.bytes);
        break;
      case "switch":
        this.upgrades.inc();
        if (e.plan) this.setCurrent(e.plan.name);
        if (this.haltAt !== undefined) this.haltToSwitch.set((e.at - this.haltAt) / 1000);
        break;
      case "first_block":
        if (this.haltAt !== undefined) this.haltToFirstBlock.set((e.at - this.haltAt) / 1000);
        if (typeof d.height === "number") this.nodeHeight.set(d.height);
        break;
      case "failure":
        this.failures.inc();
        break;
    }
    this.stageTime.set({ stage: e.stage }, secs);
    // After the first block the upgrade is over: the node is running.
    this.setStage(e.stage === "first_block" ? "running" : e.stage);
  };

  /** The `/metrics` route. */
  readonly route: Route = async () => ({ status: 200, type: this.registry.contentType, body: await this.registry.metrics() });
}
