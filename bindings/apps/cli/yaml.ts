/**
 * Text output (docs/spec/interfaces.md §7): the JSON value rendered as YAML with keys sorted, as the SDK's CLI
 * (go-yaml over the JSON). A string is double-quoted when a plain scalar would read back as something
 * else — a number, a YAML 1.1 boolean (true/false/yes/no/on/off/y/n), null/~, a timestamp, empty — or
 * holds characters only escapes can write; single-quoted when only YAML's syntax keeps it from being
 * plain (an indicator first, `: ` or ` #` inside, spaces around); otherwise it is plain. Sequences inside
 * mappings are not indented.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const BOOL_11 = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const NULL = /^(~|null|Null|NULL)$/;
const INT = [
  /^[-+]?0b[0-1_]+$/, // YAML 1.1 binary
  /^[-+]?0[0-7_]+$/, // YAML 1.1 octal
  /^0o[0-7]+$/, // YAML 1.2 octal
  /^[-+]?(0|[1-9][0-9_]*)$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+$/, // sexagesimal
];
const FLOAT = [
  /^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)?$/,
  /^[-+]?[0-9][0-9_]*([eE][-+]?[0-9]+)$/,
  /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*$/,
  /^[-+]?\.(inf|Inf|INF)$/,
  /^\.(nan|NaN|NAN)$/,
];
const TIMESTAMP = [
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/,
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?$/,
];

/** True when `s` must be quoted to read back as this very string. */
export function needsQuotes(s: string): boolean {
  return readsAsAnotherType(s) || needsEscapes(s) || breaksPlainSyntax(s);
}

/** A plain scalar that a YAML 1.1 reader would resolve to something other than this string. */
function readsAsAnotherType(s: string): boolean {
  if (s === "") return true;
  if (BOOL_11.test(s) || NULL.test(s)) return true;
  if (INT.some((r) => r.test(s)) || FLOAT.some((r) => r.test(s)) || TIMESTAMP.some((r) => r.test(s))) return true;
  return s === "." || s === "<<" || s === "=";
}

/** Characters outside what YAML prints as they are (newlines, tabs, controls, lone surrogates, BOM). */
function needsEscapes(s: string): boolean {
  // eslint-disable-next-line no-control-regex -- the controls are what it looks for
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** Indicators that cannot start a plain scalar, surrounding spaces, comment and mapping markers. */
function breaksPlainSyntax(s: string): boolean {
  if (/^[,[\]{}#&*!|>'"%@`]/.test(s) || /^[-?:](\s|$)/.test(s) || /^(---|\.\.\.)(\s|$)/.test(s)) return true;
  if (/^\s|\s$/.test(s)) return true;
  return s.includes(": ") || s.includes(" #") || s.endsWith(":");
}

function scalar(s: string): string {
  if (readsAsAnotherType(s) || needsEscapes(s)) {
    // A JSON string literal is a valid YAML double-quoted scalar; escape what YAML would fold or reject.
    return JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029\ufeff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }
  // go-yaml single-quotes what only the syntax keeps from being plain; a quote inside is doubled.
  return breaksPlainSyntax(s) ? `'${s.replaceAll("'", "''")}'` : s;
}

function sortedKeys(o: { [key: string]: JsonValue }): string[] {
  return Object.keys(o).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const isCollection = (v: JsonValue): v is JsonValue[] | { [key: string]: JsonValue } =>
  v !== null && typeof v === "object" && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);

function leaf(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  if (typeof v === "string") return scalar(v);
  return Array.isArray(v) ? "[]" : "{}";
}

function emit(v: JsonValue, indent: string, out: string[]): void {
  if (Array.isArray(v)) {
    for (const item of v) {
      if (isCollection(item)) {
        const lines: string[] = [];
        emit(item, "", lines);
        out.push(indent + "- " + lines[0]);
        for (const line of lines.slice(1)) out.push(indent + "  " + line);
      } else {
        out.push(indent + "- " + leaf(item));
      }
    }
    return;
  }
  const o = v as { [key: string]: JsonValue };
  for (const key of sortedKeys(o)) {
    const value = o[key];
    if (isCollection(value)) {
      out.push(indent + scalar(key) + ":");
      emit(value, Array.isArray(value) ? indent : indent + "  ", out);
    } else {
      out.push(indent + scalar(key) + ": " + leaf(value));
    }
  }
}

/** YAML text of a JSON value, ending with a newline. */
export function toYaml(value: JsonValue): string {
  if (!isCollection(value)) return leaf(value) + "\n";
  const out: string[] = [];
  emit(value, "", out);
  return out.join("\n") + "\n";
}
