/**
 * `<home>/data/upgrade-info.json` (keeper-behaviour §7, §7.1): the file the old binary writes just before
 * it halts, and the sidecar reads to pick the new binary. Both sides must agree with the Go node byte for
 * byte, so the writer reproduces Go's `encoding/json` output and the reader reproduces `json.Unmarshal`
 * into `upgradetypes.Plan` (key folding, last key wins, null as a no-op, exact int64, Go's error texts).
 * Node only.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errors } from "../../core/errors.js";
import type { Plan } from "../../core/types.js";

export interface ParsedUpgradeInfo {
  name: string;
  height: bigint;
  info: string;
  /** The raw `time` string as written (Go does not unescape it), or null when absent/null. */
  time: string | null;
  /** Whether `time` denotes the zero instant 0001-01-01T00:00:00Z (true when absent/null). */
  timeIsZero: boolean;
}

const FILE_NAME = "upgrade-info.json";
const ZERO_TIME = "0001-01-01T00:00:00Z";
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export function upgradeInfoPath(homePath: string): string {
  return join(homePath, "data", FILE_NAME);
}

// ---------------------------------------------------------------------------------------------------
// Writing

/**
 * Go's `json.Marshal(Plan)`: keys in struct order, no whitespace. `name`, `height` and `info` carry
 * `omitempty`, so an empty name or a zero height is left out exactly as Go would (the keeper never
 * writes those: issue A refuses them earlier); `time` is the non-omittable zero time.
 */
export function encodeUpgradeInfo(plan: { name: string; height: bigint; info?: string }): string {
  if (typeof plan.name !== "string") throw new TypeError("plan name must be a string");
  if (typeof plan.height !== "bigint" || plan.height < INT64_MIN || plan.height > INT64_MAX) {
    throw new TypeError("plan height must be a bigint in the int64 range");
  }
  const info = plan.info ?? "";
  if (typeof info !== "string") throw new TypeError("plan info must be a string");
  const parts: string[] = [];
  if (plan.name !== "") parts.push(`"name":${goJsonString(plan.name)}`);
  parts.push(`"time":"${ZERO_TIME}"`);
  if (plan.height !== 0n) parts.push(`"height":${plan.height}`);
  if (info !== "") parts.push(`"info":${goJsonString(info)}`);
  return `{${parts.join(",")}}`;
}

/**
 * Go `encoding/json` string escaping with HTML escaping on (the Marshal default). `JSON.stringify`
 * differs on `<>&`, U+2028/U+2029 and lone surrogates, so this is done by hand.
 */
export function goJsonString(s: string): string {
  let out = '"';
  let start = 0; // copy unescaped runs in one slice: info strings can be large
  const flush = (i: number, esc: string) => {
    out += s.slice(start, i) + esc;
    start = i + 1;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x3c && c !== 0x3e && c !== 0x26) continue;
      flush(i, SHORT_ESCAPES[c] ?? "\\u00" + c.toString(16).padStart(2, "0"));
    } else if (c === 0x2028 || c === 0x2029) {
      flush(i, "\\u" + c.toString(16));
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++; // a well-formed pair: literal
      else flush(i, "\\ufffd"); // a lone surrogate is invalid UTF-8 to Go, which writes U+FFFD
    }
  }
  return out + s.slice(start) + '"';
}

const SHORT_ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
  0x08: "\\b",
  0x0c: "\\f",
};

/**
 * Writes the file atomically (D2): a unique temp file in the same directory, fsync, rename over the
 * target, then fsync the directory. A crash leaves either the old file, the new one, or no file, plus at
 * worst a stray `.upgrade-info.json.*.tmp` that readers never look at.
 */
export async function writeUpgradeInfo(
  homePath: string | undefined,
  plan: { name: string; height: bigint; info?: string },
): Promise<void> {
  const data = encodeUpgradeInfo(plan); // misuse is a TypeError (§10), not a write failure
  if (homePath === undefined || homePath === "") throw errors.infoWriteFailed("homePath is not set");

  const dir = join(homePath, "data");
  try {
    await mkdir(dir, { recursive: true, mode: 0o777 });
  } catch (err) {
    // Go's wording for the same step (GetUpgradeInfoPath).
    throw errors.infoWriteFailed(`could not create directory "${dir}": ${messageOf(err)}`);
  }

  const target = join(dir, FILE_NAME);
  const temp = join(dir, `.${FILE_NAME}.${process.pid}.${randomBytes(8).toString("hex")}.tmp`);
  let created = false;
  try {
    const fh = await open(temp, "wx", 0o600);
    created = true;
    try {
      await fh.chmod(0o600); // the open mode is subject to the umask; the rule is exactly 0600
      await fh.writeFile(data, "utf8");
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, target);
    created = false;
  } catch (err) {
    if (created) await unlink(temp).catch(() => {});
    throw errors.infoWriteFailed(messageOf(err));
  }
  await syncDirectory(dir);
}

/** Makes the rename durable. Best effort: some platforms cannot open or fsync a directory. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const fh = await open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // ignored on purpose
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------------------------------------------
// Reading (§7.1 steps 1–5)

/**
 * §7.1 steps 1–5. Returns undefined when the file does not exist (or no home is configured: nothing can
 * have been written then). Other I/O errors are rethrown unchanged, as Go returns os errors as they are.
 *
 * Step 6 (`Plan.ValidateBasic`) is NOT done here: the keeper runs it through its core on the result, so
 * e.g. `{"name":"x","heigh":"123"}` parses to height 0 and fails there with
 * `height must be greater than 0: invalid request`.
 */
export async function readUpgradeInfo(homePath: string | undefined): Promise<ParsedUpgradeInfo | undefined> {
  if (homePath === undefined || homePath === "") return undefined;
  const path = upgradeInfoPath(homePath);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  // ignoreBOM keeps a leading BOM in the text, so it is rejected as Go rejects it.
  return parseUpgradeInfo(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), path);
}

/**
 * Parses the file contents as Go's `json.Unmarshal` into `Plan` would, with the project's wording for
 * an empty or malformed file. `path` only appears in messages. Step 6 (ValidateBasic) is left to the
 * keeper, except for `upgraded_client_state`, which this result cannot carry: when it is set, the first
 * two ValidateBasic checks (which come before the name and height checks) are applied here.
 */
export function parseUpgradeInfo(text: string, path: string): ParsedUpgradeInfo {
  if (text.length === 0) throw errors.invalidUpgradeInfo(`empty upgrade-info.json in "${path}"`);
  // Go validates the whole document before decoding anything, so syntax errors win over type errors.
  const syntax = checkValid(text);
  if (syntax !== undefined) throw errors.invalidUpgradeInfo(`invalid upgrade-info.json in "${path}": ${syntax}`);
  return decodePlan(text);
}

// --- Syntax check: Go's scanner, with its error texts (json.SyntaxError) --------------------------------

const MAX_NESTING_DEPTH = 10000;
const UNEXPECTED_EOF = "unexpected end of JSON input";

/** Returns Go's syntax error message, or undefined when `text` is one valid JSON value. Iterative. */
function checkValid(text: string): string | undefined {
  const n = text.length;
  const stack: boolean[] = []; // true: inside an object, false: inside an array
  // What may come next: a value, a value or `]`, an object key, a key or `}`, a colon, or what follows a value.
  let state: "value" | "valueOrEnd" | "key" | "keyOrEnd" | "colon" | "after" = "value";
  let i = 0;
  for (;;) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) return state === "after" && stack.length === 0 ? undefined : UNEXPECTED_EOF;
    const c = text.charCodeAt(i);
    switch (state) {
      case "valueOrEnd":
      case "value": {
        if (state === "valueOrEnd" && c === 0x5d) {
          stack.pop();
          i++;
          state = "after";
          break;
        }
        if (c === 0x7b || c === 0x5b) {
          stack.push(c === 0x7b);
          if (stack.length > MAX_NESTING_DEPTH) return invalidChar(text, i, "exceeded max nesting depth");
          i++;
          state = c === 0x7b ? "keyOrEnd" : "valueOrEnd";
          break;
        }
        const end = scanScalar(text, i);
        if (typeof end === "string") return end;
        i = end;
        state = "after";
        break;
      }
      case "keyOrEnd":
      case "key": {
        if (state === "keyOrEnd" && c === 0x7d) {
          stack.pop();
          i++;
          state = "after";
          break;
        }
        if (c !== 0x22) return invalidChar(text, i, "looking for beginning of object key string");
        const end = scanString(text, i);
        if (typeof end === "string") return end;
        i = end;
        state = "colon";
        break;
      }
      case "colon":
        if (c !== 0x3a) return invalidChar(text, i, "after object key");
        i++;
        state = "value";
        break;
      case "after": {
        if (stack.length === 0) return invalidChar(text, i, "after top-level value");
        const inObject = stack[stack.length - 1];
        if (c === 0x2c) {
          i++;
          state = inObject ? "key" : "value";
        } else if (c === (inObject ? 0x7d : 0x5d)) {
          stack.pop();
          i++;
        } else {
          return invalidChar(text, i, inObject ? "after object key:value pair" : "after array element");
        }
        break;
      }
    }
  }
}

/** A string, number or literal starting at `i`: its end index, or Go's error message. */
function scanScalar(text: string, i: number): number | string {
  const c = text.charCodeAt(i);
  if (c === 0x22) return scanString(text, i);
  if (c === 0x2d || isDigit(c)) return scanNumber(text, i);
  if (c === 0x74) return scanLiteral(text, i, "true");
  if (c === 0x66) return scanLiteral(text, i, "false");
  if (c === 0x6e) return scanLiteral(text, i, "null");
  return invalidChar(text, i, "looking for beginning of value");
}

function scanString(text: string, i: number): number | string {
  const n = text.length;
  let j = i + 1;
  for (;;) {
    if (j >= n) return UNEXPECTED_EOF;
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return invalidChar(text, j, "in string literal");
    if (c !== 0x5c) {
      j++;
      continue;
    }
    j++;
    // At the end of input Go's scanner feeds one space, so a cut-off escape reports ' '.
    const e = j < n ? text.charCodeAt(j) : 0x20;
    if (e === 0x75) {
      for (let k = 1; k <= 4; k++) {
        const h = j + k < n ? text.charCodeAt(j + k) : 0x20;
        if (!isHex(h)) return invalidChar(text, j + k, "in \\u hexadecimal character escape");
      }
      j += 5;
    } else if ('"\\/bfnrt'.includes(String.fromCharCode(e))) {
      j++;
    } else {
      return invalidChar(text, j, "in string escape code");
    }
  }
}

function scanNumber(text: string, i: number): number | string {
  // Past the end Go's scanner sees a space: it ends a complete number and is an error elsewhere.
  const at = (k: number) => (k < text.length ? text.charCodeAt(k) : 0x20);
  let j = i;
  if (at(j) === 0x2d) j++;
  if (at(j) === 0x30) j++;
  else if (isDigit(at(j)) && at(j) !== 0x30) while (isDigit(at(j))) j++;
  else return invalidChar(text, j, "in numeric literal");
  if (at(j) === 0x2e) {
    j++;
    if (!isDigit(at(j))) return invalidChar(text, j, "after decimal point in numeric literal");
    while (isDigit(at(j))) j++;
  }
  if (at(j) === 0x65 || at(j) === 0x45) {
    j++;
    if (at(j) === 0x2b || at(j) === 0x2d) j++;
    if (!isDigit(at(j))) return invalidChar(text, j, "in exponent of numeric literal");
    while (isDigit(at(j))) j++;
  }
  return j;
}

function scanLiteral(text: string, i: number, word: string): number | string {
  for (let k = 1; k < word.length; k++) {
    const c = i + k < text.length ? text.charCodeAt(i + k) : 0x20;
    if (c !== word.charCodeAt(k)) return invalidChar(text, i + k, `in literal ${word} (expecting '${word[k]}')`);
  }
  return i + word.length;
}

/** `invalid character 'x' <context>`, quoting the offending byte as Go's quoteChar does. */
function invalidChar(text: string, i: number, context: string): string {
  return `invalid character ${quoteChar(firstByte(text, i))} ${context}`;
}

/** The byte Go's byte-wise scanner would see at this character: its first UTF-8 byte (a space at EOF). */
function firstByte(text: string, i: number): number {
  if (i >= text.length) return 0x20;
  const cp = text.codePointAt(i)!;
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp >= 0xd800 && cp <= 0xdfff) return 0xef; // lone surrogate: encoded as U+FFFD
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

/** Go's quoteChar: the byte read as a Latin-1 rune, quoted like strconv.Quote, in single quotes. */
function quoteChar(b: number): string {
  if (b === 0x27) return "'\\''";
  if (b === 0x22) return "'\"'";
  const short: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x5c: "\\\\" };
  if (short[b] !== undefined) return `'${short[b]}'`;
  if (b < 0x20 || b === 0x7f) return `'\\x${b.toString(16).padStart(2, "0")}'`;
  // A lead byte (0xC2–0xF4) read as a Latin-1 rune is always printable to strconv.IsPrint.
  return `'${String.fromCharCode(b)}'`;
}

// --- Decoding into Plan (input already known to be valid JSON) -------------------------------------

type Kind = "string" | "number" | "bool" | "null" | "object" | "array";

interface Token {
  kind: Kind;
  start: number;
  end: number;
}

/** The Plan fields Go's decoder knows, by case-folded JSON name. */
const FIELDS = new Map<string, "name" | "time" | "height" | "info" | "upgraded_client_state">([
  ["NAME", "name"],
  ["TIME", "time"],
  ["HEIGHT", "height"],
  ["INFO", "info"],
  ["UPGRADED_CLIENT_STATE", "upgraded_client_state"],
]);

function decodePlan(text: string): ParsedUpgradeInfo {
  const out: ParsedUpgradeInfo = { name: "", height: 0n, info: "", time: null, timeIsZero: true };
  let i = skipSpace(text, 0);
  const top = readToken(text, i);
  if (top.kind === "null") return out; // Go: null into a struct is a no-op
  if (top.kind !== "object") {
    throw errors.invalidUpgradeInfo(`json: cannot unmarshal ${top.kind} into Go value of type types.Plan`);
  }

  let savedError: string | undefined; // Go keeps decoding after a type error and reports the first one
  let hasClientState = false;
  i++;
  for (;;) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) === 0x7d) break;
    if (text.charCodeAt(i) === 0x2c) i = skipSpace(text, i + 1);
    const keyToken = readToken(text, i);
    const key = unquote(text, keyToken);
    i = skipSpace(text, skipSpace(text, keyToken.end) + 1); // past the colon
    const value = readToken(text, i);
    i = value.end;

    const field = FIELDS.get(foldName(key));
    if (field === undefined) continue; // unknown keys are ignored
    // null leaves a value field as it was (Go); only the pointer field is reset by it.
    if (field === "upgraded_client_state") {
      hasClientState = value.kind !== "null"; // *Any has its own UnmarshalJSON: any non-null value sets it
      continue;
    }
    if (value.kind === "null") continue;
    if (field === "time") {
      // time.Time.UnmarshalJSON gets the raw bytes; its errors abort decoding at once, untouched.
      if (value.kind !== "string") throw errors.invalidUpgradeInfo("Time.UnmarshalJSON: input is not a JSON string");
      const raw = text.slice(value.start + 1, value.end - 1);
      const parsed = parseStrictRFC3339(utf8Bytes(raw));
      if (typeof parsed === "string") throw errors.invalidUpgradeInfo(parsed);
      out.time = raw;
      out.timeIsZero = parsed;
      continue;
    }
    if (field === "height") {
      if (value.kind === "number") {
        const token = text.slice(value.start, value.end);
        const h = /^-?[0-9]+$/.test(token) ? BigInt(token) : undefined; // BigInt: exact past 2^53
        if (h !== undefined && h >= INT64_MIN && h <= INT64_MAX) out.height = h;
        else savedError ??= typeError(`number ${token}`, "height", "int64");
      } else {
        savedError ??= typeError(value.kind, "height", "int64");
      }
      continue;
    }
    if (value.kind === "string") out[field] = unquote(text, value);
    else savedError ??= typeError(value.kind, field, "string");
  }
  if (savedError !== undefined) throw errors.invalidUpgradeInfo(savedError);
  if (hasClientState) throw out.timeIsZero ? errors.ibcMoved() : errors.timeDeprecated();
  return out;
}

function typeError(what: string, field: string, type: string): string {
  return `json: cannot unmarshal ${what} into Go struct field Plan.${field} of type ${type}`;
}

/**
 * Go matches keys to fields case-insensitively with Unicode simple folding. Among the letters of the
 * field names only `s` has a non-ASCII fold partner: U+017F (ſ).
 */
function foldName(key: string): string {
  let out = "";
  for (const ch of key) {
    if (ch >= "a" && ch <= "z") out += ch.toUpperCase();
    else if (ch === "\u017f") out += "S";
    else out += ch; // anything else cannot fold onto a field name's letters
  }
  return out;
}

/** The extent of the value at `i` (valid JSON assumed). Containers are skipped without recursion. */
function readToken(text: string, i: number): Token {
  const c = text.charCodeAt(i);
  if (c === 0x22) return { kind: "string", start: i, end: stringEnd(text, i) };
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = i;
    for (;;) {
      const d = text.charCodeAt(j);
      if (d === 0x22) {
        j = stringEnd(text, j);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) depth--;
      j++;
      if (depth === 0) return { kind: c === 0x7b ? "object" : "array", start: i, end: j };
    }
  }
  if (c === 0x74) return { kind: "bool", start: i, end: i + 4 };
  if (c === 0x66) return { kind: "bool", start: i, end: i + 5 };
  if (c === 0x6e) return { kind: "null", start: i, end: i + 4 };
  let j = i + 1;
  while (j < text.length && /[0-9eE.+-]/.test(text[j])) j++;
  return { kind: "number", start: i, end: j };
}

function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    j += c === 0x5c ? 2 : 1;
  }
}

/** Go's unquote: standard escapes; a `\u` surrogate that does not form a valid pair becomes U+FFFD. */
function unquote(text: string, token: Token): string {
  const end = token.end - 1;
  let out = "";
  let start = token.start + 1;
  for (let j = start; j < end; ) {
    if (text.charCodeAt(j) !== 0x5c) {
      j++;
      continue;
    }
    out += text.slice(start, j);
    const e = text[j + 1];
    if (e === "u") {
      let r = parseInt(text.slice(j + 2, j + 6), 16);
      j += 6;
      if (r >= 0xd800 && r <= 0xdfff) {
        const lo = text[j] === "\\" && text[j + 1] === "u" ? parseInt(text.slice(j + 2, j + 6), 16) : -1;
        if (r <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) {
          out += String.fromCharCode(r, lo);
          j += 6;
          start = j;
          continue;
        }
        r = 0xfffd;
      }
      out += String.fromCharCode(r);
    } else {
      out += ({ b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" } as Record<string, string>)[e] ?? e;
      j += 2;
    }
    start = j;
  }
  return out + text.slice(start, end);
}

// --- time.Time.UnmarshalJSON: Go's parseStrictRFC3339 ---------------------------------------------

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
 * Go's `parseStrictRFC3339` on the raw bytes (a byte string: one char per UTF-8 byte, so indexes match
 * Go's). Returns whether the instant is the zero time, or Go's error message.
 */
function parseStrictRFC3339(b: string): boolean | string {
  const fast = parseRFC3339Fast(b);
  if (fast !== undefined) return isZeroInstant(fast);
  const t = goParse(b);
  if (typeof t === "string") return t;
  // time.Parse accepts a few forms RFC 3339 does not; Go rejects them after the fact.
  if (b[12] === ":") return cannotParse(b, b.slice(11, 12), "15");
  if (b.length > 19 && b[19] === ",") return cannotParse(b, ",", ".");
  if (b[b.length - 1] === "Z") return cannotParse(b, b, RFC3339);
  if (num2(b, b.length - 5) >= 24) return `parsing time ${goQuote(b)}: timezone hour out of range`;
  if (num2(b, b.length - 2) >= 60) return `parsing time ${goQuote(b)}: timezone minute out of range`;
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
  const range = (what: string) => `parsing time ${goQuote(orig)}: ${what} out of range`;
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
  if (v.length > 0) return `parsing time ${goQuote(orig)}: extra text: ${goQuote(v)}`;
  if (day < 1 || day > daysIn(month, year)) return range("day");
  return { year, month, day, hour, min, sec, nsecZero, offset };
}

function cannotParse(value: string, elem: string, layoutElem: string): string {
  return `parsing time ${goQuote(value)} as ${goQuote(RFC3339)}: cannot parse ${goQuote(elem)} as ${goQuote(layoutElem)}`;
}

/** The time package's quote: bytes outside printable ASCII as `\xNN`, `"` and `\` backslashed. */
function goQuote(b: string): string {
  let out = '"';
  for (let k = 0; k < b.length; k++) {
    const c = b.charCodeAt(k);
    if (c < 0x20 || c >= 0x80) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += c === 0x22 || c === 0x5c ? "\\" + b[k] : b[k];
  }
  return out + '"';
}

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

// --- small helpers ---------------------------------------------------------------------------------

/** One char per UTF-8 byte, so string indexes are Go's byte indexes. */
function utf8Bytes(s: string): string {
  return Buffer.from(s, "utf8").toString("latin1");
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}
