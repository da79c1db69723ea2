/**
 * The verified header times an ETA is made from (docs/spec/watch.md §5.1), and how they are gathered cheaply:
 *
 * - forward: every poll verifies the node's latest header (skipping verification from the last one), and its
 *   time joins the history — the window fills as the watch runs, and is kept across restarts;
 * - backwards: at start, the headers below the verified one are walked down by the hash chain of last block ids
 *   (`LightClient.verifyBackwards`: 20 headers per `blockchain` call, no signatures), a few calls per poll so the
 *   loop is never held, until the window is covered or 9,000 headers are walked (the light client follows at
 *   most 10,000 back from a verified header);
 * - and when the trust root is older than what the history covers, a few headers between the root and the latest
 *   are verified forward by skipping (one light block each).
 *
 * The history keeps every header of the newest DENSE ones and thins older ones to every other sample when it
 * holds more than MAX_SAMPLES: the model interpolates between samples. Pure and browser-safe.
 */
import type { HeaderTime } from "./eta.js";

export const MAX_SAMPLES = 4096;
const DENSE = 1024;

export class HeaderHistory {
  private samples: HeaderTime[] = [];

  constructor(
    private readonly windowMs: number,
    initial: readonly HeaderTime[] = [],
  ) {
    for (const s of initial) this.add(s);
  }

  /** Sorted by height. */
  get all(): readonly HeaderTime[] {
    return this.samples;
  }

  get lowest(): HeaderTime | undefined {
    return this.samples[0];
  }

  get newest(): HeaderTime | undefined {
    return this.samples.at(-1);
  }

  /** Whether the history reaches back a whole window before its newest sample. */
  get covered(): boolean {
    const n = this.newest;
    const l = this.lowest;
    return n !== undefined && l !== undefined && n.ms - l.ms >= this.windowMs;
  }

  add(s: HeaderTime): void {
    const a = this.samples;
    const last = a.at(-1);
    if (!last || s.height > last.height) a.push(s);
    else {
      const i = a.findIndex((x) => x.height >= s.height);
      if (a[i].height === s.height) return;
      a.splice(i, 0, s);
    }
    this.prune();
  }

  private prune(): void {
    const a = this.samples;
    const top = a.at(-1)!;
    // Keep one sample just older than the window, so the window is covered to its edge.
    let cut = 0;
    while (cut + 1 < a.length && top.ms - a[cut + 1].ms >= this.windowMs) cut++;
    if (cut > 0) a.splice(0, cut);
    if (a.length > MAX_SAMPLES) {
      const old = a.length - DENSE;
      this.samples = [...a.slice(0, old).filter((_, i) => i % 2 === 0 || i === old - 1), ...a.slice(old)];
    }
  }
}
