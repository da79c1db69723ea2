/**
 * The light-client page: polls a node's REST API and its CometBFT RPC, reads the upgrade store raw through
 * abci_query and decodes it with the package's WebAssembly core, and shows the upgrade's state both ways.
 *
 * URL parameters: `rest`, `rpc` (the node; default from /ui/config.json when the devnet serves the page,
 * else 127.0.0.1:1317 / :26657), `mode=verified|rest|raw` (default verified; rest on a devnet, which cannot be
 * verified yet), `poll=<ms>` (default 1000); for verified mode `trust_height` and `trust_hash` (the trust root;
 * else this browser's last verified header for the chain, else trust on first use), `trusting_period` (a Go
 * duration, default 336h), `witness` (another node's RPC, repeatable), `chain=xupgrade-devnet`.
 * `warn_blocks=<n>` (the readiness card warns when less than 2/3 of the power is ready this many blocks before the
 * height; default 1000).
 */
import { DEFAULT_READINESS_WARN_BLOCKS, haltedForPlan, loadCore, type Core } from "xupgrade";
import { compareAppVersion, compareStates } from "./compare.js";
import { averageBlockMs, eta, parseTime, type Eta } from "./eta.js";
import { observeVersions, planNames, rememberPlanName, versionsBefore } from "./history.js";
import type { AppliedView, ChainView, Part, PlanView, Source, UpgradeState, VersionView } from "./model.js";
import { failed, ok } from "./model.js";
import { Problem, parseBaseUrl, toProblem, type ProblemKind } from "./net.js";
import { doneLayoutText, readRawState, type RawState } from "./raw.js";
import { readRestState, RestClient } from "./rest.js";
import { readReadinessRaw, readReadinessRest, type ReadinessView } from "./readiness.js";
import { RpcClient, type BlockMeta } from "./rpc.js";
import {
  countdownText,
  h,
  renderAgreement,
  renderApplied,
  renderBanner,
  renderChain,
  renderPlan,
  renderReadiness,
  renderReadinessNotVerified,
  renderReadinessVerified,
  renderVersions,
  type VersionChange,
} from "./view.js";
import { VerifiedReader, type VerifiedState } from "./verified.js";
import { renderNoRoot, renderRootRefused, renderUnprovable, renderVerificationFailure, renderVerified, tickAge, verifiedHaltLine } from "./view-verified.js";
import { renderTrustPanel, type TrustActions, type TrustPanel } from "./view-trust.js";

const $ = (id: string) => document.getElementById(id) as HTMLElement;
const params = new URLSearchParams(location.search);
const POLL_MS = Math.min(60_000, Math.max(200, Number(params.get("poll")) || 1000));
const WARN_BLOCKS = /^[0-9]{1,12}$/.test(params.get("warn_blocks") ?? "") ? BigInt(params.get("warn_blocks")!) : DEFAULT_READINESS_WARN_BLOCKS;
const DEFAULTS = { rest: "http://127.0.0.1:1317", rpc: "http://127.0.0.1:26657" };

interface Config {
  rest: string;
  rpc: string;
}

interface Snapshot {
  chain: Part<ChainView>;
  rest: UpgradeState;
  raw: RawState;
  blocks: Map<bigint, BlockMeta | Problem>;
  /** undefined: no upgrade applied; null: the applied upgrades could not be read. */
  change: VersionChange | undefined | null;
  avgBlockMs: number | undefined;
  /** When this page first saw the chain's current height (its own clock). */
  seenAt: number;
  /** Upgrade readiness, read both ways (an xupgrade extension: readiness.ts). */
  readiness: { rest: Part<ReadinessView>; raw: Part<ReadinessView> };
}

let core: Core | undefined;
let config: Config | Problem = new Problem("bad-url", "No node address yet.");
const MODES: Source[] = ["verified", "rest", "raw"];
const asMode = (v: string | null): Source | undefined => MODES.find((m) => m === v);
/** Set once the page knows whether a devnet serves it (a single-process one cannot be verified: REST by default). */
let mode: Source = asMode(params.get("mode")) ?? "verified";
let servedByDevnet = false;
/** A devnet under CometBFT: its headers are CometBFT's, its state is proven as a Cosmos SDK chain's. */
let devnetOnCometbft = false;
let reader: VerifiedReader | undefined;
let generation = 0;
/** The latest poll's result, and the latest in which the node answered (shown, dimmed, while it does not). */
let latest: Snapshot | undefined;
let snapshot: Snapshot | undefined;
/** The last time the node answered: what it said, for the "unreachable" and "halted" wording. */
let lastSeen: { chain: ChainView; plan: PlanView | undefined; at: number; eta?: Eta } | undefined;
let polls = 0;
let lastPollAt = 0;
let currentEta: Eta | undefined;
/** The first poll of the ones in a row that found the node halted for this plan (said from the second: see haltedFor). */
let haltSeen: { key: string; poll: number } | undefined;
/** When this page first saw the current height: the ETA counts from there, so a stalled chain runs out. */
let heightSeen: { key: string; height: bigint; at: number } | undefined;
let internalErrors = 0;
const planNamesSeen = new Set<string>();
const blockCache = new Map<string, BlockMeta>();
/** Versions at (upgrade height - 1) from the node, or null when the node does not keep that state. */
const beforeCache = new Map<string, VersionView[] | null>();

// ---- configuration ----

async function initialConfig(): Promise<Config> {
  const rest = params.get("rest");
  const rpc = params.get("rpc");
  if (rest !== null || rpc !== null) return { rest: rest ?? DEFAULTS.rest, rpc: rpc ?? DEFAULTS.rpc };
  // Served by a devnet (`/ui`): REST is this page's origin, the RPC address comes from config.json.
  if (location.protocol === "http:" || location.protocol === "https:") {
    try {
      const res = await fetch("./config.json", { cache: "no-store", signal: AbortSignal.timeout(2000) });
      const c = res.ok ? ((await res.json()) as { rpc?: unknown; engine?: unknown }) : undefined;
      if (c && typeof c.rpc === "string" && c.rpc) {
        servedByDevnet = true;
        devnetOnCometbft = c.engine === "cometbft";
        return { rest: location.origin, rpc: sameHost(c.rpc) };
      }
    } catch {
      /* not served by a devnet */
    }
  }
  return DEFAULTS;
}

/** A loopback or wildcard RPC address, as the node sees it, on the host name this page was loaded from. */
function sameHost(rpc: string): string {
  try {
    const u = new URL(rpc);
    if (["127.0.0.1", "localhost", "0.0.0.0", "[::]", "[::1]"].includes(u.hostname)) u.hostname = location.hostname;
    return u.href.replace(/\/+$/, "");
  } catch {
    return rpc;
  }
}

function applyConfig(texts: Config, updateUrl: boolean): void {
  ($("rest-url") as HTMLInputElement).value = texts.rest;
  ($("rpc-url") as HTMLInputElement).value = texts.rpc;
  try {
    config = { rest: parseBaseUrl(texts.rest, "REST"), rpc: parseBaseUrl(texts.rpc, "RPC") };
  } catch (e) {
    config = toProblem(e);
  }
  generation++;
  reader = undefined;
  latest = undefined;
  snapshot = undefined;
  lastSeen = undefined;
  currentEta = undefined;
  heightSeen = undefined;
  haltSeen = undefined;
  if (updateUrl) setParam({ rest: texts.rest, rpc: texts.rpc });
  renderTrustPanel($("trust"), { kind: "none" }, trustActions);
  resetCards(config instanceof Problem ? "—" : "Connecting…");
}

function resetCards(note: string): void {
  const titles: Record<string, string> = {
    chain: "Chain",
    plan: "Scheduled upgrade",
    readiness: "Readiness",
    applied: "Applied upgrades",
    versions: "Module versions",
    agreement: "REST and raw store",
  };
  for (const [id, title] of Object.entries(titles)) $(id).replaceChildren(h("h2", {}, title), h("p", { class: "muted" }, note));
  document.querySelector("main")!.classList.remove("stale");
}

function setParam(values: Record<string, string | undefined>): void {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  history.replaceState(null, "", url);
}

// ---- one poll ----

async function readChain(rpc: RpcClient): Promise<Part<ChainView>> {
  try {
    const status = await rpc.status();
    let times: number[] = [];
    try {
      const from = status.height > 19n ? status.height - 19n : 1n;
      times = (await rpc.blockMetas(from, status.height)).map((m) => parseTime(m.time)).filter((t) => Number.isFinite(t));
    } catch {
      /* no ETA this time; the status alone still counts */
    }
    return ok({ ...status, recentBlockTimes: times }, status.height);
  } catch (e) {
    return failed(toProblem(e, "RPC"));
  }
}

const cardEls = () => ({ chain: $("chain"), plan: $("plan"), applied: $("applied"), versions: $("versions"), agreement: $("agreement"), banner: $("banner") });

/** Verified mode: the light client verifies the latest header and proves every fact; node info alone is read unverified. */
async function verifiedPoll(gen: number, rpcBase: string): Promise<void> {
  reader ??= new VerifiedReader({
    rpc: rpcBase,
    trustHeight: params.get("trust_height") ?? undefined,
    trustHash: params.get("trust_hash") ?? undefined,
    trustingPeriod: params.get("trusting_period") ?? undefined,
    maxAge: params.get("max_age") ?? undefined,
    witnesses: params.getAll("witness"),
    chain: params.get("chain") ?? (servedByDevnet && !devnetOnCometbft ? "xupgrade-devnet" : undefined),
  });
  const [state, node] = await Promise.all([reader.read(), readChain(new RpcClient(rpcBase))]);
  if (gen !== generation || mode !== "verified") return;
  const els = cardEls();
  const footer = $("footer");
  document.querySelector("main")!.classList.remove("stale");
  renderTrustPanel($("trust"), trustPanelOf(state), trustActions);
  if (state.kind !== "verified") renderReadinessNotVerified($("readiness"));
  delete document.body.dataset.root;
  if (state.kind === "verified") {
    if (heightSeen?.key !== state.header.chainId || heightSeen.height !== state.header.height)
      heightSeen = { key: state.header.chainId, height: state.header.height, at: Date.now() };
    // A verified header at the plan's height over a state that still holds the plan: the halt, proven — at once
    // when the header is older than the freshness bound (the library found it), else from the second poll.
    const stale = state.fresh.halted && state.plan ? state.plan : undefined;
    const halt = stale ?? haltedFor({ chainKey: `${state.header.chainId}/verified`, height: state.header.height }, state.plan);
    currentEta = renderVerified(els, state, node, heightSeen.at, halt !== undefined);
    renderReadinessVerified($("readiness"), state.readiness, state.provenAt, { height: state.header.height }, WARN_BLOCKS, state.trust.root.confirmed);
    if (halt) renderHalted(halt, [], verifiedHaltLine(state, halt));
    document.body.dataset.state = halt ? "halted" : "verified";
    document.body.dataset.root = state.trust.root.confirmed ? "confirmed" : "unconfirmed";
    footer.dataset.refreshMs = String(Math.round(state.refreshMs));
    footer.dataset.verifiedHeight = state.header.height.toString();
  } else {
    currentEta = undefined;
    if (state.kind === "failed") renderVerificationFailure(els, state);
    else if (state.kind === "no-root") renderNoRoot(els, state);
    else if (state.kind === "root-refused") renderRootRefused(els, state);
    else renderUnprovable(els, state);
    document.body.dataset.state = state.kind === "failed" ? "refused" : state.kind;
  }
}

/** What the trust panel says for a state of verified mode. */
function trustPanelOf(state: VerifiedState): TrustPanel {
  switch (state.kind) {
    case "no-root":
      return { kind: "no-root", chainId: state.chainId, node: state.node };
    case "root-refused":
      return { kind: "refused", trust: state.trust, height: state.height, theirs: state.theirs };
    case "verified":
    case "failed":
      if (state.trust?.root.setAside) return { kind: "set-aside", trust: state.trust };
      if (state.kind === "verified" && !state.trust.root.confirmed) return { kind: "unconfirmed", trust: state.trust };
      return { kind: "none" };
    default:
      return { kind: "none" };
  }
}

/**
 * The trust panel's actions: each changes what the reader trusts, then the page verifies again at once — a refresh
 * already under way belongs to the trust before, and its result is dropped (a new generation).
 */
function trusting(note: string | undefined): void {
  generation++;
  if (note) resetCards(note);
  schedule(0);
}

const trustActions: TrustActions = {
  giveRoot(height, hash) {
    reader?.giveRoot(height, hash);
    trusting("Verifying from the root you gave…");
  },
  trustFirstUse() {
    reader?.trustFirstUse();
    trusting("Verifying from this node's latest header…");
  },
  confirm(hash) {
    void reader?.confirm(hash).then(() => trusting(undefined));
  },
  replace(hash) {
    trusting(reader?.replaceWithLinked(hash) === "replaced" ? "Verifying from the link's root…" : undefined);
  },
};

async function poll(gen: number): Promise<void> {
  if (config instanceof Problem) {
    showConfigProblem(config);
    return;
  }
  if (mode === "verified") return verifiedPoll(gen, config.rpc);
  if (!core) return;
  const { rest: restBase, rpc: rpcBase } = config;
  const rpc = new RpcClient(rpcBase);
  const rest = new RestClient(restBase);

  const chainP = readChain(rpc);
  const rawP = readRawState(rpc, core);
  // REST cannot list applied upgrades: ask for every name the store's 0x01 range and the plans seen know.
  const namesP = Promise.all([chainP, rawP]).then(([chain, raw]) => {
    const names = new Set(planNamesSeen);
    if (chain.ok) for (const n of planNames(chain.value.chainKey)) names.add(n);
    if (raw.applied.ok) for (const u of raw.applied.value) names.add(u.name);
    return [...names];
  });
  const readinessP = Promise.all([readReadinessRest(restBase), rawP.then((r) => readReadinessRaw(rpc, r.plan))]);
  const [chain, raw, restState, [readinessRest, readinessRaw]] = await Promise.all([chainP, rawP, readRestState(rest, namesP), readinessP]);
  if (gen !== generation) return;
  const seenAt = Date.now();

  for (const s of [restState, raw]) if (s.plan.ok && s.plan.value) planNamesSeen.add(s.plan.value.name);
  const chainKey = chain.ok ? chain.value.chainKey : undefined;
  if (chain.ok) {
    for (const n of planNamesSeen) rememberPlanName(chain.value.chainKey, n);
    const versions = restState.versions.ok ? restState.versions : raw.versions;
    const at = versions.ok ? (versions.at ?? chain.value.height) : 0n;
    // A read that already shows an upgrade above the height it reports (a node answering from the block
    // it is committing) would file the new versions under the old height: skip it.
    const appliedHeights = [restState.applied, raw.applied].flatMap((p) => (p.ok ? p.value.map((u) => u.height) : []));
    if (versions.ok && appliedHeights.every((h) => h <= at)) observeVersions(chain.value.chainKey, at, versions.value);
  }

  const blocks = await blockRecords(rpc, rpcBase, [restState, raw]);
  const shown = mode === "rest" ? restState : raw;
  const last = shown.applied.ok ? shown.applied.value[shown.applied.value.length - 1] : undefined;
  const previous = shown.applied.ok ? shown.applied.value[shown.applied.value.length - 2] : undefined;
  const current = shown.versions.ok ? shown.versions.value : [];
  const change = !shown.applied.ok
    ? null
    : last && chainKey
      ? { upgrade: last, before: await versionsBeforeUpgrade(rest, chainKey, last, current, previous?.height ?? 0n) }
      : undefined;
  if (gen !== generation) return;

  const avgBlockMs = chain.ok ? averageBlockMs(chain.value.recentBlockTimes) : undefined;
  if (chain.ok && (heightSeen?.key !== chain.value.chainKey || heightSeen.height !== chain.value.height)) {
    heightSeen = { key: chain.value.chainKey, height: chain.value.height, at: seenAt };
  }
  const next: Snapshot = {
    chain,
    rest: restState,
    raw,
    blocks,
    change,
    avgBlockMs,
    seenAt: heightSeen?.at ?? seenAt,
    readiness: { rest: readinessRest, raw: readinessRaw },
  };
  if (chain.ok) lastSeen = { chain: chain.value, plan: shown.plan.ok ? shown.plan.value : lastSeen?.plan, at: seenAt };
  render(next);
}

async function blockRecords(rpc: RpcClient, rpcBase: string, states: UpgradeState[]): Promise<Map<bigint, BlockMeta | Problem>> {
  const heights = new Set<bigint>();
  for (const s of states) if (s.applied.ok) for (const u of s.applied.value) heights.add(u.height);
  const blocks = new Map<bigint, BlockMeta | Problem>();
  await Promise.all(
    [...heights].map(async (height) => {
      const key = `${rpcBase}|${height}`;
      let meta = blockCache.get(key);
      if (!meta) {
        try {
          meta = (await rpc.blockMetas(height, height)).find((m) => m.height === height);
          if (!meta) throw new Problem("garbage", `RPC blockchain did not return block ${height}.`);
          blockCache.set(key, meta);
        } catch (e) {
          blocks.set(height, toProblem(e, `block record ${height}`));
          return;
        }
      }
      blocks.set(height, meta);
    }),
  );
  return blocks;
}

/** Versions before an upgrade: the node's state at height H-1 if it keeps it, else what this page saw. */
async function versionsBeforeUpgrade(
  rest: RestClient,
  chainKey: string,
  upgrade: AppliedView,
  current: VersionView[],
  since: bigint,
): Promise<VersionChange["before"]> {
  const key = `${chainKey}|${upgrade.height}`;
  if (!beforeCache.has(key) && upgrade.height > 1n) {
    try {
      const p = await rest.moduleVersions(upgrade.height - 1n);
      if (p.ok) beforeCache.set(key, p.value);
    } catch (e) {
      // Only a node that answered "not retained" settles it; a failed connection asks again next time.
      const kind = toProblem(e).kind;
      if (kind === "http" || kind === "garbage") beforeCache.set(key, null);
    }
  }
  const fromNode = beforeCache.get(key);
  if (fromNode) return { versions: fromNode, how: `the node's state at height ${upgrade.height - 1n}` };
  const seen = versionsBefore(chainKey, upgrade.height, current, since);
  if (seen) return { versions: seen.versions, how: `as this page saw them at height ${seen.height} (the node keeps no older state)` };
  return undefined;
}

// ---- rendering ----

const SEVERITY: ProblemKind[] = ["corrupt", "cors", "garbage", "bad-url", "http", "rpc", "abci", "timeout", "unreachable", "internal"];

function render(snap: Snapshot): void {
  latest = snap;
  renderTrustPanel($("trust"), { kind: "none" }, trustActions);
  delete document.body.dataset.root;
  const problems: Problem[] = [];
  const collect = (p: Part<unknown>) => !p.ok && problems.push(p.problem);
  collect(snap.chain);
  for (const s of [snap.rest, snap.raw]) [s.plan, s.applied, s.versions].forEach(collect);
  collect(snap.raw.protocolVersion);
  for (const b of snap.blocks.values()) if (b instanceof Problem) problems.push(b);

  const down = (p: Part<unknown>) => !p.ok && (p.problem.kind === "unreachable" || p.problem.kind === "timeout");
  const unreachable = down(snap.chain) && down(snap.rest.plan) && down(snap.rest.versions);
  const stale = unreachable && snapshot !== undefined;
  if (!stale) snapshot = snap;
  const shownSnap = stale ? snapshot! : snap;
  const shown = mode === "rest" ? shownSnap.rest : shownSnap.raw;
  const chain = shownSnap.chain.ok ? shownSnap.chain.value : undefined;

  currentEta = undefined;
  if (shown.plan.ok && shown.plan.value && chain) currentEta = eta(shown.plan.value.height, chain.height, shownSnap.avgBlockMs, shownSnap.seenAt);
  if (!stale && lastSeen) lastSeen.eta = currentEta;

  const halt = stale ? undefined : haltedFor(chain, shown.plan.ok ? shown.plan.value : undefined);
  renderChain($("chain"), shownSnap.chain, shownSnap.avgBlockMs, stale);
  renderPlan($("plan"), shown.plan, mode, chain, currentEta, shown.applied.ok ? shown.applied.value.length : 0, halt !== undefined);
  const layout = mode === "raw" && shownSnap.raw.doneLayout ? doneLayoutText(shownSnap.raw.doneLayout) : undefined;
  renderReadiness($("readiness"), mode === "rest" ? shownSnap.readiness.rest : shownSnap.readiness.raw, mode, chain, WARN_BLOCKS);
  renderApplied($("applied"), shown.applied, mode, shownSnap.blocks, mode === "rest", layout);
  renderVersions($("versions"), shown.versions, mode, shownSnap.change);
  renderAgreement(
    $("agreement"),
    [...compareStates(shownSnap.rest, shownSnap.raw), compareAppVersion(shownSnap.raw.protocolVersion, chain?.appVersion)],
    shownSnap.raw.entries,
    mode === "raw",
  );
  document.querySelector("main")!.classList.toggle("stale", stale);

  if (unreachable) {
    document.body.dataset.state = "unreachable";
    renderBanner($("banner"), "unreachable", `Node unreachable — still trying every ${POLL_MS / 1000} s.`, [...haltHint(), ...problemLines(problems)]);
  } else if (halt) {
    document.body.dataset.state = "halted";
    renderHalted(halt, problemLines(problems));
  } else if (problems.length) {
    const worst = SEVERITY.find((k) => problems.some((p) => p.kind === k)) ?? "internal";
    document.body.dataset.state = worst === "corrupt" ? "corrupt" : "degraded";
    renderBanner($("banner"), "degraded", HEADLINE[worst], problemLines(problems));
  } else {
    document.body.dataset.state = "ok";
    renderBanner($("banner"), "ok", "", []);
  }
}

/** The banner of a node halted at its plan's height (docs/spec/keeper.md §6.2); `said`: verified mode's own words. */
function renderHalted(halt: PlanView, problems: string[], said?: string): void {
  renderBanner($("banner"), "halted", `Halted at height ${halt.height}, waiting for ${halt.name}.`, [
    said ??
      `The node reached the height of upgrade “${halt.name}” and stopped there, as every validator does; it still answers, from its state at height ${halt.height - 1n}. It resumes once a binary with the “${halt.name}” handler runs (a sidecar switches it by itself).`,
    ...problems,
  ]);
}

/** One line per distinct failure: "RPC status, REST current_plan: cannot reach …". */
function problemLines(problems: Problem[]): string[] {
  const byDetail = new Map<string, string[]>();
  for (const p of problems) {
    const subjects = byDetail.get(p.detail) ?? [];
    if (p.subject && !subjects.includes(p.subject)) subjects.push(p.subject);
    byDetail.set(p.detail, subjects);
  }
  return [...byDetail].map(([detail, subjects]) => (subjects.length ? `${subjects.join(", ")}: ${detail}` : detail));
}

const HEADLINE: Record<ProblemKind, string> = {
  corrupt: "Corrupt store value: the WASM core refuses to decode what the node stores.",
  cors: "The node refuses cross-origin reads (CORS).",
  garbage: "The node answered something this page cannot read.",
  "bad-url": "The node address is not usable.",
  http: "The node answered with an error.",
  rpc: "The RPC answered with an error.",
  abci: "An abci_query failed.",
  timeout: "The node is slow to answer.",
  unreachable: "Part of the node is unreachable.",
  internal: "Something went wrong in the page.",
};

/**
 * The plan the node has halted for (docs/spec/keeper.md §6.2): CometBFT stores a block at the plan's height
 * while the state still has the plan scheduled, on two polls in a row — a node applying the upgrade looks
 * the same for the moment it executes that block.
 */
function haltedFor(chain: Pick<ChainView, "chainKey" | "height"> | undefined, plan: PlanView | undefined): PlanView | undefined {
  if (!chain || !plan || !haltedForPlan(plan, chain.height)) {
    haltSeen = undefined;
    return undefined;
  }
  const key = `${chain.chainKey}|${plan.name}|${plan.height}`;
  if (haltSeen?.key !== key) haltSeen = { key, poll: polls };
  return polls > haltSeen.poll ? plan : undefined;
}

/** When the node stops right before a plan's height, it has most likely halted for the upgrade. */
function haltHint(): string[] {
  if (!lastSeen) return ["The node has not answered since the page connected."];
  const { chain, plan, at, eta: due } = lastSeen;
  const when = new Date(at).toLocaleTimeString();
  const lines = [`Last answer at ${when}: ${chain.chainId} at height ${chain.height}.`];
  if (plan && (plan.height - chain.height <= 5n || (due !== undefined && due.at <= Date.now()))) {
    lines.unshift(
      `The node stopped just before height ${plan.height}, where upgrade “${plan.name}” is scheduled: it has most likely halted for the upgrade. Start the new binary; this page picks the chain up again when it answers.`,
    );
  }
  return lines;
}

function showConfigProblem(problem: Problem): void {
  document.body.dataset.state = "error";
  renderBanner($("banner"), "error", "The node address is not usable.", [problem.message]);
}

function renderFooter(): void {
  const footer = $("footer");
  footer.dataset.polls = String(polls);
  footer.replaceChildren(
    `core: ${core?.backend ?? "loading"} · `,
    h("span", { "data-testid": "poll-count" }, `poll #${polls}`),
    ` every ${POLL_MS / 1000} s · last ${lastPollAt ? new Date(lastPollAt).toLocaleTimeString() : "—"}`,
    internalErrors ? ` · ${internalErrors} internal error(s), see the console` : "",
  );
}

function tick(): void {
  const el = document.querySelector<HTMLElement>('[data-testid="countdown"]');
  if (el && currentEta) el.textContent = countdownText(currentEta);
  tickAge();
}

// ---- the loop ----

let timer: ReturnType<typeof setTimeout> | undefined;
let running = false;
let again = false;

function schedule(ms: number): void {
  clearTimeout(timer);
  timer = setTimeout(() => void loop(), ms);
}

async function loop(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  polls++;
  try {
    await poll(generation);
  } catch (e) {
    // poll() words every expected failure itself; anything else is a bug, reported and survived.
    internalErrors++;
    console.error(e);
    renderBanner($("banner"), "error", "Something went wrong in the page; it keeps polling.", [toProblem(e).message]);
  } finally {
    running = false;
    lastPollAt = Date.now();
    renderFooter();
    schedule(again ? 0 : POLL_MS);
    again = false;
  }
}

async function main(): Promise<void> {
  window.addEventListener("error", () => void internalErrors++);
  window.addEventListener("unhandledrejection", () => void internalErrors++);
  const modeInputs = document.querySelectorAll<HTMLInputElement>('input[name="mode"]');
  for (const input of modeInputs) {
    input.addEventListener("change", () => {
      mode = asMode(input.value) ?? "verified";
      setParam({ mode });
      if (mode !== "verified" && latest) render(latest);
      else {
        resetCards("Verifying…");
        schedule(0);
      }
    });
  }
  $("connect").addEventListener("submit", (ev) => {
    ev.preventDefault();
    applyConfig({ rest: ($("rest-url") as HTMLInputElement).value, rpc: ($("rpc-url") as HTMLInputElement).value }, true);
    schedule(0);
  });
  setInterval(tick, 200);

  try {
    core = await loadCore("wasm");
  } catch (e) {
    console.error(e);
    core = await loadCore("js");
    renderBanner($("banner"), "error", "The WebAssembly core could not load; using the pure-TypeScript core.", [toProblem(e).message]);
  }
  applyConfig(await initialConfig(), false);
  // A single-process devnet cannot be verified: its page opens on REST (verified mode says why when chosen).
  // A devnet under CometBFT is verified like any Cosmos chain.
  const unverifiable = servedByDevnet && !devnetOnCometbft;
  if (unverifiable && !asMode(params.get("mode"))) mode = "rest";
  for (const input of modeInputs) input.checked = input.value === mode;
  if (unverifiable) $("verify-note").textContent = "This devnet cannot be verified yet: its state is shown unverified.";
  await loop();
}

void main().catch((e: unknown) => {
  internalErrors++;
  console.error(e);
  renderBanner($("banner"), "error", "The page could not start.", [toProblem(e).message]);
});
