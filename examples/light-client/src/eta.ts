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

export function formatBlockTime(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** RFC 3339 with up to 9 fractional digits → ms since the epoch (NaN if unreadable). */
export function parseTime(text: string): number {
  return Date.parse(text.replace(/(\.\d{3})\d+/, "$1"));
}
