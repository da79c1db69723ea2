/**
 * A chain's calendar events from what the watch saw (docs/spec/watch.md §7): the scheduled plan from its ETA
 * band, TENTATIVE while the chain's trust root is unconfirmed; a plan that is gone unapplied, CANCELLED; an
 * applied one, kept with the summary saying so. Pure.
 */
import type { ChainMemory } from "./alerts.js";
import { eventUid, type CalendarEvent, type CalendarMemory } from "./ics.js";
import type { ChainSnapshot } from "./snapshot.js";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export function chainEvents(snap: ChainSnapshot, before: ChainMemory, published: CalendarMemory, url?: string): CalendarEvent[] {
  if (snap.status !== "verified" || !snap.chainId) return [];
  const chainId = snap.chainId;
  const out: CalendarEvent[] = [];
  const plan = snap.plan;
  if (plan && snap.eta) {
    const e = snap.eta;
    out.push({
      uid: eventUid(chainId, plan),
      chain: snap.name,
      summary: `${snap.name}: upgrade ${plan.name} at height ${plan.height}`,
      description:
        `Chain ${chainId} halts at height ${plan.height} for upgrade ${plan.name}.\n` +
        `Most likely at ${iso(e.p50)} (p50); between ${iso(e.p10)} and ${iso(e.p90)} (p10–p90, from ${e.analogs} stretches of the chain's verified header times).\n` +
        `Verified at header ${snap.header?.height} (${snap.header?.time})` +
        (snap.root && !snap.root.confirmed ? ".\nUNCONFIRMED trust root: verified only against the node's own first header." : "."),
      start: e.p10,
      end: e.p90,
      status: snap.root && !snap.root.confirmed ? "TENTATIVE" : "CONFIRMED",
      url,
    });
  }
  const old = before.plan;
  if (old && (!plan || plan.name !== old.name || String(plan.height) !== old.height)) {
    const uid = eventUid(chainId, old);
    const was = published[uid];
    if (was) {
      const applied = snap.applied?.name === old.name;
      if (applied) out.push({ ...was, summary: `${snap.name}: upgrade ${old.name} applied at height ${snap.applied!.height}`, status: "CONFIRMED" });
      else if (!snap.halted) out.push({ ...was, status: "CANCELLED" });
    }
  }
  return out;
}
