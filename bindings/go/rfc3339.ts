/** RFC 3339 times with nanoseconds, as CometBFT and Go print them (`RFC3339Nano`: trailing zeros trimmed). */

/** Nanoseconds since the Unix epoch of an RFC 3339 time; undefined if it does not parse. */
export function parseRfc3339Nanos(text: string): bigint | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[-+]\d{2}:\d{2})$/.exec(text);
  if (!m) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(+m[1], +m[2] - 1, +m[3]); // not Date.UTC: it maps years 0–99 to 1900–1999
  date.setUTCHours(+m[4], +m[5], +m[6], 0);
  const ms = date.getTime();
  if (Number.isNaN(ms) || date.getUTCDate() !== +m[3] || +m[4] > 23 || +m[5] > 59 || +m[6] > 59) return undefined;
  let ns = BigInt(ms) * 1_000_000n + BigInt((m[7] ?? "").padEnd(9, "0") || "0");
  if (m[8] !== "Z" && m[8] !== "z") {
    const sign = m[8][0] === "-" ? -1n : 1n;
    const off = BigInt(+m[8].slice(1, 3) * 60 + +m[8].slice(4, 6)) * 60_000_000_000n;
    ns -= sign * off;
  }
  return ns;
}

/** Go's RFC3339Nano in UTC for seconds + nanos since the epoch (years 0001–9999). */
export function formatRfc3339Nano(seconds: bigint, nanos: number): string {
  const ms = Number(seconds) * 1000;
  const d = new Date(ms);
  const iso = d.toISOString(); // 2021-04-10T04:37:57.000Z (extended years outside 0000–9999)
  let base = iso.slice(0, 19);
  if (iso.startsWith("+") || iso.startsWith("-")) base = iso.slice(0, 22);
  const frac = nanos > 0 ? "." + String(nanos).padStart(9, "0").replace(/0+$/, "") : "";
  return base + frac + "Z";
}

/** Normalises an RFC 3339 time to Go's RFC3339Nano in UTC; undefined if it does not parse. */
export function normalizeRfc3339(text: string): string | undefined {
  const ns = parseRfc3339Nanos(text);
  if (ns === undefined) return undefined;
  const seconds = ns >= 0n ? ns / 1_000_000_000n : -((-ns + 999_999_999n) / 1_000_000_000n);
  return formatRfc3339Nano(seconds, Number(ns - seconds * 1_000_000_000n));
}
