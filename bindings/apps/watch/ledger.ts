/**
 * Every alert the watch ever made and what became of each delivery (docs/spec/watch.md §6.3): an alert is written
 * here — to the state file, atomically — before any webhook is tried, with one delivery per webhook it is for; a
 * delivery is marked sent once its receiver answered 2xx (and written again). An id the ledger has is never made
 * again, so a restart neither repeats an alert nor loses one: deliveries still pending go out after it, in order.
 * Pure: the state file (./state.ts) persists it.
 */
import type { Alert } from "./alerts.js";

export type DeliveryState = "pending" | "sent" | "failed";

export interface Delivery {
  state: DeliveryState;
  attempts: number;
  /** ms */
  sentAt?: number;
  error?: string;
}

export interface LedgerEntry {
  /** The order alerts were made in (deliveries to one webhook keep it). */
  seq: number;
  alert: Alert;
  /** Webhook key → its delivery. */
  deliveries: Record<string, Delivery>;
}

export class Ledger {
  private readonly byId = new Map<string, LedgerEntry>();
  private next = 1;

  constructor(entries: readonly LedgerEntry[] = []) {
    for (const e of entries) {
      this.byId.set(e.alert.id, e);
      this.next = Math.max(this.next, e.seq + 1);
    }
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get entries(): LedgerEntry[] {
    return [...this.byId.values()].sort((a, b) => a.seq - b.seq);
  }

  /** Records a new alert with a pending delivery to each webhook key; the caller persists before sending. */
  add(alert: Alert, hooks: readonly string[]): LedgerEntry {
    // An invariant: dueAlerts asks `has` and makes no alert the ledger holds.
    if (this.byId.has(alert.id)) throw new Error(`alert ${alert.id} is already in the ledger`);
    const e: LedgerEntry = { seq: this.next++, alert, deliveries: Object.fromEntries(hooks.map((h) => [h, { state: "pending" as const, attempts: 0 }])) };
    this.byId.set(alert.id, e);
    return e;
  }

  /** The pending deliveries to a webhook, oldest first. */
  pending(hook: string): LedgerEntry[] {
    return this.entries.filter((e) => e.deliveries[hook]?.state === "pending");
  }

  update(id: string, hook: string, d: Delivery): void {
    const e = this.byId.get(id);
    if (e && e.deliveries[hook]) e.deliveries[hook] = d;
  }

  /** The alerts of a chain, oldest first. */
  ofChain(chain: string): LedgerEntry[] {
    return this.entries.filter((e) => e.alert.chain === chain);
  }
}
