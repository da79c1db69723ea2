/** When the plan's height will be reached, from the times of recent blocks, and how to say it. */

/** Average milliseconds between blocks from their times (any order); undefined with fewer than two. */
export function averageBlockMs(times: readonly number[]): number | undefined {
  const sorted = times.filter((t) => Number.isFinite(t)).sort((a, b) => a - b);
  if (sorted.length < 2) return undefined;
  const avg = (sorted[sorted.length - 1] - sorted[0]) / (sorted.length - 1);
  return avg > 0 ? avg : undefined;
}

export interface Eta {
  blocksLeft: bigint;
  avgBlockMs: number;
  /** Local clock (Date.now()) when the upgrade height should be reached. */
  at: number;
  /** The error band, from the spread of verified block times (verified mode). */
  band?: { earliest: number; latest: number; samples: number; sdMs: number };
}

/**
 * The plan height is reached after `planHeight - latest` more blocks, counted from when this page first saw
 * the latest height (its own clock, so a skewed node clock does not matter, and a chain that stops producing
 * blocks runs its countdown out instead of pushing it ahead).
 */
export function eta(planHeight: bigint, latest: bigint, avgBlockMs: number | undefined, seenAt: number): Eta | undefined {
  if (avgBlockMs === undefined) return undefined;
  const blocksLeft = planHeight - latest;
  const left = blocksLeft > 0n ? Number(blocksLeft) : 0;
  return { blocksLeft, avgBlockMs, at: seenAt + left * avgBlockMs };
}

/**
 * An ETA with an error band from verified block times (oldest first, ms): the mean interval μ and its spread σ
 * over the n intervals seen. The N blocks left take N·μ; the band is ±2 standard deviations of that sum, which
 * carries both each future block's own spread (N·σ²) and the uncertainty of μ itself (N²·σ²/n).
 */
export function etaWithBand(planHeight: bigint, latest: bigint, times: readonly number[], seenAt: number): Eta | undefined {
  const sorted = [...times].filter((t) => Number.isFinite(t)).sort((a, b) => a - b);
  if (sorted.length < 3) return eta(planHeight, latest, averageBlockMs(sorted), seenAt);
  const gaps = sorted.slice(1).map((t, i) => t - sorted[i]);
  const n = gaps.length;
  const mean = gaps.reduce((a, b) => a + b, 0) / n;
  if (!(mean > 0)) return undefined;
  const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / (n - 1));
  const base = eta(planHeight, latest, mean, seenAt)!;
  const blocks = Math.max(0, Number(base.blocksLeft));
  const spread = 2 * Math.sqrt(blocks * sd * sd + (blocks * blocks * sd * sd) / n);
  return { ...base, band: { earliest: Math.max(seenAt, base.at - spread), latest: base.at + spread, samples: n, sdMs: sd } };
}

/** `2d 03h 04m`, `1h 02m 03s`, `4m 05s`, `12.3 s` */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number) => String(n).padStart(2, "0");
  if (d > 0) return `${d}d ${two(h)}h ${two(m)}m`;
  if (h > 0) return `${h}h ${two(m)}m ${two(sec)}s`;
  return `${m}m ${two(sec)}s`;
}

/** A local time, with the date when it is not today. */
export function when(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  return d.toDateString() === new Date(now).toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
}

export function formatBlockTime(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** RFC 3339 with up to 9 fractional digits → ms since the epoch (NaN if unreadable). */
export function parseTime(text: string): number {
  return Date.parse(text.replace(/(\.\d{3})\d+/, "$1"));
}
