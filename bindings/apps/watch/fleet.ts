/**
 * The fleet view's JSON (`GET /fleet.json`; docs/spec/watch.md §8): one row per chain, snake_case, heights as
 * strings, times as RFC 3339 — what the fleet page draws, whether `watch` serves it or the page follows the chains
 * itself (its static mode). Pure.
 */
import type { LedgerEntry } from "./ledger.js";
import type { ChainSnapshot } from "./snapshot.js";

const iso = (ms: number) => new Date(ms).toISOString();

export interface FleetRowJson {
  name: string;
  chain_id: string | null;
  status: ChainSnapshot["status"];
  failure: { check: string; height: string | null; message: string } | null;
  trust_root: {
    source: string;
    confirmed: boolean;
    origin: { how: string; node: string; height: string; hash: string; at: string };
    warning: string | null;
  } | null;
  witnesses: { without: boolean; confirmed: string[]; faulty: { witness: string; reason: string }[]; unavailable: { witness: string; reason: string }[] };
  header: { height: string; hash: string; time: string; age_ms: number; app_version: string } | null;
  /** null: no plan (its absence proven); undefined → "unknown" when nothing was verified. */
  plan: { name: string; height: string; info: string } | null | "unknown";
  halted: { height: string; upgrade: string; since: string } | null;
  applied: { name: string; height: string } | null;
  proposals: { id: string; name: string; height: string; voting_end: string | null; title: string }[];
  readiness: { ready_power: string; total_power: string; share: number; updated_height: string } | "none" | null;
  eta: { blocks_left: number; p10: string; p50: string; p90: string; method: string; analogs: number; span_ms: number } | null;
  history: { samples: number; span_ms: number; covered: boolean };
  alerts: { id: string; kind: string; title: string; at: string; late: boolean; sent: number; pending: number; failed: number }[];
  page: string | null;
  calendar: string;
  visor: { stage: string | null; current: string | null; node_height: number | null; problem: string | null } | null;
  at: string;
}

export interface FleetJson {
  generated_at: string;
  source: "watch" | "page";
  chains: FleetRowJson[];
}

export function fleetRow(s: ChainSnapshot, alerts: readonly LedgerEntry[], page?: string): FleetRowJson {
  const r = s.root;
  const count = (e: LedgerEntry, st: string) => Object.values(e.deliveries).filter((d) => d.state === st).length;
  return {
    name: s.name,
    chain_id: s.chainId ?? null,
    status: s.status,
    failure: s.failure ? { check: s.failure.check, height: s.failure.height?.toString() ?? null, message: s.failure.message } : null,
    trust_root: r
      ? {
          source: r.source,
          confirmed: r.confirmed,
          origin: { how: r.origin.how, node: r.origin.node, height: r.origin.height.toString(), hash: r.origin.hash, at: r.origin.at },
          warning: r.warning ?? null,
        }
      : null,
    witnesses: s.witnesses,
    header: s.header
      ? { height: s.header.height.toString(), hash: s.header.hash, time: s.header.time, age_ms: s.header.ageMs, app_version: s.header.appVersion.toString() }
      : null,
    plan: s.plan === undefined ? "unknown" : s.plan && { name: s.plan.name, height: s.plan.height.toString(), info: s.plan.info },
    halted: s.halted ? { height: s.halted.height.toString(), upgrade: s.halted.upgrade, since: iso(s.halted.sinceMs) } : null,
    applied: s.applied ? { name: s.applied.name, height: s.applied.height.toString() } : null,
    proposals: s.proposals.map((p) => ({
      id: p.id.toString(),
      name: p.plan.name,
      height: p.plan.height.toString(),
      voting_end: p.votingEnd ?? null,
      title: p.title,
    })),
    readiness:
      s.readiness === undefined
        ? null
        : s.readiness === "none"
          ? "none"
          : {
              ready_power: s.readiness.readyPower.toString(),
              total_power: s.readiness.totalPower.toString(),
              share: s.readiness.share,
              updated_height: s.readiness.updatedHeight.toString(),
            },
    eta: s.eta
      ? {
          blocks_left: s.eta.blocksLeft,
          p10: iso(s.eta.p10),
          p50: iso(s.eta.p50),
          p90: iso(s.eta.p90),
          method: s.eta.method,
          analogs: s.eta.analogs,
          span_ms: s.eta.spanMs,
        }
      : null,
    history: { samples: s.history.samples, span_ms: s.history.spanMs, covered: s.history.covered },
    alerts: alerts.map((e) => ({
      id: e.alert.id,
      kind: e.alert.kind,
      title: e.alert.title,
      at: iso(e.alert.at),
      late: e.alert.late === true,
      sent: count(e, "sent"),
      pending: count(e, "pending"),
      failed: count(e, "failed"),
    })),
    page: page ?? null,
    calendar: `chains/${encodeURIComponent(s.name)}.ics`,
    visor: s.visor
      ? { stage: s.visor.stage ?? null, current: s.visor.current ?? null, node_height: s.visor.nodeHeight ?? null, problem: s.visor.problem ?? null }
      : null,
    at: iso(s.at),
  };
}
