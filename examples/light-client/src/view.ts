/**
 * Rendering: plain DOM, text only through textContent (node answers are never parsed as HTML).
 * Each card is rebuilt from the latest poll; the countdown alone ticks between polls.
 */
import type { Agreement } from "./compare.js";
import { formatBlockTime, formatDuration, when, type Eta } from "./eta.js";
import { parseInfo } from "./info.js";
import type { AppliedView, ChainView, Part, PlanView, Source, VersionView } from "./model.js";
import { Problem } from "./net.js";
import type { BlockMeta } from "./rpc.js";
import {
  moreThanTwoThirdsReady,
  percentOf,
  preflightText,
  readinessWarnings,
  type ReadinessStatus,
  type ReadinessTally,
  type ValidatorReadiness,
} from "xupgrade";
import type { ReadinessView } from "./readiness.js";

type Child = Node | string | false | null | undefined;

/** `h("p", { class: "x", "data-testid": "y" }, "text", h("b", {}, "bold"))` */
export function h(tag: string, attrs: Record<string, string | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, v);
  for (const c of children) if (c !== false && c !== null && c !== undefined) el.append(c);
  return el;
}

/** Rebuilds a card; <details data-key> the reader opened or closed stay so across polls. */
function card(el: HTMLElement, title: string, source: string | undefined, ...children: Child[]): void {
  const was = new Map([...el.querySelectorAll("details")].map((d) => [d.dataset.key, d.open]));
  el.replaceChildren(h("h2", {}, title, source ? h("span", { class: "source" }, source) : null), ...children.filter((c): c is Node | string => !!c));
  for (const d of el.querySelectorAll("details")) {
    const open = was.get(d.dataset.key);
    if (open !== undefined) d.open = open;
  }
}

function problemBox(problem: Problem): HTMLElement {
  return h("p", { class: `problem ${problem.kind}`, "data-testid": "problem", "data-kind": problem.kind }, problem.message);
}

/**
 * A verified fact's badge: green "✓ verified" only under a root the user confirmed; under any other root amber,
 * "verified against an unconfirmed root" — what was proven holds only if that root is the chain's.
 */
export function verifiedBadge(text: string, confirmed: boolean, testid = "verified-badge"): HTMLElement {
  return h(
    "p",
    { class: confirmed ? "verified-badge" : "verified-badge unconfirmed", "data-testid": testid, "data-confirmed": String(confirmed) },
    h("span", { class: "tick" }, confirmed ? "✓ verified" : "⚠ verified against an unconfirmed root"),
    " ",
    text,
  );
}

function dl(rows: [string, Child, string?][]): HTMLElement {
  const list = h("dl");
  for (const [term, value, testid] of rows) list.append(h("dt", {}, term), h("dd", { "data-testid": testid }, value));
  return list;
}

const SOURCE: Record<Source, Record<"plan" | "applied" | "versions", string>> = {
  rest: {
    plan: "unverified · REST · current_plan",
    applied: "unverified · REST · applied_plan/{name}",
    versions: "unverified · REST · module_versions",
  },
  raw: {
    plan: "unverified · raw store · key 0x00 → core.decodePlan",
    applied: "unverified · raw store · range 0x01 → core.decodeDoneEntriesAnyLayout",
    versions: "unverified · raw store · range 0x02 → core.decodeModuleVersionEntries",
  },
  verified: {
    plan: "proven · key 0x00 (or its absence) against the app hash",
    applied: "proven · the whole range 0x01 against the app hash",
    versions: "proven · the whole range 0x02 against the app hash",
  },
};

// ---- chain ----

export function renderChain(el: HTMLElement, chain: Part<ChainView>, avgBlockMs: number | undefined, stale: boolean): void {
  if (!chain.ok) {
    card(el, "Chain", "RPC · status", problemBox(chain.problem));
    return;
  }
  const c = chain.value;
  card(
    el,
    "Chain",
    "RPC · status, blockchain",
    dl([
      ["chain id", c.chainId, "chain-id"],
      ["height", c.height.toString(), "height"],
      ["latest block", c.latestBlockTime, "latest-block-time"],
      ["block time", avgBlockMs === undefined ? "—" : `${formatBlockTime(avgBlockMs)} (average of the last ${c.recentBlockTimes.length} blocks)`, "block-time"],
      ["app version", c.appVersion, "app-version"],
      ["node", `${c.moniker} · CometBFT ${c.nodeVersion}`],
    ]),
    stale && h("p", { class: "muted" }, "Last seen values: the node does not answer right now."),
  );
}

// ---- plan ----

/** `halted`: the node stopped at the plan's height and waits for its binary (docs/spec/keeper.md §6.2). */
export function renderPlan(
  el: HTMLElement,
  plan: Part<PlanView | undefined>,
  source: Source,
  chain: ChainView | undefined,
  eta: Eta | undefined,
  appliedCount: number,
  halted = false,
): void {
  if (!plan.ok) {
    card(el, "Scheduled upgrade", SOURCE[source].plan, problemBox(plan.problem));
    return;
  }
  const p = plan.value;
  if (!p) {
    card(
      el,
      "Scheduled upgrade",
      SOURCE[source].plan,
      h(
        "div",
        { class: "empty", "data-testid": "no-plan" },
        h("strong", {}, "No upgrade scheduled."),
        " ",
        appliedCount === 0
          ? "Nothing has happened here yet: no plan is pending and no upgrade was applied. This page updates as soon as governance passes a software-upgrade proposal."
          : "The last plan was applied (see below). A new one appears here as soon as governance passes it.",
      ),
    );
    return;
  }
  const left = chain ? p.height - chain.height : undefined;
  card(
    el,
    "Scheduled upgrade",
    SOURCE[source].plan,
    dl([
      ["name", h("strong", {}, p.name), "plan-name"],
      ["height", p.height.toString(), "plan-height"],
      ["blocks left", left === undefined ? "—" : left > 0n ? left.toString() : halted ? "0 — halted here" : "0 — due now", "blocks-left"],
      [
        "ETA",
        eta
          ? `≈ ${when(eta.at)} (${eta.blocksLeft > 0n ? eta.blocksLeft : 0n} blocks × ${formatBlockTime(eta.avgBlockMs)})` +
            (eta.band ? `, between ${when(eta.band.earliest)} and ${when(eta.band.latest)} (±2σ of ${eta.band.samples} verified block times)` : "")
          : "— (needs two recent blocks)",
        "eta",
      ],
    ]),
    h("p", { class: halted ? "countdown halted" : "countdown", "data-testid": "countdown" }, halted ? haltedText(p) : countdownText(eta)),
    h("h3", {}, "Info"),
    infoView(p.info),
  );
}

export function haltedText(p: PlanView): string {
  return `halted at height ${p.height}, waiting for ${p.name}`;
}

export function countdownText(eta: Eta | undefined, now = Date.now()): string {
  if (!eta) return "countdown: waiting for block times";
  const ms = eta.at - now;
  return ms > 0 ? `in ${formatDuration(ms)}` : "due now: the node halts at this height until the new binary runs";
}

function infoView(info: string): HTMLElement {
  const v = parseInfo(info);
  switch (v.kind) {
    case "empty":
      return h("p", { class: "muted", "data-testid": "plan-info" }, "(no info)");
    case "url":
      return h("div", { "data-testid": "plan-info" }, h("p", {}, "A URL to a binaries file: ", h("code", {}, v.url)), checksumLine(v.checksum));
    case "text":
      return h("div", { "data-testid": "plan-info" }, v.note ? h("p", { class: "muted" }, `Free text (${v.note}):`) : null, h("pre", {}, v.text));
    case "binaries": {
      const table = h(
        "table",
        { "data-testid": "binaries" },
        h("thead", {}, h("tr", {}, h("th", {}, "platform"), h("th", {}, "binary"), h("th", {}, "checksum"))),
      );
      const body = h("tbody");
      for (const b of v.binaries) {
        body.append(
          h(
            "tr",
            { "data-testid": "binary" },
            h("td", {}, h("code", {}, b.platform)),
            h("td", { class: "url" }, h("code", {}, b.url.replace(/[?&]checksum=[^&#]*/, ""))),
            h("td", { class: b.checksum ? "checksum" : "checksum missing" }, b.checksum ?? "none (not verifiable)"),
          ),
        );
      }
      table.append(body);
      return h("div", { "data-testid": "plan-info" }, table);
    }
  }
}

function checksumLine(checksum: string | undefined): HTMLElement {
  return h("p", {}, "checksum: ", checksum ? h("code", {}, checksum) : "none");
}

// ---- applied ----

/** `layout`: in raw mode, what the core said about the layout of the done records (raw.ts doneLayoutText). */
export function renderApplied(
  el: HTMLElement,
  applied: Part<AppliedView[]>,
  source: Source,
  blocks: Map<bigint, BlockMeta | Problem>,
  restNote: boolean,
  layout?: string,
): void {
  if (!applied.ok) {
    card(el, "Applied upgrades", SOURCE[source].applied, problemBox(applied.problem));
    return;
  }
  if (applied.value.length === 0) {
    card(
      el,
      "Applied upgrades",
      SOURCE[source].applied,
      h("p", { class: "empty", "data-testid": "no-applied" }, "No upgrade has been applied on this chain yet."),
      restNote &&
        h(
          "p",
          { class: "muted" },
          "REST cannot list applied upgrades: the page asks applied_plan for the names it knows from the store and from plans it saw.",
        ),
    );
    return;
  }
  const list = h("ol", { class: "applied" });
  for (const u of [...applied.value].reverse()) {
    const block = blocks.get(u.height);
    list.append(
      h(
        "li",
        { "data-testid": "applied-upgrade", "data-name": u.name },
        h("p", {}, h("strong", {}, u.name), ` applied at height `, h("strong", { "data-testid": "applied-height" }, u.height.toString())),
        block === undefined ? h("p", { class: "muted" }, "block record: loading…") : block instanceof Problem ? problemBox(block) : blockView(block),
      ),
    );
  }
  card(el, "Applied upgrades", SOURCE[source].applied, layout && h("p", { class: "muted", "data-testid": "done-layout" }, layout), list);
}

function blockView(b: BlockMeta): HTMLElement {
  // Verified mode shows the header itself, verified by the hash chain: a transaction count only when the block's
  // transactions were proven by its data_hash, never a size (no header field commits to it).
  const v = b.verified;
  return h(
    "div",
    { class: "block", "data-testid": "block-record" },
    dl([
      ["block hash", h("code", {}, b.hash), "block-hash"],
      ["time", b.time],
      ["app hash", h("code", {}, b.appHash)],
      ["proposer", h("code", {}, b.proposer)],
      ...(v
        ? ([
            ["header", "verified backwards by the hash chain of last block ids"],
            [
              "txs",
              v.txsProven ? `${b.numTxs} (proven: they hash to the header's data_hash)` : "— (unverified: the node did not give the block's transactions)",
              "block-txs",
            ],
            ["size", "— (unverified: no header field commits to it)", "block-size"],
          ] as [string, Child, string?][])
        : ([["txs · size", `${b.numTxs} · ${b.blockSize} bytes`]] as [string, Child, string?][])),
      ["header app version", b.appVersion],
    ]),
    v
      ? null
      : h(
          "details",
          { "data-key": `block-${b.height}` },
          h("summary", {}, "block record (RPC blockchain, legacy-amino JSON)"),
          h("pre", {}, JSON.stringify(b.raw, null, 2)),
        ),
  );
}

// ---- module versions ----

export interface VersionChange {
  upgrade: AppliedView;
  /** Versions before the upgrade and where they come from; undefined when nobody knows. */
  before: { versions: VersionView[]; how: string } | undefined;
}

/** `change`: undefined when no upgrade was applied, null when the applied upgrades could not be read. */
export function renderVersions(el: HTMLElement, versions: Part<VersionView[]>, source: Source, change: VersionChange | undefined | null): void {
  if (!versions.ok) {
    card(el, "Module versions", SOURCE[source].versions, problemBox(versions.problem));
    return;
  }
  if (versions.value.length === 0) {
    card(el, "Module versions", SOURCE[source].versions, h("p", { class: "empty" }, "The version map is empty (no module versions stored yet)."));
    return;
  }
  const before = change?.before ? new Map(change.before.versions.map((v) => [v.name, v.version])) : undefined;
  const now = new Map(versions.value.map((v) => [v.name, v.version]));
  const names = [...new Set([...now.keys(), ...(before?.keys() ?? [])])].sort();
  const changeHead = change ? `at “${change.upgrade.name}” (${change.upgrade.height})` : "last upgrade";
  const table = h(
    "table",
    { "data-testid": "versions-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "module"), h("th", {}, "version"), h("th", {}, `change ${changeHead}`))),
  );
  const body = h("tbody");
  const summary: string[] = [];
  for (const name of names) {
    const v = now.get(name);
    const b = before?.get(name);
    let text: string;
    let cls = "";
    if (before) {
      if (b === undefined && v !== undefined) [text, cls] = ["added", "added"];
      else if (v === undefined) [text, cls] = ["removed", "removed"];
      else if (b !== v) [text, cls] = [`${b} → ${v}`, "bumped"];
      else text = "—";
      if (cls) summary.push(`${name} ${text}`);
    } else text = change ? "?" : "";
    body.append(
      h(
        "tr",
        { class: cls || undefined, "data-testid": "module", "data-name": name },
        h("td", {}, name),
        h("td", {}, v?.toString() ?? "—"),
        h("td", { "data-testid": "module-change" }, text),
      ),
    );
  }
  table.append(body);
  let caption: HTMLElement | undefined;
  if (change === null) caption = h("p", { class: "muted" }, "Which upgrade last changed them is unknown: the applied upgrades could not be read.");
  else if (!change) caption = h("p", { class: "muted" }, "No upgrade applied yet: these are the genesis versions.");
  else if (!change.before) {
    caption = h(
      "p",
      { class: "muted", "data-testid": "versions-change" },
      `What changed at “${change.upgrade.name}” is unknown: this node keeps no state before height ${change.upgrade.height} and this page did not watch the chain before the upgrade.`,
    );
  } else {
    caption = h(
      "p",
      { "data-testid": "versions-change" },
      `At “${change.upgrade.name}” (height ${change.upgrade.height}): ${summary.length ? summary.join(", ") : "no module version changed"}. `,
      h("span", { class: "muted" }, `Before: ${change.before.how}.`),
    );
  }
  card(el, "Module versions", SOURCE[source].versions, caption, table);
}

// ---- agreement ----

const MARK: Record<Agreement["verdict"], string> = { agree: "✓", differ: "✗", moving: "…", unknown: "?" };

export function renderAgreement(el: HTMLElement, rows: Agreement[], entries: { key: string; value: string }[], open: boolean): void {
  const all = rows.every((r) => r.verdict === "agree");
  const list = h("ul", { class: "agreement" });
  for (const r of rows) {
    list.append(
      h(
        "li",
        { class: r.verdict, "data-testid": "agreement-row", "data-verdict": r.verdict },
        h("span", { class: "mark" }, MARK[r.verdict]),
        h("strong", {}, r.topic),
        " ",
        h("span", {}, r.detail),
      ),
    );
  }
  card(
    el,
    "REST and raw store",
    "both read every poll",
    h(
      "p",
      { "data-testid": "agreement-summary", class: all ? "agree" : rows.some((r) => r.verdict === "differ") ? "differ" : "unknown" },
      all
        ? "Both modes agree: the REST answers match the raw store as decoded by the WASM core in this browser."
        : rows.some((r) => r.verdict === "differ")
          ? "The modes DISAGREE on what the node stores."
          : "Cannot compare everything right now (see below).",
    ),
    list,
    rawEntries(entries, open),
  );
}

/** The raw store as read through abci_query: what the WASM core decoded, byte for byte. */
function rawEntries(entries: { key: string; value: string }[], open: boolean): HTMLElement {
  const table = h("table", { class: "raw" }, h("thead", {}, h("tr", {}, h("th", {}, "key (hex)"), h("th", {}, "value (hex)"))));
  const body = h("tbody");
  for (const e of entries) body.append(h("tr", { "data-testid": "raw-entry" }, h("td", {}, h("code", {}, e.key)), h("td", {}, h("code", {}, e.value))));
  table.append(body);
  const details = h(
    "details",
    { "data-testid": "raw-entries", "data-key": `raw-${open}` },
    h("summary", {}, `raw upgrade store: ${entries.length} entries (abci_query /store/upgrade/key 00, 03; /store/upgrade/subspace 01, 02)`),
    table,
  );
  if (open) details.setAttribute("open", "");
  return details;
}

// ---- banner ----

export function renderBanner(el: HTMLElement, state: "ok" | "halted" | "degraded" | "unreachable" | "error", headline: string, problems: string[]): void {
  if (state === "ok") {
    el.replaceChildren();
    el.className = "";
    return;
  }
  el.className = state;
  const list = h("ul");
  for (const p of [...new Set(problems)]) list.append(h("li", {}, p));
  el.replaceChildren(h("strong", { "data-testid": "banner-headline" }, headline), problems.length ? list : "");
}

// ---- readiness (an xupgrade extension: docs/spec/readiness.md) ----

const READINESS_SOURCE: Record<Source, string> = {
  rest: "REST · xupgrade/upgrade/v1/readiness",
  raw: "raw store · readiness 0x01 ‖ plan → decodeTally",
  verified: "proven · readiness store",
};

/** Verified mode when verification itself failed or the chain cannot be verified: nothing about readiness is shown. */
export function renderReadinessNotVerified(el: HTMLElement): void {
  card(
    el,
    "Readiness",
    READINESS_SOURCE.verified,
    h("p", { class: "muted", "data-testid": "readiness-not-verified" }, "Nothing verified: switch to REST or raw store to see readiness, unverified."),
  );
}

/**
 * Verified mode: the tally proven against the verified header's app hash (the `readiness` store's value under the
 * plan's key), or its absence, or why it cannot be proven.
 */
export function renderReadinessVerified(
  el: HTMLElement,
  r: { tally: ReadinessTally | undefined } | { problem: string } | undefined,
  provenAt: bigint,
  chain: Pick<ChainView, "height"> | undefined,
  warnBlocks: bigint,
  confirmed: boolean,
): void {
  const source = `proven · readiness store at height ${provenAt}`;
  if (r === undefined)
    return void card(
      el,
      "Readiness",
      source,
      h("p", { class: "empty", "data-testid": "no-readiness" }, "No upgrade is scheduled (proven): nothing to be ready for."),
    );
  if ("problem" in r)
    return void card(
      el,
      "Readiness",
      "not proven",
      h("p", { class: "not-verified", "data-testid": "readiness-not-verified" }, `Readiness cannot be proven on this chain: ${r.problem}`),
    );
  if (!r.tally)
    return void card(
      el,
      "Readiness",
      source,
      h("p", { class: "empty", "data-testid": "no-readiness" }, `No readiness tally for this plan: its absence is proven at height ${provenAt}.`),
    );
  const proven = verifiedBadge(
    `Proven at height ${provenAt} against the app hash of verified header ${provenAt + 1n}; each attestation in it was checked against its validator's signature by every validator.`,
    confirmed,
    "readiness-proven",
  );
  renderReadiness(
    el,
    { ok: true, value: { tally: r.tally, params: { voteExtensionsEnableHeight: 0n, activationThreshold: "" } }, at: provenAt },
    "verified",
    chain,
    warnBlocks,
    proven,
  );
}

const STATUS_TEXT: Record<ReadinessStatus, string> = {
  ready: "ready",
  different_binary: "a different binary",
  failed: "pre-flight or rehearsal failed",
  not_rehearsed: "not rehearsed",
  no_attestation: "nothing attested",
};

const hexOf = (b: Uint8Array) =>
  Array.from(b, (x) => x.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
const short = (b: Uint8Array) => (b.length ? `${hexOf(b).slice(0, 10)}…` : "—");

function whyNot(v: ValidatorReadiness): string {
  const a = v.attestation;
  if (!a) return "its votes carry no attestation for this plan";
  const parts = [`${a.platform} binary ${short(a.binarySha256)}`, preflightText(a)];
  if (a.rehearsal === "failed") parts.push(`its rehearsal at height ${a.snapshotHeight} would halt the node with exit code ${a.rehearsalExitCode}`);
  else if (a.rehearsal === "passed") parts.push(`rehearsed at height ${a.snapshotHeight} → ${short(a.appHash)}`);
  else parts.push("not rehearsed");
  return parts.join(", ");
}

/**
 * The readiness card: the power ready as a bar, the validators not ready and why, the rehearsed app hashes by
 * group, and the same warnings as `xupgrade query upgrade readiness` (fewer than 2/3 ready within `warnBlocks`
 * of the height; app hashes that disagree).
 */
export function renderReadiness(
  el: HTMLElement,
  part: Part<ReadinessView>,
  source: Source,
  chain: Pick<ChainView, "height"> | undefined,
  warnBlocks: bigint,
  proven?: HTMLElement,
): void {
  const title = "Readiness";
  if (!part.ok) {
    card(el, title, READINESS_SOURCE[source], problemBox(part.problem));
    return;
  }
  const { tally: t, params, unsupported } = part.value;
  if (unsupported) {
    card(el, title, READINESS_SOURCE[source], h("p", { class: "empty", "data-testid": "readiness-unsupported" }, `No readiness here: ${unsupported}`));
    return;
  }
  if (!t) {
    const why =
      params.voteExtensionsEnableHeight === 0n
        ? "This chain keeps no readiness tally: its vote extensions are off."
        : "No upgrade is scheduled: once one is, each validator's visor attests here whether it is ready for it.";
    card(el, title, READINESS_SOURCE[source], h("p", { class: "empty", "data-testid": "no-readiness" }, why));
    return;
  }
  const pct = (p: bigint) => `${percentOf(p, t.totalPower)}%`;
  const ready = percentOf(t.readyPower, t.totalPower);
  const bar = h(
    "div",
    { class: "bar", "data-testid": "readiness-bar", "data-ready": ready, role: "meter", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": ready },
    h("div", { class: `fill${moreThanTwoThirdsReady(t) ? " enough" : ""}`, style: `width: ${ready}%` }),
    h("div", { class: "two-thirds", title: "2/3 of the voting power" }),
  );
  const notReady = t.validators.filter((v) => v.status !== "ready");
  const list = h("ul", { class: "not-ready" });
  for (const v of notReady) {
    list.append(
      h(
        "li",
        { "data-testid": "not-ready", "data-name": v.name, "data-status": v.status },
        h("strong", {}, v.name || short(v.address)),
        ` (${pct(v.power)}): ${STATUS_TEXT[v.status]} — ${whyNot(v)}`,
      ),
    );
  }
  const names = new Map(t.validators.map((v) => [hexOf(v.address), v.name || short(v.address)]));
  const groups = h("ul", { class: "hash-groups" });
  for (const g of t.appHashGroups) {
    groups.append(
      h(
        "li",
        { "data-testid": "hash-group", "data-snapshot": g.snapshotHeight.toString() },
        h("code", {}, short(g.appHash)),
        ` at snapshot ${g.snapshotHeight}: ${pct(g.power)} — ${g.validators.map((a) => names.get(hexOf(a)) ?? short(a)).join(", ")}`,
      ),
    );
  }
  // Without the chain's height, only the disagreement can be judged.
  const warnings = readinessWarnings(t, chain?.height ?? t.planHeight - warnBlocks - 1n, warnBlocks);
  card(
    el,
    title,
    READINESS_SOURCE[source],
    dl([
      ["upgrade", `“${t.planName}” at height ${t.planHeight}`, "readiness-plan"],
      ["ready", h("span", { "data-testid": "readiness-percent" }, `${ready}% of the voting power (${t.readyPower} of ${t.totalPower})`)],
      ["tally", `changed last at block ${t.updatedHeight}; kept in the chain's state (readiness store)`],
    ]),
    bar,
    ...warnings.map((w) => h("p", { class: "problem", "data-testid": "readiness-warning" }, w)),
    h("h3", {}, notReady.length ? `Not ready (${pct(t.totalPower - t.readyPower)})` : "Not ready"),
    notReady.length ? list : h("p", { class: "muted", "data-testid": "all-ready" }, "Every validator is ready."),
    h("h3", {}, `Rehearsed app hashes${t.appHashesDisagree ? " — they DISAGREE" : ""}`),
    t.appHashGroups.length ? groups : h("p", { class: "muted" }, "No rehearsal reported yet."),
    proven ??
      h(
        "p",
        { class: "muted", "data-testid": "readiness-unverified" },
        "Attested by each validator in its vote extensions, signed with its consensus key and checked by every validator; read unverified here — verified mode proves the tally against a verified header.",
      ),
  );
}
