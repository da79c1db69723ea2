/**
 * The stages of an upgrade as the visor lives them (docs/spec/sidecar.md §11), told to whoever listens: the
 * webhooks and the metrics, each loaded only when configured. With no listener an event costs a function call.
 *
 * | stage | when |
 * | --- | --- |
 * | `plan_seen` | the node's chain has a scheduled plan the visor had not seen (CurrentPlan over DAEMON_RPC_ADDRESS) |
 * | `binary_staged` | the plan's binary is in `upgrades/<dir>` (downloaded and verified, or found staged) |
 * | `rehearsal` | the new binary's rehearsal of the upgrade ended (`ok`, `exit_code`) |
 * | `halt` | the node halted at the plan's height (data/upgrade-info.json written) |
 * | `backup` | the data backup is complete (`seconds`, `bytes_copied`, `bytes_linked`) |
 * | `switch` | `current` points at the new binary |
 * | `first_block` | the new binary committed the upgrade height (the node's RPC says so) |
 * | `failure` | the upgrade stopped (`error`); nothing was switched |
 * | `rollback` | `visor rollback` restored the upgrade's backup and pointed `current` back (upgrade/rollback.ts) |
 */
export type Stage = "plan_seen" | "binary_staged" | "rehearsal" | "halt" | "backup" | "switch" | "first_block" | "failure" | "rollback";

export const STAGES: readonly Stage[] = ["plan_seen", "binary_staged", "rehearsal", "halt", "backup", "switch", "first_block", "failure", "rollback"];

/** What the metrics also follow, which is not a stage (no webhook): the node started, the node's height. */
export type Observation = "node_start" | "node_height";

export type EventKind = Stage | Observation;

export const isStage = (k: EventKind): k is Stage => (STAGES as readonly string[]).includes(k);

export interface PlanRef {
  name: string;
  height: bigint;
}

export interface VisorEvent {
  stage: EventKind;
  /** When it happened (ms since the epoch). */
  at: number;
  plan?: PlanRef;
  /** Stage-specific details (numbers, strings). */
  details: Record<string, string | number | boolean>;
}

export type Listener = (e: VisorEvent) => void;

export class VisorEvents {
  private readonly listeners: Listener[] = [];

  on(l: Listener): void {
    this.listeners.push(l);
  }

  get listened(): boolean {
    return this.listeners.length > 0;
  }

  emit(stage: EventKind, plan: PlanRef | undefined, details: VisorEvent["details"] = {}): void {
    if (this.listeners.length === 0) return;
    const e: VisorEvent = { stage, at: Date.now(), plan: plan && { name: plan.name, height: plan.height }, details };
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a listener never stops the upgrade
      }
    }
  }
}
