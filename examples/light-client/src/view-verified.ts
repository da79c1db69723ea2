/**
 * Verified mode's rendering: a badge on each fact with the height it was proven at — green only under a root the
 * user confirmed, amber under any other —, the chain card with the verified header (its height, time and age by
 * this machine's clock), the trust root (how it was obtained, whether it was confirmed) and the witnesses, the
 * proposals in their voting period with the warning when voting ends after the estimated upgrade time — and on a
 * failure, one red message naming the check and the height, with nothing shown as verified.
 */
import { describeRoot, formatAge, formatTimestamp, unconfirmedWarning } from "xupgrade/light";
import { etaWithBand, formatBlockTime, formatDuration, when, type Eta } from "./eta.js";
import type { ChainView, Part, PlanView } from "./model.js";
import { ok } from "./model.js";
import { h, renderApplied, renderBanner, renderPlan, renderVersions, verifiedBadge } from "./view.js";
import { rootWords, shortHash } from "./view-trust.js";
import type { NoRoot, RootRefused, TrustView, Unprovable, VerificationFailure, VerifiedFacts } from "./verified.js";

type Els = Record<"chain" | "plan" | "applied" | "versions" | "agreement" | "banner", HTMLElement>;

const hexOf = (b: Uint8Array) =>
  [...b]
    .map((x) => x.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
const timeOf = (t: { seconds: bigint; nanos: number }) => new Date(Number(t.seconds) * 1000 + t.nanos / 1e6);

/** A block hash in full under a confirmed root; shortened under another (view-trust.ts says why). */
const blockHash = (hash: string, confirmed: boolean) => (confirmed ? hash : shortHash(hash));

function badge(el: HTMLElement, text: string, confirmed: boolean): void {
  el.querySelector("h2")?.after(verifiedBadge(text, confirmed));
}

/** The trust root in the library's words (describeRoot), and whether the user confirmed it. */
function rootText(t: TrustView): string {
  return rootWords(t.root, describeRoot(t.root)) + (t.root.confirmed ? " — confirmed" : " — NOT CONFIRMED");
}

function cardWith(el: HTMLElement, title: string, source: string, ...children: (Node | string)[]): void {
  el.replaceChildren(h("h2", {}, title, h("span", { class: "source" }, source)), ...children);
}

/** "3 min 12 s ago", for the verified header's time (ms) by this machine's clock. */
export function ageText(headerMs: number, nowMs: number): string {
  return `${formatAge(nowMs - headerMs)} ago`;
}

/** Ticks the verified header's age between polls. */
export function tickAge(nowMs = Date.now()): void {
  const el = document.querySelector<HTMLElement>('[data-testid="header-age"]');
  const at = Number(el?.dataset.headerMs);
  if (el && Number.isFinite(at)) el.textContent = ageText(at, nowMs);
}

/** The verified header's freshness: its age, the bound, and a halt for an upgrade said from verified data. */
function freshnessView(f: VerifiedFacts): HTMLElement {
  const at = timeOf(f.header.time).getTime();
  const bound = f.maxAgeMs > 0 ? `a latest header older than ${formatAge(f.maxAgeMs)} is refused (&max_age=)` : "no bound on its age (&max_age=0)";
  return h(
    "span",
    {},
    h("span", { "data-testid": "header-age", "data-header-ms": String(at) }, ageText(at, Date.now())),
    ` by this computer's clock; ${bound}`,
    f.fresh.halted ? " — " : "",
    f.fresh.halted ? h("strong", { "data-testid": "halted-for" }, `halted at ${f.fresh.halted.height} for upgrade “${f.fresh.halted.upgrade}”`) : "",
  );
}

/** The ETA of a height from the verified block times, counted from when this page saw the verified header. */
export function verifiedEta(height: bigint, f: VerifiedFacts, seenAt: number): Eta | undefined {
  return etaWithBand(
    height,
    f.header.height,
    f.blockTimes.map((b) => b.ms),
    seenAt,
  );
}

export function renderVerified(els: Els, f: VerifiedFacts, node: Part<ChainView>, seenAt: number, halted = false): Eta | undefined {
  renderBanner(els.banner, "ok", "", []);
  const confirmed = f.trust.root.confirmed;
  const provenText = `at height ${f.provenAt}, against the app hash of header ${f.header.height}`;
  const gaps = f.blockTimes.slice(1).map((b, i) => b.ms - f.blockTimes[i].ms);
  const mean = gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : undefined;
  // What the plan card needs of the chain, from the verified header alone (the node's own word stays in its row).
  const chain: ChainView = {
    chainId: f.header.chainId,
    height: f.header.height,
    latestBlockTime: timeOf(f.header.time).toISOString(),
    appVersion: "—",
    chainKey: `${f.header.chainId}/verified`,
    nodeVersion: "—",
    moniker: "—",
    recentBlockTimes: [],
  };

  // Chain: what was verified, how fresh it is, from which root, with which witnesses.
  const rows: [string, Node | string, string][] = [
    ["chain id", h("strong", {}, f.header.chainId), "chain-id"],
    ["verified height", f.header.height.toString(), "height"],
    ["header", h("code", {}, blockHash(hexOf(f.header.hash), confirmed)), "verified-header-hash"],
    ["header time", formatTimestamp(f.header.time), "latest-block-time"],
    ["age", freshnessView(f), "freshness"],
    ["app hash", h("code", {}, hexOf(f.header.appHash)), "verified-app-hash"],
    ["block time", mean === undefined ? "—" : `${formatBlockTime(mean)} (average of the last ${gaps.length} verified intervals)`, "block-time"],
    ["trust root", rootText(f.trust), "trust-root"],
    ["trusted now", `height ${f.header.height} (each verified header becomes the next root, kept in this browser)`, "trusted-now"],
    [
      "witnesses",
      f.withoutWitnesses
        ? h(
            "span",
            { class: "warn-note" },
            "no witness: verified against this node alone — it cannot forge a header, but only a witness would reveal a fork it shows you (add &witness=<rpc>, repeatable)",
          )
        : f.witnesses.length
          ? `confirmed by ${f.witnesses.join(", ")}`
          : "—",
      "witnesses",
    ],
    ["this refresh", `${f.signatures} signatures, ${f.proofs} store proofs, ${Math.round(f.refreshMs)} ms`, "refresh-cost"],
    ["node (unverified)", node.ok ? `${node.value.moniker} · CometBFT ${node.value.nodeVersion} · latest ${node.value.height}` : "—", "node-info"],
  ];
  const list = h("dl");
  for (const [t, v, id] of rows) list.append(h("dt", {}, t), h("dd", { "data-testid": id }, v));
  const warning = unconfirmedWarning(f.trust.root);
  cardWith(
    els.chain,
    "Chain",
    "verified · light client",
    list,
    warning ? h("p", { class: "warn-box", "data-testid": "unconfirmed-warning" }, `${rootWords(f.trust.root, warning)} — the panel above takes its hash.`) : "",
  );
  badge(els.chain, `header ${f.header.height}, signed by the validators, from the trust root`, confirmed);

  // Plan, with its ETA band and the proposals in their voting period.
  const eta = f.plan ? verifiedEta(f.plan.height, f, seenAt) : undefined;
  renderPlan(els.plan, ok<PlanView | undefined>(f.plan, f.provenAt), "verified", chain, eta, f.applied.length, halted);
  badge(els.plan, f.plan ? `plan “${f.plan.name}” ${provenText}` : `no plan: its absence ${provenText}`, confirmed);
  if (f.proposals.length) els.plan.append(proposalsView(f, seenAt));

  const blocks = new Map([...f.appliedHeaders].map(([height, b]) => [height, { ...b, hash: blockHash(b.hash, confirmed) }]));
  renderApplied(
    els.applied,
    ok(f.applied, f.provenAt),
    "verified",
    blocks,
    false,
    f.doneLayout ? `Done records: ${f.doneLayout === "sdk" ? "SDK layout (height in the key)" : "seed layout (height in the value)"}` : undefined,
  );
  badge(els.applied, `${f.applied.length ? f.applied.map((u) => `${u.name}@${u.height}`).join(", ") : "none"}, the whole Done range ${provenText}`, confirmed);

  const last = f.applied.at(-1);
  const change =
    last === undefined
      ? undefined
      : {
          upgrade: last,
          before: f.versionsBefore ? { versions: f.versionsBefore, how: `proven at height ${last.height - 1n}, just before the upgrade` } : undefined,
        };
  renderVersions(els.versions, ok(f.versions, f.provenAt), "verified", change);
  badge(els.versions, `all ${f.versions.length} modules, the whole range ${provenText}; protocol version ${f.protocolVersion}`, confirmed);

  cardWith(
    els.agreement,
    "REST and raw store",
    "not read in verified mode",
    h(
      "p",
      { class: "muted" },
      "Verified mode proves every value above instead of comparing what the node says two ways. Switch to REST or raw store to see the node's own (unverified) answers.",
    ),
  );
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
        h(
          "p",
          {},
          `Proposal #${p.proposalId} (${p.title || "untitled"}) would schedule `,
          h("strong", {}, p.plan.name),
          ` at height ${p.plan.height}; voting ends ${end ? when(end.getTime()) : "—"}.`,
        ),
        eta
          ? h(
              "p",
              { class: "muted" },
              `That height is due ≈ ${when(eta.at)}${eta.band ? ` (between ${when(eta.band.earliest)} and ${when(eta.band.latest)})` : ""}, in ${formatDuration(eta.at - Date.now())}.`,
            )
          : "",
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

/** Every card: nothing verified, and why. */
function nothingVerified(els: Els, source: string, why: string, testid: string | undefined = "not-verified"): void {
  for (const [key, title] of [
    ["chain", "Chain"],
    ["plan", "Scheduled upgrade"],
    ["applied", "Applied upgrades"],
    ["versions", "Module versions"],
  ] as const) {
    cardWith(els[key], title, source, h("p", { class: "not-verified", "data-testid": testid }, why));
  }
  cardWith(
    els.agreement,
    "REST and raw store",
    "not read in verified mode",
    h("p", { class: "muted" }, "Switch to REST or raw store to see what the node says, unverified."),
  );
}

/** A failure: one red message naming the check and the height; every card says nothing is verified. */
export function renderVerificationFailure(els: Els, f: VerificationFailure): void {
  renderBanner(els.banner, "error", "Verification failed — nothing on this page is shown as verified.", []);
  els.banner.append(
    h(
      "p",
      { class: "verify-error", "data-testid": "verify-error", "data-check": f.check, "data-height": f.height?.toString() ?? "" },
      h("strong", {}, `check “${f.check}”${f.height !== undefined ? ` at height ${f.height}` : ""}: `),
      f.message,
    ),
    f.trust ? h("p", { class: "muted" }, `Trust root: ${rootText(f.trust)}.`) : "",
  );
  nothingVerified(els, "not verified", `Not verified: ${f.check} failed${f.height !== undefined ? ` at height ${f.height}` : ""}.`);
}

/** No trust root: nothing is verified; the trust panel asks for one. */
export function renderNoRoot(els: Els, n: NoRoot): void {
  renderBanner(els.banner, "ok", "", []);
  nothingVerified(els, "not verified", `Nothing verified: there is no trust root for ${n.chainId} yet (the panel above says how to give one).`);
}

/** The user's source knows another chain: refused, nothing verified. */
export function renderRootRefused(els: Els, r: RootRefused): void {
  renderBanner(els.banner, "error", `Refused: your source gives another hash for block ${r.height} — this node's chain is not the one your source knows.`, [
    `Nothing on this page is verified. The trust root was ${rootText(r.trust)}.`,
  ]);
  els.banner.querySelector("strong")?.setAttribute("data-testid", "refused-headline");
  nothingVerified(els, "not verified", `Not verified: your source gives ${shortHash(r.theirs)} for block ${r.height}, not this node's chain's hash.`);
}

export function renderUnprovable(els: Els, u: Unprovable): void {
  renderBanner(els.banner, "degraded", "This chain cannot be verified yet.", [
    `${u.reason[0].toUpperCase()}${u.reason.slice(1)}.`,
    "Switch to REST or raw store to see its state, unverified.",
  ]);
  els.banner.querySelector("strong")?.setAttribute("data-testid", "unprovable");
  nothingVerified(els, "not verifiable", "Nothing here can be verified on this chain yet.", undefined);
}

/** The halt, said from verified data: no block since the verified header, and the plan proven for its height. */
export function verifiedHaltLine(f: VerifiedFacts, halt: PlanView): string {
  const since = formatTimestamp(f.header.time);
  return (
    `No block since ${since} (${ageText(timeOf(f.header.time).getTime(), Date.now())}): halted at ${halt.height} for upgrade “${halt.name}” — proven: header ${f.header.height} is verified ` +
    `and the state before it still schedules “${halt.name}” for this very height, which no node running the old binary passes. It resumes once a binary with the “${halt.name}” handler runs.`
  );
}
