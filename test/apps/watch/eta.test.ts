/** The ETA band (bindings/apps/watch/eta.ts): made of the chain's own stretches, narrowing as the height nears. */
import { describe, expect, it } from "vitest";
import { etaBand, timeAt, type HeaderTime } from "../../../bindings/apps/watch/eta.js";
import { HeaderHistory, MAX_SAMPLES } from "../../../bindings/apps/watch/history.js";

const T0 = Date.UTC(2026, 0, 1);
/** A deterministic number in [0, 1) per i. */
const noise = (i: number) => {
  let x = (i * 2654435761) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x45d9f3b) >>> 0;
  x ^= x >>> 16;
  return x / 2 ** 32;
};
/** A chain of `n` blocks whose block time comes from `ms(i)`. */
function chain(n: number, ms: (i: number) => number): HeaderTime[] {
  const out: HeaderTime[] = [];
  let t = T0;
  for (let h = 1; h <= n; h++) {
    out.push({ height: h, ms: t });
    t += ms(h);
  }
  return out;
}

describe("etaBand", () => {
  it("a chain of exactly 6 s blocks: the band is the one time it will be", () => {
    const h = chain(1000, () => 6000);
    const last = h.at(-1)!;
    const b = etaBand(h, 1100, last.ms)!;
    expect(b).toMatchObject({ blocksLeft: 100, method: "analogs" });
    expect(b.p10).toBe(last.ms + 600_000);
    expect(b.p90).toBe(last.ms + 600_000);
  });

  it("slow rounds in the history widen the band in proportion; the actual time of a similar stretch falls inside", () => {
    // About one block in 50 takes a slow round (+30 s), at no fixed interval.
    const h = chain(3000, (i) => (noise(i) < 0.02 ? 36_000 : 6000));
    const cut = h.slice(0, 2000);
    const b = etaBand(cut, 2100, cut.at(-1)!.ms)!;
    expect(b.p10).toBeLessThan(b.p90);
    expect(h[2099].ms).toBeGreaterThanOrEqual(b.p10);
    expect(h[2099].ms).toBeLessThanOrEqual(b.p90);
  });

  it("narrows as the height nears", () => {
    const h = chain(4000, (i) => 5000 + noise(i) * 3000 + (noise(i + 10_000) < 0.01 ? 40_000 : 0));
    const far = etaBand(h.slice(0, 2000), 3000, h[1999].ms)!;
    const near = etaBand(h.slice(0, 2950), 3000, h[2949].ms)!;
    expect(far.p90 - far.p10).toBeGreaterThan(near.p90 - near.p10);
  });

  it("a plan further away than the history: the longest stretches scaled up", () => {
    const h = chain(200, (i) => 6000 + (i % 3) * 500);
    const b = etaBand(h, 10_000, h.at(-1)!.ms)!;
    expect(b.method).toBe("scaled");
    const mean = (h.at(-1)!.ms - h[0].ms) / 199;
    expect(b.p50 - h.at(-1)!.ms).toBeGreaterThan(0.9 * mean * 9800);
    expect(b.p50 - h.at(-1)!.ms).toBeLessThan(1.1 * mean * 9800);
  });

  it("a chain stuck longer than its slowest block pushes the band out by the time it has been stuck", () => {
    const h = chain(1000, () => 6000);
    const last = h.at(-1)!;
    const now = last.ms + 3_600_000;
    const b = etaBand(h, 1100, now)!;
    expect(b.p50).toBeGreaterThan(now);
  });

  it("a reached height has its own time; too little history has no band", () => {
    const h = chain(100, () => 6000);
    expect(etaBand(h, 50, 0)).toMatchObject({ method: "reached", p50: h[49].ms });
    expect(etaBand(h.slice(0, 1), 200, 0)).toBeUndefined();
  });

  it("the chain's day: over days of history, stretches that start at this time of day decide", () => {
    // 4 s blocks by night (UTC 0–12), 8 s by day.
    const h: HeaderTime[] = [];
    let t = T0;
    for (let height = 1; t < T0 + 4 * 86_400_000; height++) {
      h.push({ height, ms: t });
      t += new Date(t).getUTCHours() < 12 ? 4000 : 8000;
    }
    // Cut at 02:00 UTC on the fifth day, 900 blocks left (one hour by night).
    const cutAt = h.findIndex((x) => x.ms >= T0 + 3 * 86_400_000 + 2 * 3_600_000);
    const cut = h.slice(0, cutAt + 1);
    const b = etaBand(cut, cut.at(-1)!.height + 900, cut.at(-1)!.ms)!;
    expect(b.p50 - cut.at(-1)!.ms).toBeLessThan(900 * 4000 * 1.05);
  });
});

describe("HeaderHistory", () => {
  it("keeps the window, thins old samples past MAX_SAMPLES, keeps the newest dense", () => {
    const hist = new HeaderHistory(3_600_000 * 10);
    for (const s of chain(20_000, () => 1000)) hist.add(s);
    const all = hist.all;
    expect(all.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(all.at(-1)!.height).toBe(20_000);
    expect(all.at(-1024)!.height).toBe(20_000 - 1023);
    expect(hist.covered).toBe(false);
    expect(timeAt(all, 100)).toBe(T0 + 99_000);
    const short = new HeaderHistory(60_000);
    for (const s of chain(500, () => 1000)) short.add(s);
    expect(short.covered).toBe(true);
    expect(short.all.at(-1)!.ms - short.all[0].ms).toBe(60_000);
  });

  it("takes samples out of order and drops a height it has", () => {
    const hist = new HeaderHistory(3_600_000);
    hist.add({ height: 10, ms: 10_000 });
    hist.add({ height: 5, ms: 5_000 });
    hist.add({ height: 7, ms: 7_000 });
    hist.add({ height: 7, ms: 7_000 });
    expect(hist.all.map((s) => s.height)).toEqual([5, 7, 10]);
  });
});
