/**
 * Which alerts a poll makes due (docs/spec/watch.md §6), from what the watch remembers of a chain and the new
 * verified snapshot: a proposal passed; a plan scheduled, changed or cancelled; each lead time before the ETA's
 * early edge (p10); readiness below the threshold near the height; the halt at the height; still halted N minutes
 * later; resumed on the new version. Only verified facts make alerts (and a failed check makes one of its own).
 * Each alert has an id made of what it is about, so the same fact never makes a second alert: the ledger
 * (./ledger.ts) keeps every id it was given, across restarts. Pure.
 *
 * A lead time that had already passed when the ETA was first known is not alerted (the "scheduled" alert said the
 * ETA); one that passed while the watch was not running is alerted late, once, and says so.
 */
import type { EtaBand } from "./eta.js";
import type { ChainSnapshot, PlanFact } from "./snapshot.js";

export type AlertKind =
  | "proposal_passed"
  | "plan_scheduled"
  | "plan_changed"
  | "plan_cancelled"
  | "lead"
  | "readiness_low"
  | "halt"
  | "still_halted"
  | "resumed"
  | "verification_failed";

export const ALERT_KINDS: readonly AlertKind[] = [
  "proposal_passed",
  "plan_scheduled",
  "plan_changed",
  "plan_cancelled",
  "lead",
  "readiness_low",
  "halt",
  "still_halted",
  "resumed",
  "verification_failed",
];

export interface Alert {
  /** What the alert is about, e.g. `lead/hub/v2@1234/2h`: one alert per id, ever. */
  id: string;
  kind: AlertKind;
  chain: string;
  chainId?: string;
  /** ms, local clock. */
  at: number;
  plan?: { name: string; height: string };
  /** One line. */
  title: string;
  /** Facts, in order, as `label: value` lines. */
  facts: [string, string][];
  eta?: { p10: string; p50: string; p90: string };
  /** The verified header the facts were proven at. */
  verified?: { height: string; hash: string; time: string };
  /** The chain's trust root was never confirmed: said in every alert. */
  unconfirmed: boolean;
  /** Lead alerts that come after their time (the watch was not running then). */
  late?: boolean;
  /** The chain's page. */
  link?: string;
}

/** What the watch keeps of a chain between polls (and restarts). */
export interface ChainMemory {
  plan?: { name: string; height: string; info: string; firstSeen: number };
  /** Lead times (ms) still to alert for the plan; set when its ETA is first known. */
  armed?: number[];
  /** Proposals in their voting period last time: id → plan. */
  proposals: { id: string; name: string; height: string }[];
  /** Failed-check episodes so far (an id per episode); whether the last poll failed. */
  failures: number;
  failing: boolean;
  /** The newest verified header and the chain's pace then: a node that stops answering right below its plan's height has halted for it. */
  last?: { height: string; ms: number; blockMs?: number };
}

export const emptyMemory = (): ChainMemory => ({ proposals: [], failures: 0, failing: false });

export interface AlertRules {
  leadsMs: readonly number[];
  readinessThreshold: number;
  readinessWithinMs: number;
  stillHaltedAfterMs: number;
  /** A lead alert more than this after its moment says it is late (default two polls). */
  lateAfterMs: number;
  /** How often the chain is polled: the blocks a poll can miss. */
  pollMs: number;
}

export const planKey = (p: { name: string; height: bigint | string }) => `${p.name}@${p.height}`;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** `2h`, `10m`, `24h`, `1h30m`, `45s` */
export function leadText(ms: number): string {
  const s = Math.round(ms / 1000);
  const parts: string[] = [];
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d && !h && !m && !sec && d !== 1) parts.push(`${d}d`);
  else if (d) parts.push(`${d * 24 + h}h`);
  else if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}m`);
  if (sec) parts.push(`${sec}s`);
  return parts.join("") || "0s";
}

/** `3h 05m`, `12m 04s`, `45 s` */
export function spanText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const two = (n: number) => String(n).padStart(2, "0");
  if (d) return `${d}d ${two(h)}h ${two(m)}m`;
  if (h) return `${h}h ${two(m)}m`;
  return `${m}m ${two(s % 60)}s`;
}

function etaFacts(eta: EtaBand | undefined, now: number): { facts: [string, string][]; eta?: Alert["eta"] } {
  if (!eta) return { facts: [["ETA", "not known yet (too little verified history)"]] };
  return {
    facts: [
      ["blocks left", String(eta.blocksLeft)],
      ["ETA (p50)", `${iso(eta.p50)} (in ${spanText(eta.p50 - now)})`],
      ["band (p10–p90)", `${iso(eta.p10)} – ${iso(eta.p90)}`],
    ],
    eta: { p10: iso(eta.p10), p50: iso(eta.p50), p90: iso(eta.p90) },
  };
}

/**
 * The alerts a snapshot makes due, in the order they happen, and the memory after it. `known(id)` says whether
 * the ledger already has an alert (a restart: nothing is made twice).
 */
export function dueAlerts(
  prev: ChainMemory,
  snap: ChainSnapshot,
  rules: AlertRules,
  known: (id: string) => boolean,
  link?: string,
): { alerts: Alert[]; memory: ChainMemory } {
  const memory: ChainMemory = { ...prev, proposals: [...prev.proposals], armed: prev.armed && [...prev.armed] };
  const out: Alert[] = [];
  const now = snap.at;
  const c = snap.name;
  const unconfirmed = snap.root ? !snap.root.confirmed : false;
  const verified = snap.header && { height: snap.header.height.toString(), hash: snap.header.hash, time: snap.header.time };
  const make = (id: string, kind: AlertKind, title: string, facts: [string, string][], extra: Partial<Alert> = {}) => {
    if (known(id)) return;
    const lines: [string, string][] = [["chain", snap.chainId ? `${c} (${snap.chainId})` : c], ...facts];
    if (verified)
      lines.push([
        "verified at",
        `header ${verified.height} (${verified.hash.slice(0, 12)}…, ${verified.time})${snap.witnesses.without ? ", no witness" : `, ${snap.witnesses.confirmed.length} witness(es) agree`}`,
      ]);
    if (unconfirmed) lines.push(["trust", "UNCONFIRMED trust root (first use): confirm it with a root from a source you trust"]);
    out.push({
      id,
      kind,
      chain: c,
      chainId: snap.chainId,
      at: now,
      title: `${c}: ${title}${unconfirmed ? " [unconfirmed root]" : ""}`,
      facts: lines,
      verified,
      unconfirmed,
      link,
      ...extra,
    });
  };

  if (snap.status === "failed") {
    if (!memory.failing) {
      memory.failures++;
      memory.failing = true;
    }
    const f = snap.failure!;
    make(`verification_failed/${c}/${memory.failures}`, "verification_failed", `verification failed (${f.check})`, [
      ["check", f.check],
      ["what", f.message],
    ]);
    return { alerts: out, memory };
  }
  if (snap.status !== "verified") {
    // Nodes stop at the plan's height (the old binary exits): silence right below it, after verified headers up to it, is the halt.
    const p = memory.plan;
    // "Right below": within the blocks two polls could have missed at the chain's pace, the last one before the height included.
    const missed = memory.last?.blockMs ? BigInt(Math.ceil((2 * rules.pollMs) / memory.last.blockMs)) : 0n;
    if (snap.status === "unreachable" && p && memory.last && BigInt(memory.last.height) >= BigInt(p.height) - 1n - missed) {
      const since = now - memory.last.ms;
      const facts: [string, string][] = [
        ["height", p.height],
        ["last verified header", `${memory.last.height} at ${iso(memory.last.ms)}`],
        ["node", `not answering since (${snap.failure?.message ?? "no answer"})`],
      ];
      make(`halt/${c}/${planKey(p)}`, "halt", `halted at height ${p.height} for upgrade ${p.name} (the node stopped right below it)`, facts, {
        plan: { name: p.name, height: p.height },
      });
      if (since >= rules.stillHaltedAfterMs)
        make(
          `still_halted/${c}/${planKey(p)}`,
          "still_halted",
          `still halted at height ${p.height}, ${spanText(since)} after the last block`,
          [...facts, ["halted for", spanText(since)]],
          { plan: { name: p.name, height: p.height } },
        );
    }
    return { alerts: out, memory };
  }
  memory.failing = false;
  if (snap.header) {
    const pace = snap.eta && snap.eta.blocksLeft > 0 ? (snap.eta.p50 - snap.header.ms) / snap.eta.blocksLeft : undefined;
    memory.last = { height: snap.header.height.toString(), ms: snap.header.ms, blockMs: pace && pace > 0 ? pace : memory.last?.blockMs };
  }

  const plan = snap.plan;
  const ref = (p: { name: string; height: bigint | string }) => ({ name: p.name, height: String(p.height) });
  // Proposals that left their voting period with their plan now scheduled: passed.
  if (plan) {
    for (const p of prev.proposals) {
      if (snap.proposals.some((x) => String(x.id) === p.id)) continue;
      if (p.name === plan.name && p.height === String(plan.height)) {
        make(
          `proposal_passed/${c}/${p.id}`,
          "proposal_passed",
          `proposal ${p.id} passed: upgrade ${plan.name} at height ${plan.height}`,
          [
            ["proposal", p.id],
            ["plan", `${plan.name} at height ${plan.height}`],
          ],
          { plan: ref(plan) },
        );
      }
    }
  }
  memory.proposals = snap.proposals.map((p) => ({ id: String(p.id), name: p.plan.name, height: String(p.plan.height) }));

  const old = memory.plan;
  const same = (a: { name: string; height: string; info: string }, b: PlanFact) => a.name === b.name && a.height === String(b.height) && a.info === b.info;
  if (plan && (!old || !same(old, plan))) {
    const e = etaFacts(snap.eta, now);
    if (old && !snap.applied) {
      make(
        `plan_changed/${c}/${planKey(old)}->${planKey(plan)}${old.info !== plan.info ? `/${hashText(plan.info)}` : ""}`,
        "plan_changed",
        `upgrade plan changed: ${old.name} at ${old.height} → ${plan.name} at ${plan.height}`,
        [["was", `${old.name} at height ${old.height}`], ["now", `${plan.name} at height ${plan.height}`], ...e.facts],
        { plan: ref(plan), eta: e.eta },
      );
    } else {
      make(
        `plan_scheduled/${c}/${planKey(plan)}`,
        "plan_scheduled",
        `upgrade ${plan.name} scheduled at height ${plan.height}`,
        [["plan", `${plan.name} at height ${plan.height}`], ...e.facts],
        { plan: ref(plan), eta: e.eta },
      );
    }
    memory.plan = { name: plan.name, height: String(plan.height), info: plan.info, firstSeen: now };
    memory.armed = undefined;
  }

  if (plan && memory.plan) {
    const key = planKey(plan);
    const eta = snap.eta;
    if (eta && memory.armed === undefined) memory.armed = rules.leadsMs.filter((l) => eta.p10 - now > l);
    if (eta && memory.armed) {
      for (const lead of [...memory.armed].sort((a, b) => b - a)) {
        const left = eta.p10 - now;
        if (left > lead) continue;
        memory.armed = memory.armed.filter((l) => l !== lead);
        const e = etaFacts(eta, now);
        const late = lead - left > rules.lateAfterMs;
        make(
          `lead/${c}/${key}/${leadText(lead)}`,
          "lead",
          `upgrade ${plan.name} at height ${plan.height} in about ${leadText(lead)}${late ? " (late: the watch was not running then)" : ""}`,
          [["plan", `${plan.name} at height ${plan.height}`], ["lead", leadText(lead)], ...e.facts],
          { plan: ref(plan), eta: e.eta, late },
        );
      }
    }
    const r = snap.readiness;
    if (eta && r && r !== "none" && eta.p50 - now <= rules.readinessWithinMs && r.share < rules.readinessThreshold) {
      make(
        `readiness_low/${c}/${key}`,
        "readiness_low",
        `only ${(r.share * 100).toFixed(1)} % of the power is ready for ${plan.name} (threshold ${(rules.readinessThreshold * 100).toFixed(0)} %)`,
        [["ready power", `${r.readyPower} of ${r.totalPower}`], ["tally updated at", `height ${r.updatedHeight}`], ...etaFacts(eta, now).facts],
        { plan: ref(plan) },
      );
    }
  }

  const halted = snap.halted;
  if (halted) {
    const p = { name: halted.upgrade, height: halted.height.toString() };
    make(
      `halt/${c}/${planKey(p)}`,
      "halt",
      `halted at height ${halted.height} for upgrade ${halted.upgrade}`,
      [
        ["height", p.height],
        ["last block", iso(halted.sinceMs)],
        ["what now", "the nodes wait for the upgrade's binary"],
      ],
      { plan: p },
    );
    const since = now - halted.sinceMs;
    if (since >= rules.stillHaltedAfterMs) {
      make(
        `still_halted/${c}/${planKey(p)}`,
        "still_halted",
        `still halted at height ${halted.height}, ${spanText(since)} after the halt`,
        [
          ["height", p.height],
          ["last block", iso(halted.sinceMs)],
          ["halted for", spanText(since)],
        ],
        { plan: p },
      );
    }
  }

  if (!plan && old) {
    const p = { name: old.name, height: old.height };
    if (snap.applied && snap.applied.name === old.name && snap.header && snap.header.height > snap.applied.height) {
      // Seen after the fact (the watch was not running at the halt): the halt still comes first.
      make(
        `halt/${c}/${planKey(p)}`,
        "halt",
        `halted at height ${snap.applied.height} for upgrade ${old.name} (seen after the fact)`,
        [["height", String(snap.applied.height)]],
        { plan: p, late: true },
      );
      make(
        `resumed/${c}/${planKey(p)}`,
        "resumed",
        `resumed on the new version: ${old.name} applied at height ${snap.applied.height}`,
        [
          ["applied at", `height ${snap.applied.height} (its Done record, proven)`],
          ["protocol version", String(snap.protocolVersion ?? "?")],
          ["app version (header)", snap.header.appVersion.toString()],
          ["now at", `height ${snap.header.height}`],
        ],
        { plan: p },
      );
      memory.plan = undefined;
      memory.armed = undefined;
    } else if (!snap.applied && snap.header && snap.header.height < BigInt(old.height)) {
      make(
        `plan_cancelled/${c}/${planKey(p)}`,
        "plan_cancelled",
        `upgrade ${old.name} at height ${old.height} cancelled`,
        [
          ["plan", `${old.name} at height ${old.height}`],
          ["now", "no plan scheduled (its absence proven)"],
        ],
        { plan: p },
      );
      memory.plan = undefined;
      memory.armed = undefined;
    }
  }
  return { alerts: out, memory };
}

/** A short stable digest of a text (for ids of a plan whose info changed), FNV-1a. */
function hashText(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}
