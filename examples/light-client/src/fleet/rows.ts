/** The fleet table: one row per chain, from the rows `watch` serves (bindings/apps/watch/fleet.ts). */
import type { FleetJson, FleetRowJson } from "../../../../bindings/apps/watch/fleet.js";
import { formatDuration } from "../eta.js";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const utc = (iso: string) =>
  iso
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z")
    .replace(/Z$/, " UTC");
const time = (iso: string) => new Date(iso).toISOString().slice(11, 16) + " UTC";

function badge(r: FleetRowJson): string {
  if (r.status === "failed" && r.failure) {
    return `<span class="badge failed" data-testid="badge">failed: ${esc(r.failure.check)}</span><div class="check" data-testid="check">${esc(r.failure.message)}</div>`;
  }
  if (r.status !== "verified" || !r.header) {
    const why = r.failure ? `<div class="note">${esc(r.failure.message)}</div>` : "";
    return `<span class="badge ${esc(r.status)}" data-testid="badge">${esc(r.status === "no-root" ? "no trust root" : r.status)}</span>${why}`;
  }
  const unconfirmed = r.trust_root && !r.trust_root.confirmed;
  const witnesses = r.witnesses.without
    ? `<div class="warn">no witness: one node's word</div>`
    : `<div class="note">${r.witnesses.confirmed.length} witness${r.witnesses.confirmed.length === 1 ? "" : "es"} agree</div>`;
  return (
    `<span class="badge ${unconfirmed ? "unconfirmed" : "verified"}" data-testid="badge">${unconfirmed ? "verified · unconfirmed root" : "verified"}</span>` +
    `<div class="note">height ${esc(r.header.height)} · ${formatDuration(r.header.age_ms)} old</div>${witnesses}` +
    (unconfirmed ? `<div class="warn" title="${esc(r.trust_root!.warning ?? "")}">trust began on first use: confirm the root</div>` : "")
  );
}

function plan(r: FleetRowJson): string {
  if (r.plan === "unknown") return `<span class="note">unknown (nothing verified)</span>`;
  const proposals = r.proposals.map((p) => `<div class="note">proposal ${esc(p.id)} in its voting period: ${esc(p.name)} at ${esc(p.height)}</div>`).join("");
  if (r.plan === null)
    return `${r.applied ? `<div>${esc(r.applied.name)} applied at ${esc(r.applied.height)}</div>` : `<span class="note">none scheduled (proven)</span>`}${proposals}`;
  const halted = r.halted ? `<div class="warn">halted at ${esc(r.halted.height)} since ${esc(time(r.halted.since))}</div>` : "";
  return `<div><strong>${esc(r.plan.name)}</strong> at ${esc(r.plan.height)}</div>${halted}${proposals}`;
}

function eta(r: FleetRowJson): string {
  if (!r.eta) return r.plan && r.plan !== "unknown" ? `<span class="note">gathering verified header times…</span>` : "—";
  const e = r.eta;
  return `<div>${esc(utc(e.p50))}</div><div class="note">${esc(time(e.p10))} – ${esc(time(e.p90))} · ${e.blocks_left} blocks · ${e.analogs} stretches (${e.method}) over ${formatDuration(e.span_ms)}</div>`;
}

function countdown(r: FleetRowJson, now: number): string {
  if (!r.eta || r.halted) return r.halted ? `<span class="count">halted</span>` : "—";
  return `<span class="count">${formatDuration(Date.parse(r.eta.p50) - now)}</span><div class="note">±${formatDuration((Date.parse(r.eta.p90) - Date.parse(r.eta.p10)) / 2)}</div>`;
}

function readiness(r: FleetRowJson): string {
  if (r.readiness === "none") return `<span class="note">no tally on this chain</span>`;
  if (!r.readiness) return "—";
  return `${(r.readiness.share * 100).toFixed(1)} %<div class="note">${esc(r.readiness.ready_power)} of ${esc(r.readiness.total_power)}</div>`;
}

function alerts(r: FleetRowJson): string {
  if (r.alerts.length === 0) return `<span class="note">none</span>`;
  const sent = r.alerts.filter((a) => a.sent > 0).length;
  const last = r.alerts[r.alerts.length - 1];
  return `${sent} of ${r.alerts.length}<div class="note">last: ${esc(last.kind)}${last.pending ? " (pending)" : ""}</div>`;
}

function name(r: FleetRowJson, base: string): string {
  const page = r.page ? `<a href="${esc(new URL(r.page, base).href)}" data-testid="page">page</a> · ` : "";
  return `<div class="name">${esc(r.name)}</div><div class="note">${esc(r.chain_id ?? "")}</div><div class="note">${page}<a href="${esc(new URL(r.calendar, base).href)}">.ics</a></div>`;
}

export function renderFleet(f: FleetJson, base: string, now = Date.now()): string {
  return f.chains
    .map(
      (r) =>
        `<tr class="${esc(r.status)}" data-chain="${esc(r.name)}" data-status="${esc(r.status)}">` +
        `<td>${name(r, base)}</td><td>${badge(r)}</td><td>${plan(r)}</td><td>${eta(r)}</td><td>${countdown(r, now)}</td><td>${readiness(r)}</td><td>${alerts(r)}</td></tr>`,
    )
    .join("");
}
