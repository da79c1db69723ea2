/**
 * RFC 3339 as Go's time package reads and writes it: `RFC3339Nano` formatting (trailing zeros of the
 * fraction trimmed, as CometBFT prints block times), a lenient parse to nanoseconds, and
 * `time.Time.UnmarshalJSON`'s strict parse with its exact error texts.
 */
import { goTimeQuote } from "./quote.js";

// --- Formatting and a lenient parse ---------------------------------------------------------------

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
  const iso = new Date(Number(seconds) * 1000).toISOString(); // 2021-04-10T04:37:57.000Z (extended years outside 0000–9999)
  const base = iso.startsWith("+") || iso.startsWith("-") ? iso.slice(0, 22) : iso.slice(0, 19);
  const frac = nanos > 0 ? "." + String(nanos).padStart(9, "0").replace(/0+$/, "") : "";
  return base + frac + "Z";
}

/** Go's RFC3339Nano in UTC for nanoseconds since the Unix epoch. */
export function formatRfc3339NanoNs(ns: bigint): string {
  const [seconds, nanos] = splitNanos(ns);
  return formatRfc3339Nano(seconds, nanos);
}

/** Normalises an RFC 3339 time to Go's RFC3339Nano in UTC; undefined if it does not parse. */
export function normalizeRfc3339(text: string): string | undefined {
  const ns = parseRfc3339Nanos(text);
  return ns === undefined ? undefined : formatRfc3339NanoNs(ns);
}

/** Nanoseconds → (seconds, nanos) with nanos in [0, 1e9), as a protobuf Timestamp holds them. */
export function splitNanos(ns: bigint): [seconds: bigint, nanos: number] {
  let seconds = ns / 1_000_000_000n;
  let nanos = ns % 1_000_000_000n;
  if (nanos < 0n) {
    seconds -= 1n;
    nanos += 1_000_000_000n;
  }
  return [seconds, Number(nanos)];
}

// --- time.Time.UnmarshalJSON: Go's parseStrictRFC3339 ------------------------------------------------

const RFC3339 = "2006-01-02T15:04:05Z07:00";

interface TimeFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  /** The first 9 fractional digits (Go keeps nanoseconds only) are all zero. */
  nsecZero: boolean;
  /** Zone offset east of UTC, in seconds. */
  offset: number;
}

/**
 * Go's `parseStrictRFC3339` (what time.Time.UnmarshalJSON runs) on the raw bytes between the quotes, as a
 * byte string: one char per UTF-8 byte, so indexes match Go's. Returns whether the instant is the zero
 * time, or Go's error message.
 */
export function parseStrictRFC3339(b: string): boolean | string {
  const fast = parseRFC3339Fast(b);
  if (fast !== undefined) return isZeroInstant(fast);
  const t = goParse(b);
  if (typeof t === "string") return t;
  // time.Parse accepts a few forms RFC 3339 does not; Go rejects them after the fact.
  if (b[12] === ":") return cannotParse(b, b.slice(11, 12), "15");
  if (b.length > 19 && b[19] === ",") return cannotParse(b, ",", ".");
  if (b[b.length - 1] === "Z") return cannotParse(b, b, RFC3339);
  if (num2(b, b.length - 5) >= 24) return `parsing time ${timeQuote(b)}: timezone hour out of range`;
  if (num2(b, b.length - 2) >= 60) return `parsing time ${timeQuote(b)}: timezone minute out of range`;
  return isZeroInstant(t);
}

function num2(b: string, i: number): number {
  return 10 * (b.charCodeAt(i) - 0x30) + (b.charCodeAt(i + 1) - 0x30);
}

/** Go's `parseRFC3339` fast path: fixed positions, strict ranges. */
function parseRFC3339Fast(s: string): TimeFields | undefined {
  if (s.length < 19) return undefined;
  let ok = true;
  const uint = (from: number, to: number, min: number, max: number) => {
    let x = 0;
    for (let k = from; k < to; k++) {
      const c = s.charCodeAt(k);
      if (!isDigit(c)) {
        ok = false;
        return min;
      }
      x = x * 10 + (c - 0x30);
    }
    if (x < min || x > max) {
      ok = false;
      return min;
    }
    return x;
  };
  const year = uint(0, 4, 0, 9999);
  const month = uint(5, 7, 1, 12);
  const day = uint(8, 10, 1, daysIn(month, year));
  const hour = uint(11, 13, 0, 23);
  const min = uint(14, 16, 0, 59);
  const sec = uint(17, 19, 0, 59);
  if (!ok || s[4] !== "-" || s[7] !== "-" || s[10] !== "T" || s[13] !== ":" || s[16] !== ":") return undefined;
  let k = 19;
  let nsecZero = true;
  if (s.length - k >= 2 && s[k] === "." && isDigit(s.charCodeAt(k + 1))) {
    let m = k + 1;
    while (m < s.length && isDigit(s.charCodeAt(m))) m++;
    nsecZero = !/[1-9]/.test(s.slice(k + 1, Math.min(m, k + 10)));
    k = m;
  }
  let offset = 0;
  const zone = s.slice(k);
  if (zone !== "Z") {
    if (zone.length !== 6) return undefined;
    const base = k;
    const hr = uint(base + 1, base + 3, 0, 23);
    const mm = uint(base + 4, base + 6, 0, 59);
    if (!ok || !(zone[0] === "-" || zone[0] === "+") || zone[3] !== ":") return undefined;
    offset = (zone[0] === "-" ? -1 : 1) * (hr * 60 + mm) * 60;
  }
  return { year, month, day, hour, min, sec, nsecZero, offset };
}

/** Go's `time.Parse(RFC3339, s)`, reduced to this one layout: the fields, or Go's ParseError text. */
function goParse(value: string): TimeFields | string {
  const orig = value;
  let v = value;
  const range = (what: string) => `parsing time ${timeQuote(orig)}: ${what} out of range`;
  const digitAt = (s: string, k: number) => k < s.length && isDigit(s.charCodeAt(k));
  // getnum: one or two digits (`fixed`: exactly two).
  const getnum = (fixed: boolean): number | undefined => {
    if (!digitAt(v, 0)) return undefined;
    if (!digitAt(v, 1)) {
      if (fixed) return undefined;
      const x = v.charCodeAt(0) - 0x30;
      v = v.slice(1);
      return x;
    }
    const x = num2(v, 0);
    v = v.slice(2);
    return x;
  };
  const skip = (lit: string) => {
    if (v[0] !== lit) return false;
    v = v.slice(1);
    return true;
  };

  if (v.length < 4 || !/^[0-9]{4}/.test(v)) return cannotParse(orig, v, "2006");
  const year = Number(v.slice(0, 4));
  v = v.slice(4);
  if (!skip("-")) return cannotParse(orig, v, "-");
  let hold = v;
  const month = getnum(true);
  if (month === undefined) return cannotParse(orig, hold, "01");
  if (month < 1 || month > 12) return range("month");
  if (!skip("-")) return cannotParse(orig, v, "-");
  hold = v;
  const day = getnum(true); // checked against the month after the whole value is read
  if (day === undefined) return cannotParse(orig, hold, "02");
  if (!skip("T")) return cannotParse(orig, v, "T");
  hold = v;
  const hour = getnum(false);
  if (hour === undefined) return cannotParse(orig, hold, "15");
  if (hour >= 24) return range("hour");
  if (!skip(":")) return cannotParse(orig, v, ":");
  hold = v;
  const min = getnum(true);
  if (min === undefined) return cannotParse(orig, hold, "04");
  if (min >= 60) return range("minute");
  if (!skip(":")) return cannotParse(orig, v, ":");
  hold = v;
  const sec = getnum(true);
  if (sec === undefined) return cannotParse(orig, hold, "05");
  if (sec >= 60) return range("second");
  let nsecZero = true;
  if (v.length >= 2 && (v[0] === "." || v[0] === ",") && digitAt(v, 1)) {
    let m = 2;
    while (digitAt(v, m)) m++;
    nsecZero = !/[1-9]/.test(v.slice(1, Math.min(m, 10)));
    v = v.slice(m);
  }
  hold = v;
  let offset = 0;
  if (v[0] === "Z") {
    v = v.slice(1);
  } else {
    if (v.length < 6 || v[3] !== ":") return cannotParse(orig, hold, "Z07:00");
    const sign = v[0];
    const hh = v.slice(1, 3);
    const mm = v.slice(4, 6);
    v = v.slice(6);
    const two = (s: string) => (/^[0-9]{2}$/.test(s) ? Number(s) : undefined);
    const hr = two(hh);
    const mi = hr === undefined ? undefined : two(mm);
    let rangeErr: string | undefined;
    if ((hr ?? 0) > 24) rangeErr = "time zone offset hour";
    if ((mi ?? 0) > 60) rangeErr = "time zone offset minute";
    if (rangeErr !== undefined) return range(rangeErr);
    if (hr === undefined || mi === undefined || (sign !== "+" && sign !== "-")) return cannotParse(orig, hold, "Z07:00");
    offset = (sign === "-" ? -1 : 1) * (hr * 60 + mi) * 60;
  }
  if (v.length > 0) return `parsing time ${timeQuote(orig)}: extra text: ${timeQuote(v)}`;
  if (day < 1 || day > daysIn(month, year)) return range("day");
  return { year, month, day, hour, min, sec, nsecZero, offset };
}

function cannotParse(value: string, elem: string, layoutElem: string): string {
  return `parsing time ${timeQuote(value)} as ${timeQuote(RFC3339)}: cannot parse ${timeQuote(elem)} as ${timeQuote(layoutElem)}`;
}

/** The time package's quote of a byte string. */
const timeQuote = (b: string): string => goTimeQuote(b, true);

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/** Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

const ZERO_DAY = daysFromCivil(1, 1, 1);

/** time.Time.IsZero: the instant (not the wall clock) is 0001-01-01T00:00:00Z exactly. */
function isZeroInstant(t: TimeFields): boolean {
  const seconds = (daysFromCivil(t.year, t.month, t.day) - ZERO_DAY) * 86400 + t.hour * 3600 + t.min * 60 + t.sec;
  return seconds - t.offset === 0 && t.nsecZero;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
