/**
 * Go's encoding/json where it shows on the wire: string escaping as Marshal writes it, the syntax check
 * with its error texts (json.SyntaxError), and a reader for decoding into Go structs the way Unmarshal
 * does it (keys folded, last key wins, `\u` surrogates that do not pair become U+FFFD).
 */
import { goQuote } from "./quote.js";

/**
 * A JSON string literal as Go's encoding/json writes it, HTML escaping on (the Marshal default and what
 * the SDK's gateway emits). `JSON.stringify` differs on `<>&`, U+2028/U+2029 and lone surrogates.
 */
export function goJsonString(s: string): string {
  let out = '"';
  let start = 0; // unescaped runs are copied in one slice: info strings can be large
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
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff)
        i++; // a well-formed pair: literal
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

// --- The syntax check: Go's scanner, with its error texts -------------------------------------------

const MAX_NESTING_DEPTH = 10000;
const UNEXPECTED_EOF = "unexpected end of JSON input";

/**
 * Go's syntax error message for `text`, or undefined when it is exactly one valid JSON value. Go checks
 * the whole document before decoding anything, so a syntax error wins over every type error. Iterative.
 */
export function goJsonSyntaxError(text: string): string | undefined {
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
  // A lead byte (0xC2–0xF4) read as a Latin-1 rune is printable, so strconv.Quote keeps it.
  return `'${goQuote(String.fromCharCode(b)).slice(1, -1)}'`;
}

// --- Reading values (the input is known to be valid JSON) -------------------------------------------

/** The JSON kinds under Go's names, as its "cannot unmarshal <kind>" errors say them. */
export type GoJsonKind = "string" | "number" | "bool" | "null" | "object" | "array";

/** One value of a valid document: its kind and extent. Nested values are read only when asked for. */
export interface JsonToken {
  kind: GoJsonKind;
  start: number;
  end: number;
}

/** The value starting at (or after whitespace at) `i`. Containers are skipped without recursion. */
export function readJsonToken(text: string, i: number): JsonToken {
  i = skipSpace(text, i);
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

/** The members of an object token, in document order (duplicates included: Go lets the last one win). */
export function* jsonObjectEntries(text: string, object: JsonToken): Generator<[key: string, value: JsonToken]> {
  let i = object.start + 1;
  for (;;) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) === 0x7d) return;
    if (text.charCodeAt(i) === 0x2c) i = skipSpace(text, i + 1);
    const keyToken = readJsonToken(text, i);
    i = skipSpace(text, keyToken.end) + 1; // past the colon
    const value = readJsonToken(text, i);
    i = value.end;
    yield [jsonUnquote(text, keyToken), value];
  }
}

/** The text of a string token as Go unquotes it: a `\u` surrogate that does not pair becomes U+FFFD. */
export function jsonUnquote(text: string, token: JsonToken): string {
  const end = token.end - 1;
  let out = "";
  let start = token.start + 1;
  for (let j = start; j < end;) {
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

/**
 * How Go matches a JSON key to a struct field: both sides folded, each rune to the smallest rune of its
 * case-fold set (ASCII letters to upper case; `ſ` to `S` and the Kelvin sign to `K` among others).
 */
export function goFoldName(key: string): string {
  let out = "";
  for (const ch of key) {
    const c = ch.charCodeAt(0);
    if (c < 0x80) {
      out += c >= 0x61 && c <= 0x7a ? String.fromCharCode(c - 0x20) : ch;
      continue;
    }
    let best = ch;
    for (const cand of [ch.toLowerCase(), ch.toUpperCase(), ch.toLowerCase().toUpperCase(), ch.toUpperCase().toLowerCase()]) {
      if ([...cand].length === 1 && cand.codePointAt(0)! < best.codePointAt(0)!) best = cand;
    }
    out += best;
  }
  return out;
}

function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    j += c === 0x5c ? 2 : 1;
  }
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
