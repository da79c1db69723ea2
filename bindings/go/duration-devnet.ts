/** Go `time.Duration` text: `ParseDuration` ("1m30s", "200ms", "1.5s") and `String()` ("1m40s", "200ms"). */

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "µs": 1_000n,
  "μs": 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX = (1n << 63n) - 1n;

/** Parses a Go duration into nanoseconds; throws `time: invalid duration "<s>"` as Go does. */
export function parseDuration(text: string): bigint {
  if (typeof text !== "string") throw new TypeError("duration must be a string");
  const bad = () => new Error(`time: invalid duration "${text}"`);
  let s = text;
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw bad();
  let total = 0n;
  while (s !== "") {
    const m = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]+)/.exec(s);
    if (!m || (m[1] === "" && (m[2] === undefined || m[2] === ""))) throw bad();
    const unit = UNITS[m[3]];
    if (unit === undefined) throw new Error(`time: unknown unit "${m[3]}" in duration "${text}"`);
    let v = BigInt(m[1] === "" ? "0" : m[1]) * unit;
    if (m[2]) {
      const scale = 10n ** BigInt(m[2].length);
      v += (BigInt(m[2]) * unit) / scale;
    }
    total += v;
    if (total > MAX) throw bad();
    s = s.slice(m[0].length);
  }
  return neg ? -total : total;
}

/** Go's `Duration.String()`. */
export function formatDuration(ns: bigint): string {
  if (ns === 0n) return "0s";
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    // sub-second: ns, µs or ms with a fraction
    let unit: string;
    let div: bigint;
    if (u < 1_000n) {
      unit = "ns";
      div = 1n;
    } else if (u < 1_000_000n) {
      unit = "µs";
      div = 1_000n;
    } else {
      unit = "ms";
      div = 1_000_000n;
    }
    out = fraction(u, div) + unit;
  } else {
    const h = u / 3_600_000_000_000n;
    u -= h * 3_600_000_000_000n;
    const m = u / 60_000_000_000n;
    u -= m * 60_000_000_000n;
    out = fraction(u, 1_000_000_000n) + "s";
    if (h > 0n) out = `${h}h${m}m${out}`;
    else if (m > 0n) out = `${m}m${out}`;
  }
  return neg ? "-" + out : out;
}

function fraction(v: bigint, div: bigint): string {
  const whole = v / div;
  const rest = v % div;
  if (rest === 0n) return whole.toString();
  const digits = div.toString().length - 1;
  return `${whole}.${rest.toString().padStart(digits, "0").replace(/0+$/, "")}`;
}

/** A duration given as Go text, nanoseconds (bigint) or milliseconds (number) → nanoseconds, at least `min`. */
export function toDurationNs(value: string | bigint | number, what: string, min = 1n): bigint {
  let ns: bigint;
  if (typeof value === "string") ns = parseDuration(value);
  else if (typeof value === "bigint") ns = value;
  else if (typeof value === "number" && Number.isFinite(value)) ns = BigInt(Math.round(value * 1e6));
  else throw new TypeError(`${what} must be a duration such as "10s"`);
  if (ns < min) throw new RangeError(`${what} must be at least ${formatDuration(min)}, got ${formatDuration(ns)}`);
  return ns;
}
