/** The watch's /metrics text (bindings/apps/watch/metrics.ts), read with a Prometheus exposition parser. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { WatchMetrics } from "../../../bindings/apps/watch/metrics.js";
import type { ChainSnapshot } from "../../../bindings/apps/watch/snapshot.js";
import { ROOT } from "../../support/paths.js";

const T = Date.UTC(2026, 4, 4, 10);
const base: ChainSnapshot = {
  name: "hub",
  chainId: "hub-1",
  at: T,
  status: "verified",
  root: { source: "given", confirmed: true, origin: { how: "given", node: "n", height: 1n, hash: "AB", at: "" } },
  witnesses: { without: false, confirmed: ["w"], faulty: [], unavailable: [] },
  header: { height: 900n, hash: "CD", time: "", ms: T - 3000, ageMs: 3000, appVersion: 0n },
  plan: { name: "v2", height: 1000n, info: "" },
  proposals: [],
  readiness: { readyPower: 70n, totalPower: 100n, share: 0.7, updatedHeight: 899n },
  history: { samples: 1, spanMs: 1, covered: false },
  eta: { blocksLeft: 100, p10: T + 500_000, p50: T + 600_000, p90: T + 800_000, method: "analogs", analogs: 50, spanMs: 1 },
};

describe("watch metrics", () => {
  it("every gauge the docs list, per chain, with the values of the snapshot; a failed poll counts its check", async () => {
    const m = new WatchMetrics();
    m.observe(base);
    m.observe({
      ...base,
      name: "sim",
      chainId: "sim-1",
      status: "failed",
      failure: { check: "signature", message: "x" },
      header: undefined,
      plan: undefined,
      eta: undefined,
      readiness: undefined,
    });
    m.alert("hub", "lead");
    const families = parsePrometheusTextFormat(await m.text());
    const value = (name: string, labels: Record<string, string>) =>
      families.find((f) => f.name === `xupgrade_watch_${name}`)?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v))?.value;
    const hub = { chain: "hub", chain_id: "hub-1" };
    expect(value("blocks_left", hub)).toBe("100");
    expect(value("plan_height", hub)).toBe("1000");
    expect(value("eta_p50_seconds", hub)).toBe("600");
    expect(value("eta_band_seconds", hub)).toBe("300");
    expect(value("eta_timestamp_seconds", { ...hub, quantile: "0.9" })).toBe(String((T + 800_000) / 1000));
    expect(value("readiness_ratio", hub)).toBe("0.7");
    expect(value("verified_height", hub)).toBe("900");
    expect(value("verified_header_age_seconds", hub)).toBe("3");
    expect(value("verified", hub)).toBe("1");
    expect(value("trust_root_confirmed", hub)).toBe("1");
    expect(value("halted", hub)).toBe("0");
    expect(value("verified", { chain: "sim" })).toBe("0");
    expect(value("verification_failures_total", { chain: "sim", check: "signature" })).toBe("1");
    expect(value("alerts_total", { chain: "hub", kind: "lead" })).toBe("1");
    // The documented table (docs/spec/watch.md §9) and the families served agree.
    const doc = readFileSync(join(ROOT, "docs/spec/watch.md"), "utf8").split("## 9. Metrics")[1].split("## 10.")[0];
    const documented = doc
      .split("\n")
      .filter((l) => l.startsWith("| `"))
      .flatMap((l) => [...l.split(" | ")[0].matchAll(/`([a-z_0-9]+)/g)].map((x) => x[1]));
    const served = families.map((f) => f.name.replace(/^xupgrade_watch_/, "")).concat("webhook_deliveries_total");
    expect(new Set(documented)).toEqual(new Set(served));
  });
});
