/**
 * One chain, followed (docs/spec/watch.md §4): the verified light client `xupgrade/light` from the chain's trust
 * root (the config's, the saved one, or first use when the config asks — then "unconfirmed" everywhere), its
 * witnesses required unless the config opts out. Each poll verifies the node's latest header, proves the plan, the
 * proposals in their voting period and the readiness tally against it, adds the header's time to the history, and
 * walks a little further back for more; a failed check makes the snapshot "failed" with the check, and nothing
 * of that poll counts as verified. Browser-safe: the fleet page follows chains with it too.
 */
import { toHex } from "@cosmjs/encoding";
import { NoWitnessConfirmedError, ProviderError, VerificationError } from "../../light/errors.js";
import { resolveTrustRoot, rememberVerified, unconfirmedWarning, type ResolvedRoot, type RootStore } from "../../light/trust-root.js";
import { formatTimestamp, timestampNs } from "../../light/types.js";
import { providerOf, VerifiedUpgradeClient, type VerifiedUpgradeOptions } from "../../light/upgrade.js";
import type { LightProvider } from "../../light/provider.js";
import type { ChainConfig } from "./config.js";
import { etaBand } from "./eta.js";
import { HeaderHistory } from "./history.js";
import type { ChainSnapshot, PlanFact, ReadinessFact } from "./snapshot.js";
import type { VisorReader } from "./visor.js";

export interface FollowerOptions {
  chain: ChainConfig;
  store: RootStore;
  history: HeaderHistory;
  maxAgeMs: number;
  /** Per RPC call. */
  timeoutMs?: number;
  /** `blockchain` calls per poll for the walk back (default 10: 200 headers). */
  backfillCalls?: number;
  /** The upgrade the watch was following before (from its saved memory): checked for its Done record once gone. */
  following?: { name: string; height: bigint };
  visor?: VisorReader;
  now?: () => number;
  /** Providers for the node and witnesses (tests hand in their own); default RPC over HTTP. */
  provider?: (url: string) => LightProvider;
}

/** The light client follows at most 10,000 headers back from a verified one; the walk stops short of that. */
const BACKFILL_LIMIT = 9_000n;
/** No block this long below the plan's height is a halt, whatever the chain's pace (twice its slowest block when longer). */
const HALT_AFTER_MS = 15_000;
const upper = (b: Uint8Array) => toHex(b).toUpperCase();
const msOf = (t: { seconds: bigint; nanos: number }) => Number(timestampNs(t) / 1_000_000n);

export class ChainFollower {
  private client?: VerifiedUpgradeClient;
  private root?: ResolvedRoot;
  private readonly confirmations = new Map<bigint, Set<string>>();
  private noReadinessStore = false;
  private following?: { name: string; height: bigint };
  /** The lowest header the walk back reached (the light client keeps it). */
  private walkedTo?: bigint;
  private forwardSampled = false;
  private readonly now: () => number;

  constructor(private readonly o: FollowerOptions) {
    this.now = o.now ?? Date.now;
    this.following = o.following;
  }

  get name(): string {
    return this.o.chain.name;
  }

  private provider(url: string): LightProvider {
    return this.o.provider ? this.o.provider(url) : providerOf(url, this.o.timeoutMs);
  }

  /** The root for this chain (light-client.md §2.1): the saved one when it descends from the config's root, else the config's, else refused or first use. */
  private async resolveRoot(primary: LightProvider): Promise<ResolvedRoot> {
    const c = this.o.chain;
    if (c.trust && c.chainId) {
      const saved = await this.o.store.load(c.chainId);
      const fromThisRoot = saved?.confirmed && saved.origin.height === c.trust.height && saved.origin.hash === c.trust.hash;
      if (fromThisRoot) return resolveTrustRoot(primary, this.o.store, { node: c.rpc, chainId: c.chainId, period: c.trustingPeriod });
    }
    return resolveTrustRoot(primary, this.o.store, {
      node: c.rpc,
      chainId: c.chainId,
      given: c.trust ? { height: c.trust.height, hash: c.trust.hash, how: "given", confirmed: true } : undefined,
      firstUse: c.trustOnFirstUse,
      period: c.trustingPeriod,
    });
  }

  private async connect(): Promise<VerifiedUpgradeClient> {
    const c = this.o.chain;
    const primary = this.provider(c.rpc);
    this.root = await this.resolveRoot(primary);
    const options: VerifiedUpgradeOptions = {
      chainId: c.chainId ?? (this.root.source === "saved" ? this.root.chainId : undefined),
      trust: this.root.trust,
      witnesses: c.witnesses.map((w) => this.provider(w)),
      withoutWitnesses: c.withoutWitnesses,
      chain: c.stateSpec,
      timeoutMs: this.o.timeoutMs,
      onStep: (s) => {
        if (s.kind === "witness" && s.witness) (this.confirmations.get(s.height) ?? this.confirmations.set(s.height, new Set()).get(s.height)!).add(s.witness);
      },
    };
    return VerifiedUpgradeClient.connect(primary, options);
  }

  private base(): ChainSnapshot {
    const r = this.root;
    return {
      name: this.o.chain.name,
      chainId: this.client?.chainId ?? this.o.chain.chainId,
      at: this.now(),
      status: "starting",
      root: r && { source: r.source, confirmed: r.confirmed, origin: r.origin, warning: unconfirmedWarning(r) },
      witnesses: { without: this.o.chain.withoutWitnesses, confirmed: [], faulty: [], unavailable: [] },
      proposals: [],
      history: { samples: this.o.history.all.length, spanMs: this.spanMs(), covered: this.o.history.covered },
    };
  }

  /** Longer than the chain's slowest block in the history (at least HALT_AFTER_MS): no block for this long is a stop. */
  private stallMs(): number {
    const a = this.o.history.all;
    let slowest = 0;
    for (let i = 1; i < a.length; i++) if (a[i].height === a[i - 1].height + 1) slowest = Math.max(slowest, a[i].ms - a[i - 1].ms);
    return Math.max(HALT_AFTER_MS, 2 * slowest);
  }

  private spanMs(): number {
    const h = this.o.history;
    return h.newest && h.lowest ? h.newest.ms - h.lowest.ms : 0;
  }

  /** One poll: verify the latest header, prove the facts, refine the history. Never throws for what a node does. */
  async poll(): Promise<ChainSnapshot> {
    const snap = this.base();
    try {
      if (!this.client) this.client = await this.connect();
      const client = this.client;
      snap.chainId = client.chainId;
      if (!this.forwardSampled) await this.sampleForward(client);
      const header = await client.sync();
      const report = client.light.witnessReport(header.height);
      snap.witnesses = {
        without: client.light.withoutWitnesses,
        confirmed: [...(this.confirmations.get(header.height) ?? report?.confirmed ?? [])],
        faulty: [...(report?.faulty ?? [])],
        unavailable: [...(report?.unavailable ?? [])],
      };
      for (const h of this.confirmations.keys()) if (h < header.height) this.confirmations.delete(h);
      const headerMs = msOf(header.time);
      const now = this.now();
      const lb = client.light.latestTrusted.signedHeader.header;
      snap.header = {
        height: header.height,
        hash: upper(header.hash),
        time: formatTimestamp(header.time),
        ms: headerMs,
        ageMs: Math.max(0, now - headerMs),
        appVersion: lb.version.app,
      };
      this.o.history.add({ height: Number(header.height), ms: headerMs });

      const plan = await client.currentPlan();
      snap.plan = plan.value ? { name: plan.value.name, height: plan.value.height, info: plan.value.info } : null;
      const fresh = await client.freshness({ maxAgeMs: plan.value && plan.value.height === header.height ? 0 : this.o.maxAgeMs, nowMs: now });
      if (plan.value && plan.value.height === header.height) snap.halted = { height: header.height, upgrade: plan.value.name, sinceMs: headerMs };
      else if (fresh.halted) snap.halted = { height: fresh.halted.height, upgrade: fresh.halted.upgrade, sinceMs: headerMs };
      // The last block before the plan's height, and nothing since for longer than the chain ever took: halted at the height.
      else if (plan.value && plan.value.height === header.height + 1n && now - headerMs > this.stallMs())
        snap.halted = { height: plan.value.height, upgrade: plan.value.name, sinceMs: headerMs };
      snap.proposals = await this.proposals(client);
      if (snap.plan) {
        snap.readiness = await this.readiness(client, snap.plan);
        this.following = { name: snap.plan.name, height: snap.plan.height };
      } else if (this.following) {
        const applied = await client.appliedPlan(this.following.name);
        if (applied.value > 0n) {
          snap.applied = { name: this.following.name, height: applied.value };
          this.following = undefined; // said once; the Done range is not proven again every poll
        }
      }
      snap.protocolVersion = (await client.protocolVersion()).value;
      await rememberVerified(this.o.store, this.root!, client.trustRoot());
      snap.status = "verified";
      await this.walkBack(client);
    } catch (e) {
      if (!(e instanceof VerificationError)) throw e;
      // Nobody said anything false — the node, or every witness, could not answer (at a halt the witnesses stop
      // too, some before the node): nothing was verified this time, and that is not a failed check.
      const quiet = (e instanceof ProviderError && e.failure !== "garbage") || (e instanceof NoWitnessConfirmedError && e.onlyUnavailable);
      snap.status = e.name === "NoTrustRootError" ? "no-root" : quiet ? "unreachable" : "failed";
      snap.failure = { check: e.check, height: e.height, message: e.message };
      // Only what this poll verified is shown as verified: none of it.
      snap.plan = undefined;
      snap.header = undefined;
      snap.halted = undefined;
      snap.proposals = [];
      snap.readiness = undefined;
    }
    const r = this.root;
    if (r) snap.root = { source: r.source, confirmed: r.confirmed, origin: r.origin, warning: unconfirmedWarning(r) };
    snap.history = { samples: this.o.history.all.length, spanMs: this.spanMs(), covered: this.o.history.covered };
    const target = snap.plan?.height ?? undefined;
    if (target !== undefined && snap.status === "verified") snap.eta = etaBand(this.o.history.all, Number(target), this.now());
    if (this.o.visor) snap.visor = await this.o.visor.read();
    return snap;
  }

  private async proposals(client: VerifiedUpgradeClient): Promise<ChainSnapshot["proposals"]> {
    const p = await client.proposedUpgrades();
    return p.value.map((x) => ({
      id: x.proposalId,
      plan: { name: x.plan.name, height: x.plan.height, info: x.plan.info },
      votingEnd: x.votingEndTime ? formatTimestamp(x.votingEndTime) : undefined,
      title: x.title,
    }));
  }

  /** The plan's tally; "none" for a chain without the readiness store (asked once: a node answers that with an error, not a lie). */
  private async readiness(client: VerifiedUpgradeClient, plan: PlanFact): Promise<ReadinessFact | "none" | undefined> {
    if (this.noReadinessStore) return "none";
    try {
      const r = await client.readiness(plan);
      const t = r.value.tally;
      if (!t) return undefined;
      return {
        readyPower: t.readyPower,
        totalPower: t.totalPower,
        share: t.totalPower > 0n ? Number((t.readyPower * 1_000_000n) / t.totalPower) / 1_000_000 : 0,
        updatedHeight: t.updatedHeight,
      };
    } catch (e) {
      if (e instanceof VerificationError && e.check === "provider") {
        this.noReadinessStore = true;
        return "none";
      }
      throw e;
    }
  }

  /** A few calls of the walk back by the hash chain, until the window is covered (history.ts). */
  private async walkBack(client: VerifiedUpgradeClient): Promise<void> {
    const h = this.o.history;
    if (h.covered) return;
    const top = client.light.latestTrusted.height;
    const from = this.walkedTo ?? top;
    const floor = top - BACKFILL_LIMIT > 1n ? top - BACKFILL_LIMIT : 1n;
    if (from <= floor) return;
    const step = 20n * BigInt(this.o.backfillCalls ?? 10);
    const to = from - step > floor ? from - step : floor;
    try {
      for (let x = from - 1n; x >= to; x -= 20n) {
        const rec = await client.light.verifyBackwards(x);
        h.add({ height: Number(rec.height), ms: msOf(rec.header.time) });
      }
      const last = await client.light.verifyBackwards(to);
      h.add({ height: Number(last.height), ms: msOf(last.header.time) });
      this.walkedTo = to;
    } catch (e) {
      // A node that has pruned those headers ends the walk; a header that does not chain is a lie like any other.
      if (e instanceof ProviderError && e.failure !== "garbage") this.walkedTo = floor;
      else throw e;
    }
  }

  /** When the root is older than the history, a few headers between them, verified forward by skipping. */
  private async sampleForward(client: VerifiedUpgradeClient): Promise<void> {
    this.forwardSampled = true;
    const root = client.light.root.height;
    const status = await client.provider.status();
    const lowest = this.o.history.lowest;
    const upTo = lowest && BigInt(lowest.height) > root ? BigInt(lowest.height) : status.latestHeight;
    const span = upTo - root;
    if (span < 100n) return;
    const n = 12n;
    for (let i = 1n; i < n; i++) {
      const b = await client.light.verifyAtHeight(root + (span * i) / n);
      this.o.history.add({ height: Number(b.height), ms: msOf(b.signedHeader.header.time) });
    }
  }
}
