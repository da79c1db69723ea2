/**
 * The ETA backtest (bench/README.md, "The watch's ETA band, backtested"): replays recorded header-time series
 * (bench/eta/series/*.json) as a watch that polled every block would have seen them, and at each lead time before
 * many target heights asks the watch's model (bindings/apps/watch/eta.ts, with the history thinning of history.ts)
 * for its p10–p90 band, then checks whether the target's actual time fell inside. A lead is tested on a series
 * only when the series holds at least the lead of history before the cut and the lead after it; else it says so.
 * The band the status page drew before (±2σ of the last 19 intervals, examples/light-client/src/eta.ts) is
 * replayed the same way, as the baseline.
 *
 *   node --import tsx bench/eta/backtest.ts [--json bench/eta/results.json]
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { etaBand, type HeaderTime } from "../../bindings/apps/watch/eta.js";
import { HeaderHistory } from "../../bindings/apps/watch/history.js";
import { etaWithBand } from "../../examples/light-client/src/eta.js";
import { ROOT } from "../../test/support/paths.js";

const { values } = parseArgs({
  options: { json: { type: "string", default: join(ROOT, "bench/eta/results.json") }, targets: { type: "string", default: "400" } },
});
const LEADS: [string, number][] = [
  ["24h", 86_400_000],
  ["2h", 7_200_000],
  ["10m", 600_000],
];
const WINDOW_MS = 72 * 3_600_000;
const TARGETS = Number(values.targets);

interface Series {
  name: string;
  source: string;
  headers: HeaderTime[];
}

function load(): Series[] {
  const dir = join(ROOT, "bench/eta/series");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const j = JSON.parse(readFileSync(join(dir, f), "utf8")) as { source: string; base_ms: number; headers: [number, number][] };
      return { name: f.replace(/\.json$/, ""), source: j.source, headers: j.headers.map(([height, ms]) => ({ height, ms: j.base_ms + ms })) };
    });
}

export interface LeadResult {
  series: string;
  lead: string;
  tested: boolean;
  why?: string;
  targets: number;
  held: number;
  early: number;
  late: number;
  /** Median band width (p90 − p10) as a share of the lead. */
  medianWidth: number;
  baselineHeld: number;
}

function run(s: Series, lead: string, leadMs: number): LeadResult {
  const h = s.headers;
  const first = h[0].ms;
  const last = h[h.length - 1].ms;
  const base: LeadResult = { series: s.name, lead, tested: false, targets: 0, held: 0, early: 0, late: 0, medianWidth: NaN, baselineHeld: 0 };
  // A target needs `leadMs` of history before its cut, and the cut is `leadMs` before it.
  const candidates = h.filter((x) => x.ms - leadMs - leadMs >= first);
  if (candidates.length === 0) {
    return {
      ...base,
      why: `too short: ${((last - first) / 3_600_000).toFixed(2)} h of headers, a ${lead} lead needs ${((2 * leadMs) / 3_600_000).toFixed(2)} h`,
    };
  }
  const step = Math.max(1, Math.floor(candidates.length / TARGETS));
  const targets = candidates.filter((_, i) => i % step === 0);
  // One running history per lead, fed in time order as a watch polling every block would have been.
  const jobs = targets.map((t) => ({ t, cut: t.ms - leadMs })).sort((a, b) => a.cut - b.cut);
  const history = new HeaderHistory(WINDOW_MS);
  let next = 0;
  const widths: number[] = [];
  const r = { ...base, tested: true, targets: jobs.length };
  for (const { t, cut } of jobs) {
    while (next < h.length && h[next].ms <= cut) history.add(h[next++]);
    const seen = history.all;
    const band = etaBand(seen, t.height, cut);
    if (!band) continue;
    widths.push((band.p90 - band.p10) / leadMs);
    if (t.ms < band.p10) r.early++;
    else if (t.ms > band.p90) r.late++;
    else r.held++;
    // The page's old band: ±2σ of the last 19 intervals.
    const recent = seen.slice(-20);
    const latest = recent[recent.length - 1];
    const old = etaWithBand(
      BigInt(t.height),
      BigInt(latest.height),
      recent.map((x) => x.ms),
      latest.ms,
    );
    if (old?.band && t.ms >= old.band.earliest && t.ms <= old.band.latest) r.baselineHeld++;
  }
  widths.sort((a, b) => a - b);
  r.medianWidth = widths[Math.floor(widths.length / 2)];
  return r;
}

const series = load();
const results: LeadResult[] = [];
for (const s of series) for (const [lead, ms] of LEADS) results.push(run(s, lead, ms));
const pct = (a: number, n: number) => (n === 0 ? "—" : `${((100 * a) / n).toFixed(1)} %`);
console.log("| series | lead | targets | held p10–p90 | actual before p10 | after p90 | median band / lead | the page's old ±2σ band held |");
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of results) {
  if (!r.tested) console.log(`| ${r.series} | T−${r.lead} | — | not tested: ${r.why} | | | | |`);
  else
    console.log(
      `| ${r.series} | T−${r.lead} | ${r.targets} | ${pct(r.held, r.targets)} | ${pct(r.early, r.targets)} | ${pct(r.late, r.targets)} | ${(r.medianWidth * 100).toFixed(1)} % | ${pct(r.baselineHeld, r.targets)} |`,
    );
}
for (const s of series)
  console.log(`\n${s.name}: ${s.headers.length} headers over ${((s.headers.at(-1)!.ms - s.headers[0].ms) / 3_600_000).toFixed(2)} h — ${s.source}`);
writeFileSync(values.json, JSON.stringify({ generated: new Date().toISOString(), window_ms: WINDOW_MS, results }, null, 1) + "\n");
