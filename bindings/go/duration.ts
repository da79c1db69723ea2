/** Go's `time.Duration` text: `time.ParseDuration` ("300ms", "1.5s", "1h30m") and `Duration.String()` ("1m40s"). */
import { goTimeQuote } from "./quote.js";

export const NS = 1n;
export const US = 1000n;
export const MS = 1_000_000n;
export const SECOND = 1_000_000_000n;
export const MINUTE = 60n * SECOND;
export const HOUR = 60n * MINUTE;

const UNITS: Record<string, bigint> = { ns: NS, us: US, µs: US, μs: US, ms: MS, s: SECOND, m: MINUTE, h: HOUR };
const LIMIT = 1n << 63n;

/** Why a duration did not parse: Go's message (`time: invalid duration "x"`). */
export class GoDurationError extends Error {
  override name = "GoDurationError";
}

/**
 * time.ParseDuration into nanoseconds, step for step: including the float64 arithmetic Go uses for
 * fractions, so `1.0000000001h` rounds as it does there.
 */
export function parseGoDuration(text: string): bigint {
  const invalid = () => new GoDurationError(`time: invalid duration ${goTimeQuote(text)}`);
  let s = text;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid();
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || (s[0] >= "0" && s[0] <= "9"))) throw invalid();
    // [0-9]*
    let i = 0;
    let v = 0n;
    for (; i < s.length && s[i] >= "0" && s[i] <= "9"; i++) {
      if (v > LIMIT / 10n) throw invalid(); // leadingInt overflow
      v = v * 10n + BigInt(s.charCodeAt(i) - 0x30);
      if (v > LIMIT) throw invalid();
    }
    const pre = i > 0;
    s = s.slice(i);
    // (\.[0-9]*)?
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s !== "" && s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      for (; j < s.length && s[j] >= "0" && s[j] <= "9"; j++) {
        if (overflow) continue;
        if (f > (LIMIT - 1n) / 10n) {
          overflow = true; // further digits are too small to matter
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(j) - 0x30);
        if (y > LIMIT) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid();
    // the unit: everything up to the next '.' or digit
    let k = 0;
    while (k < s.length && s[k] !== "." && !(s[k] >= "0" && s[k] <= "9")) k++;
    if (k === 0) throw new GoDurationError(`time: missing unit in duration ${goTimeQuote(text)}`);
    const u = s.slice(0, k);
    s = s.slice(k);
    const unit = UNITS[u];
    if (unit === undefined) throw new GoDurationError(`time: unknown unit ${goTimeQuote(u)} in duration ${goTimeQuote(text)}`);
    if (v > LIMIT / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) throw invalid();
    }
    d += v;
    if (d > LIMIT) throw invalid();
  }
  if (neg) return -d;
  if (d > LIMIT - 1n) throw invalid();
  return d;
}

/** Go's `Duration.String()`. */
export function formatGoDuration(d: bigint): string {
  if (d === 0n) return "0s";
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < SECOND) {
    if (u < US) return (neg ? "-" : "") + u.toString() + "ns";
    out = u < MS ? fraction(u, 3) + "µs" : fraction(u, 6) + "ms";
  } else {
    const secs = fraction(u % MINUTE, 9) + "s";
    u /= MINUTE;
    if (u === 0n) out = secs;
    else {
      const mins = (u % 60n).toString() + "m";
      u /= 60n;
      out = u === 0n ? mins + secs : u.toString() + "h" + mins + secs;
    }
  }
  return (neg ? "-" : "") + out;
}

/** v / 10^prec with the fraction's trailing zeros (and a bare '.') removed. */
function fraction(v: bigint, prec: number): string {
  const p = 10n ** BigInt(prec);
  const whole = v / p;
  const frac = (v % p).toString().padStart(prec, "0").replace(/0+$/, "");
  return frac === "" ? whole.toString() : `${whole}.${frac}`;
}
