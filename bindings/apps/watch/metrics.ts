/**
 * The watch's Prometheus text at `/metrics` (docs/spec/watch.md §9), made by prom-client: per chain (labels
 * `chain`, `chain_id`) the blocks left to the plan, the ETA's median and band width, readiness, the verified
 * header's height and age, whether the trust root is confirmed, whether the last poll verified, verification
 * failures by check; and the alerts made and delivered. Every name is prefixed `xupgrade_watch_`.
 */
import { Counter, Gauge, Registry } from "prom-client";
import type { ChainSnapshot } from "./snapshot.js";

const P = "xupgrade_watch_";
const L = ["chain", "chain_id"] as const;

export class WatchMetrics {
  readonly registry = new Registry();
  private readonly g = (name: string, help: string, labelNames: readonly string[] = L) =>
    new Gauge({ name: P + name, help, labelNames, registers: [this.registry] });
  private readonly blocksLeft = this.g("blocks_left", "Blocks until the scheduled plan's height (absent without a plan)");
  private readonly planHeight = this.g("plan_height", "The scheduled plan's height, verified (0 when none is scheduled, its absence proven)");
  private readonly etaP50 = this.g("eta_p50_seconds", "Seconds until the plan's height, the ETA band's median");
  private readonly etaBand = this.g("eta_band_seconds", "Width of the ETA band (p90 − p10), seconds");
  private readonly etaTime = this.g("eta_timestamp_seconds", "The ETA band's edges and median as Unix times", [...L, "quantile"]);
  private readonly readiness = this.g("readiness_ratio", "Share of the voting power ready for the plan (absent when the chain keeps no tally)");
  private readonly height = this.g("verified_height", "Height of the newest verified header");
  private readonly age = this.g("verified_header_age_seconds", "Age of the newest verified header by this machine's clock");
  private readonly verified = this.g("verified", "1 when the last poll verified everything, 0 when it failed or got no answer");
  private readonly confirmed = this.g("trust_root_confirmed", "1 when the chain's trust root was confirmed (given), 0 when it rests on first use");
  private readonly halted = this.g("halted", "1 while the chain is halted at its plan's height (proven)");
  private readonly failures = new Counter({
    name: `${P}verification_failures_total`,
    help: "Polls whose verification failed, by check",
    labelNames: [...L, "check"],
    registers: [this.registry],
  });
  private readonly alerts = new Counter({ name: `${P}alerts_total`, help: "Alerts made, by kind", labelNames: ["chain", "kind"], registers: [this.registry] });
  private readonly deliveries = new Counter({
    name: `${P}webhook_deliveries_total`,
    help: "Webhook deliveries ended, by result",
    labelNames: ["result"],
    registers: [this.registry],
  });

  /** The chain id each chain's series carry (a chain first seen unreachable has none until it answers). */
  private readonly ids = new Map<string, string>();

  observe(s: ChainSnapshot): void {
    const l = { chain: s.name, chain_id: s.chainId ?? "" };
    const was = this.ids.get(s.name);
    if (was !== undefined && was !== l.chain_id) {
      const old = { chain: s.name, chain_id: was };
      for (const g of [
        this.blocksLeft,
        this.planHeight,
        this.etaP50,
        this.etaBand,
        this.readiness,
        this.height,
        this.age,
        this.verified,
        this.confirmed,
        this.halted,
      ])
        g.remove(old);
      for (const q of ["0.1", "0.5", "0.9"]) this.etaTime.remove({ ...old, quantile: q });
    }
    this.ids.set(s.name, l.chain_id);
    for (const g of [this.blocksLeft, this.etaP50, this.etaBand, this.readiness]) g.remove(l);
    for (const q of ["0.1", "0.5", "0.9"]) this.etaTime.remove({ ...l, quantile: q });
    this.verified.set(l, s.status === "verified" ? 1 : 0);
    if (s.root) this.confirmed.set(l, s.root.confirmed ? 1 : 0);
    if (s.status === "failed" && s.failure) this.failures.inc({ ...l, check: s.failure.check });
    if (s.status !== "verified" || !s.header) return;
    this.height.set(l, Number(s.header.height));
    this.age.set(l, s.header.ageMs / 1000);
    this.halted.set(l, s.halted ? 1 : 0);
    this.planHeight.set(l, s.plan ? Number(s.plan.height) : 0);
    if (s.plan) this.blocksLeft.set(l, Math.max(0, Number(s.plan.height - s.header.height)));
    if (s.eta) {
      this.etaP50.set(l, Math.max(0, (s.eta.p50 - s.at) / 1000));
      this.etaBand.set(l, (s.eta.p90 - s.eta.p10) / 1000);
      this.etaTime.set({ ...l, quantile: "0.1" }, s.eta.p10 / 1000);
      this.etaTime.set({ ...l, quantile: "0.5" }, s.eta.p50 / 1000);
      this.etaTime.set({ ...l, quantile: "0.9" }, s.eta.p90 / 1000);
    }
    if (s.readiness && s.readiness !== "none") this.readiness.set(l, s.readiness.share);
  }

  alert(chain: string, kind: string): void {
    this.alerts.inc({ chain, kind });
  }

  delivered(ok: boolean): void {
    this.deliveries.inc({ result: ok ? "sent" : "failed" });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
