/** Go `time.Duration` text: parsing (`300ms`, `1.5s`, `1h30m`) and `Duration.String()` (`1m40s`, `200ms`). */
import { CliError } from "../apps/cli/errors.js";

export const NS = 1n;
export const US = 1000n;
export const MS = 1_000_000n;
export const SECOND = 1_000_000_000n;
export const MINUTE = 60n * SECOND;
export const HOUR = 60n * MINUTE;

const UNITS: Record<string, bigint> = { ns: NS, us: US, "µs": US, "μs": US, ms: MS, s: SECOND, m: MINUTE, h: HOUR };
const MAX_INT64 = (1n << 63n) - 1n;

/** Parses a Go duration into nanoseconds; the error text is Go's (`time: invalid duration "x"`). */
export function parseGoDuration(text: string): bigint {
  const invalid = () => new CliError(`time: invalid duration ${JSON.stringify(text)}`);
  let s = text;
  let neg = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid();
  let total = 0n;
  while (s !== "") {
    const m = /^([0-9]*)(\.([0-9]*))?/.exec(s)!;
    const intPart = m[1];
    const frac = m[3] ?? "";
    if (intPart === "" && frac === "") throw invalid();
    s = s.slice(m[0].length);
    const u = /^[^0-9.]+/.exec(s);
    if (!u) throw new CliError(`time: missing unit in duration ${JSON.stringify(text)}`);
    const unit = UNITS[u[0]];
    if (unit === undefined) throw new CliError(`time: unknown unit ${JSON.stringify(u[0])} in duration ${JSON.stringify(text)}`);
    s = s.slice(u[0].length);
    let v = BigInt(intPart || "0") * unit;
    if (frac !== "") v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += v;
    if (total > MAX_INT64) throw invalid();
  }
  return neg ? -total : total;
}

/** Go's Duration.String(). */
export function formatGoDuration(d: bigint): string {
  if (d === 0n) return "0s";
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < SECOND) {
    let unit: string;
    let prec: number;
    if (u < US) return (neg ? "-" : "") + u.toString() + "ns";
    if (u < MS) {
      unit = "µs";
      prec = 3;
    } else {
      unit = "ms";
      prec = 6;
    }
    out = fmtFrac(u, prec) + unit;
  } else {
    const secs = fmtFrac(u % MINUTE, 9) + "s";
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
function fmtFrac(v: bigint, prec: number): string {
  const p = 10n ** BigInt(prec);
  const whole = v / p;
  let frac = (v % p).toString().padStart(prec, "0").replace(/0+$/, "");
  return frac === "" ? whole.toString() : `${whole}.${frac}`;
}

/** A duration flag: Go syntax, at least 0. */
export function durationFlag(name: string, value: string): bigint {
  let d: bigint;
  try {
    d = parseGoDuration(value);
  } catch (e) {
    throw new CliError(`invalid --${name} ${JSON.stringify(value)}: ${(e as Error).message}`);
  }
  if (d < 0n) throw new CliError(`invalid --${name} ${JSON.stringify(value)}: must not be negative`);
  return d;
}
