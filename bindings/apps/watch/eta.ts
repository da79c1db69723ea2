/**
 * When a height will be reached (docs/spec/watch.md §5): a p10/p50/p90 band from verified header times, by
 * analogs — every stretch of the chain's own recent history that produced as many blocks as are left, and how
 * long it took. The stretches start at every sample of the window, so they see the chain's daily rhythm, its slow
 * rounds and its outages in the proportion they happened; over a window of days, the stretches that started at
 * the same time of day weigh in when enough of them exist. As the height nears, the blocks left shrink and the
 * stretches multiply, so the band narrows. Stretches as long as the blocks left count only when the history holds
 * SPANS of them side by side; else (a plan further away than the history covers that often) stretches of 1/SPANS
 * of the history are scaled up to the blocks left, as if the chain kept each such pace for the whole time (a fully
 * correlated error: wider while the history is short; checked by the backtest, bench/README.md).
 *
 * A chain that has produced nothing for longer than its slowest usual block pushes the band out by the time it
 * has been stuck. Pure and browser-safe: the fleet page computes the same band.
 */

/** A verified header's height and time (ms since the epoch). */
export interface HeaderTime {
  height: number;
  ms: number;
}

export type EtaMethod = "analogs" | "scaled" | "reached";

export interface EtaBand {
  blocksLeft: number;
  /** Epoch ms: the early edge, the median, the late edge. */
  p10: number;
  p50: number;
  p90: number;
  method: EtaMethod;
  /** Stretches the band was made from. */
  analogs: number;
  /** The history the band saw (ms between the oldest and newest sample). */
  spanMs: number;
}

/** Fewer stretches than this make no band. */
export const MIN_ANALOGS = 8;
/**
 * Stretches as long as the blocks left are used only when the history holds this many of them side by side:
 * fewer overlapping stretches are nearly one observation, and their spread says little about the next one.
 */
export const SPANS = 8;
const DAY_MS = 86_400_000;
/** Stretches starting within this of the same time of day count as the same part of the chain's day. */
const TIME_OF_DAY_MS = 3 * 3_600_000;

/** The q-quantile of sorted values (linear between order statistics). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** The time at `height` between the samples around it (sorted by height), or undefined outside them. */
export function timeAt(samples: readonly HeaderTime[], height: number): number | undefined {
  let lo = 0;
  let hi = samples.length - 1;
  if (hi < 0 || height < samples[0].height || height > samples[hi].height) return undefined;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].height <= height) lo = mid;
    else hi = mid;
  }
  const a = samples[lo];
  const b = samples[hi];
  if (a.height === height) return a.ms;
  if (b.height === height) return b.ms;
  return a.ms + ((b.ms - a.ms) * (height - a.height)) / (b.height - a.height);
}

/** Samples sorted by height, one per height, times increasing with heights. */
export function cleanHistory(history: readonly HeaderTime[]): HeaderTime[] {
  const sorted = [...history].filter((s) => Number.isFinite(s.ms) && Number.isSafeInteger(s.height)).sort((a, b) => a.height - b.height);
  const out: HeaderTime[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && (s.height === last.height || s.ms <= last.ms)) continue;
    out.push(s);
  }
  return out;
}

/** How long each stretch of `blocks` blocks took, with its start time, over the samples. */
function stretches(samples: readonly HeaderTime[], blocks: number): { start: number; ms: number }[] {
  const top = samples[samples.length - 1].height;
  const out: { start: number; ms: number }[] = [];
  for (const s of samples) {
    if (s.height + blocks > top) break;
    const end = timeAt(samples, s.height + blocks)!;
    out.push({ start: s.ms, ms: end - s.ms });
  }
  return out;
}

const timeOfDayDistance = (a: number, b: number) => {
  const d = Math.abs((((a - b) % DAY_MS) + DAY_MS) % DAY_MS);
  return Math.min(d, DAY_MS - d);
};

/**
 * The band for `target` from the verified header times of `history` (any order), at `nowMs`; undefined while
 * the history is too short to make one.
 */
export function etaBand(history: readonly HeaderTime[], target: number, nowMs: number): EtaBand | undefined {
  const samples = cleanHistory(history);
  if (samples.length < 2) return undefined;
  const latest = samples[samples.length - 1];
  const spanMs = latest.ms - samples[0].ms;
  const blocksLeft = target - latest.height;
  if (blocksLeft <= 0) {
    const at = timeAt(samples, target) ?? latest.ms;
    return { blocksLeft, p10: at, p50: at, p90: at, method: "reached", analogs: 0, spanMs };
  }
  const known = latest.height - samples[0].height;
  let method: EtaMethod = "analogs";
  let runs = known >= SPANS * blocksLeft ? stretches(samples, blocksLeft) : [];
  let scale = 1;
  if (runs.length < MIN_ANALOGS) {
    // Too little history for stretches this long (fewer than SPANS of them side by side): shorter ones, scaled up.
    let blocks = Math.max(1, Math.floor(known / SPANS));
    for (;;) {
      runs = stretches(samples, blocks);
      if (runs.length >= MIN_ANALOGS || blocks === 1) break;
      blocks = Math.max(1, Math.floor(blocks / 2));
    }
    if (runs.length < 2) return undefined;
    scale = blocksLeft / blocks;
    method = "scaled";
  }
  // The chain's day: over a window of days, stretches shorter than a day that started near this time of day.
  const typical =
    quantile(
      runs.map((r) => r.ms).sort((a, b) => a - b),
      0.5,
    ) * scale;
  if (spanMs >= 2 * DAY_MS && typical < DAY_MS) {
    const sameTime = runs.filter((r) => timeOfDayDistance(r.start, latest.ms) <= TIME_OF_DAY_MS);
    if (sameTime.length >= MIN_ANALOGS) runs = sameTime;
  }
  const durations = runs.map((r) => r.ms * scale).sort((a, b) => a - b);
  // Stuck longer than the slowest usual block: the blocks left have not started yet.
  const gaps = samples
    .slice(1)
    .map((s, i) => (s.ms - samples[i].ms) / (s.height - samples[i].height))
    .sort((a, b) => a - b);
  const slowBlock = quantile(gaps, 0.99);
  const stuck = Math.max(0, nowMs - latest.ms - slowBlock);
  const at = (q: number) => latest.ms + stuck + quantile(durations, q);
  return { blocksLeft, p10: at(0.1), p50: at(0.5), p90: at(0.9), method, analogs: runs.length, spanMs };
}
