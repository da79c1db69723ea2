/**
 * Verified mode's rendering: a badge on each fact with the height it was proven at, the chain card with the
 * verified header and the trust root (and how it was obtained), the proposals in their voting period with the
 * warning when voting ends after the estimated upgrade time — and on a failure, one red message naming the
 * check and the height, with nothing shown as verified.
 */
import { etaWithBand, formatBlockTime, formatDuration, when, type Eta } from "./eta.js";
import type { ChainView, Part, PlanView } from "./model.js";
import { ok } from "./model.js";
import { h, renderApplied, renderBanner, renderPlan, renderVersions } from "./view.js";
import type { VerificationFailure, VerifiedFacts, Unprovable, RootInfo } from "./verified.js";

const short = (hash: string) => `${hash.slice(0, 12)}…${hash.slice(-6)}`;
const hexOf = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("").toUpperCase();
const timeOf = (t: { seconds: bigint; nanos: number }) => new Date(Number(t.seconds) * 1000 + t.nanos / 1e6);

function badge(el: HTMLElement, text: string): void {
  const b = h("p", { class: "verified-badge", "data-testid": "verified-badge" }, h("span", { class: "tick" }, "✓ verified"), " ", text);
  el.querySelector("h2")?.after(b);
}

function rootText(r: RootInfo): string {
  const how =
    r.how === "first-use"
      ? `trust on first use: the header ${r.node} gave as its latest at ${new Date(r.at).toLocaleString()}, taken unverified — check its hash with a source you trust, or open this page with &trust_height=…&trust_hash=…`
      : `from the page address (trust_height, trust_hash), first used at ${new Date(r.at).toLocaleString()}`;
  return `height ${r.height}, hash ${short(r.hash)} — ${how}`;
}

function cardWith(el: HTMLElement, title: string, source: string, ...children: (Node | string)[]): void {
  el.replaceChildren(h("h2", {}, title, h("span", { class: "source" }, source)), ...children);
}

/** The ETA of a height from the verified block times, counted from when this page saw the verified header. */
export function verifiedEta(height: bigint, f: VerifiedFacts, seenAt: number): Eta | undefined {
  return etaWithBand(height, f.header.height, f.blockTimes.map((b) => b.ms), seenAt);
}

export function renderVerified(els: Record<"chain" | "plan" | "applied" | "versions" | "agreement" | "banner", HTMLElement>, f: VerifiedFacts, node: Part<ChainView>, seenAt: number, halted = false): Eta | undefined {
  renderBanner(els.banner, "ok", "", []);
  const provenText = `at height ${f.provenAt}, against the app hash of header ${f.header.height}`;
  const gaps = f.blockTimes.slice(1).map((b, i) => b.ms - f.blockTimes[i].ms);
  const mean = gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : undefined;
  const chain: ChainView = {
    chainId: f.header.chainId,
    height: f.header.height,
    latestBlockTime: timeOf(f.header.time).toISOString(),
    appVersion: node.ok ? node.value.appVersion : "—",
    chainKey: `${f.header.chainId}/verified`,
    nodeVersion: node.ok ? node.value.nodeVersion : "—",
    moniker: node.ok ? node.value.moniker : "—",
    recentBlockTimes: [],
  };

  // Chain: what was verified, from which root, with which witnesses.
  const rows: [string, Node | string, string][] = [
    ["chain id", h("strong", {}, f.header.chainId), "chain-id"],
    ["verified height", f.header.height.toString(), "height"],
    ["header", h("code", {}, hexOf(f.header.hash)), "verified-header-hash"],
    ["header time", timeOf(f.header.time).toISOString(), "latest-block-time"],
    ["app hash", h("code", {}, hexOf(f.header.appHash)), "verified-app-hash"],
    ["block time", mean === undefined ? "—" : `${formatBlockTime(mean)} (average of the last ${gaps.length} verified intervals)`, "block-time"],
    ["trust root", rootText(f.root), "trust-root"],
    ["trusted now", `height ${f.header.height}${f.root.advancedTo !== undefined ? ` (this refresh started from ${f.root.advancedTo}; each verified header becomes the next root)` : ""}`, "trusted-now"],
    ["witnesses", f.witnesses.length ? `confirmed by ${f.witnesses.join(", ")}` : "none (add &witness=<rpc> to have another node confirm each header)", "witnesses"],
    ["this refresh", `${f.signatures} signatures, ${f.proofs} store proofs, ${Math.round(f.refreshMs)} ms`, "refresh-cost"],
    ["node (unverified)", node.ok ? `${node.value.moniker} · CometBFT ${node.value.nodeVersion} · latest ${node.value.height}` : "—", "node-info"],
  ];
  const list = h("dl");
  for (const [t, v, id] of rows) list.append(h("dt", {}, t), h("dd", { "data-testid": id }, v));
  cardWith(els.chain, "Chain", "verified · light client", list);
  badge(els.chain, `header ${f.header.height}, signed by the validators, from the trust root`);

  // Plan, with its ETA band and the proposals in their voting period.
  const eta = f.plan ? verifiedEta(f.plan.height, f, seenAt) : undefined;
  renderPlan(els.plan, ok<PlanView | undefined>(f.plan, f.provenAt), "verified", chain, eta, f.applied.length, halted);
  badge(els.plan, f.plan ? `plan “${f.plan.name}” ${provenText}` : `no plan: its absence ${provenText}`);
  if (f.proposals.length) els.plan.append(proposalsView(f, seenAt));

  renderApplied(els.applied, ok(f.applied, f.provenAt), "verified", f.appliedHeaders, false, f.doneLayout ? `Done records: ${f.doneLayout === "sdk" ? "SDK layout (height in the key)" : "seed layout (height in the value)"}` : undefined);
  badge(els.applied, `${f.applied.length ? f.applied.map((u) => `${u.name}@${u.height}`).join(", ") : "none"}, the whole Done range ${provenText}`);

  const last = f.applied.at(-1);
  const change =
    last === undefined
      ? undefined
      : {
          upgrade: last,
          before: f.versionsBefore ? { versions: f.versionsBefore, how: `proven at height ${last.height - 1n}, just before the upgrade` } : undefined,
        };
  renderVersions(els.versions, ok(f.versions, f.provenAt), "verified", change);
  badge(els.versions, `all ${f.versions.length} modules, the whole range ${provenText}; protocol version ${f.protocolVersion}`);

  cardWith(els.agreement, "REST and raw store", "not read in verified mode", h("p", { class: "muted" }, "Verified mode proves every value above instead of comparing what the node says two ways. Switch to REST or raw store to see the node's own (unverified) answers."));
  return eta;
}

function proposalsView(f: VerifiedFacts, seenAt: number): HTMLElement {
  const list = h("ul", { class: "proposals" });
  for (const p of f.proposals) {
    const eta = verifiedEta(p.plan.height, f, seenAt);
    const end = p.votingEndTime ? timeOf(p.votingEndTime) : undefined;
    const late = end !== undefined && eta !== undefined && end.getTime() > eta.at;
    list.append(
      h(
        "li",
        { "data-testid": "proposal", "data-id": p.proposalId.toString() },
        h("p", {}, `Proposal #${p.proposalId} (${p.title || "untitled"}) would schedule `, h("strong", {}, p.plan.name), ` at height ${p.plan.height}; voting ends ${end ? when(end.getTime()) : "—"}.`),
        eta ? h("p", { class: "muted" }, `That height is due ≈ ${when(eta.at)}${eta.band ? ` (between ${when(eta.band.earliest)} and ${when(eta.band.latest)})` : ""}, in ${formatDuration(eta.at - Date.now())}.`) : "",
        late
          ? h(
              "p",
              { class: "problem", "data-testid": "vote-warning" },
              `⚠ Voting ends after the estimated upgrade time (by ${formatDuration(end.getTime() - eta.at)}): if the proposal passes then, height ${p.plan.height} will already be behind the chain and the plan cannot be scheduled (“upgrade cannot be scheduled in the past”).`,
            )
          : "",
      ),
    );
  }
  return h("div", { "data-testid": "proposals" }, h("h3", {}, "Proposed by governance (proven from the gov store)"), list);
}

/** A failure: one red message naming the check and the height; every card says nothing is verified. */
export function renderVerificationFailure(els: Record<"chain" | "plan" | "applied" | "versions" | "agreement" | "banner", HTMLElement>, f: VerificationFailure): void {
  renderBanner(els.banner, "error", "Verification failed — nothing on this page is shown as verified.", []);
  els.banner.append(
    h(
      "p",
      { class: "verify-error", "data-testid": "verify-error", "data-check": f.check, "data-height": f.height?.toString() ?? "" },
      h("strong", {}, `check “${f.check}”${f.height !== undefined ? ` at height ${f.height}` : ""}: `),
      f.message,
    ),
    f.root ? h("p", { class: "muted" }, `Trust root: ${rootText(f.root)}.`) : "",
  );
  for (const [key, title] of [
    ["chain", "Chain"],
    ["plan", "Scheduled upgrade"],
    ["applied", "Applied upgrades"],
    ["versions", "Module versions"],
  ] as const) {
    cardWith(els[key], title, "not verified", h("p", { class: "not-verified", "data-testid": "not-verified" }, `Not verified: ${f.check} failed${f.height !== undefined ? ` at height ${f.height}` : ""}.`));
  }
  cardWith(els.agreement, "REST and raw store", "not read in verified mode", h("p", { class: "muted" }, "Switch to REST or raw store to see what the node says, unverified."));
}

export function renderUnprovable(els: Record<"chain" | "plan" | "applied" | "versions" | "agreement" | "banner", HTMLElement>, u: Unprovable): void {
  renderBanner(els.banner, "degraded", "This chain cannot be verified yet.", [`${u.reason[0].toUpperCase()}${u.reason.slice(1)}.`, "Switch to REST or raw store to see its state, unverified."]);
  els.banner.querySelector("strong")?.setAttribute("data-testid", "unprovable");
  for (const [key, title] of [
    ["chain", "Chain"],
    ["plan", "Scheduled upgrade"],
    ["applied", "Applied upgrades"],
    ["versions", "Module versions"],
  ] as const) {
    cardWith(els[key], title, "not verifiable", h("p", { class: "not-verified" }, "Nothing here can be verified on this chain yet."));
  }
  cardWith(els.agreement, "REST and raw store", "not read in verified mode", h("p", { class: "muted" }, "Switch to REST or raw store."));
}
