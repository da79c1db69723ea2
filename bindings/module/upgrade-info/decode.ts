/**
 * Reading upgrade-info.json (docs/spec/keeper.md §7.1 steps 1–5) as Go's `json.Unmarshal` into
 * `upgradetypes.Plan` would: key folding, last key wins, null as a no-op, exact int64, a strict RFC 3339
 * time, and Go's error texts, with the project's wording for an empty or malformed file.
 */
import { errors } from "../../core/errors.js";
import { isInt64 } from "../../go/int.js";
import { goFoldName, goJsonSyntaxError, jsonObjectEntries, jsonUnquote, readJsonToken } from "../../go/json.js";
import { utf8ByteString } from "../../go/quote.js";
import { parseStrictRFC3339 } from "../../go/time.js";

export interface ParsedUpgradeInfo {
  name: string;
  height: bigint;
  info: string;
  /** The raw `time` string as written (Go does not unescape it), or null when absent/null. */
  time: string | null;
  /** Whether `time` denotes the zero instant 0001-01-01T00:00:00Z (true when absent/null). */
  timeIsZero: boolean;
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
  const syntax = goJsonSyntaxError(text);
  if (syntax !== undefined) throw errors.invalidUpgradeInfo(`invalid upgrade-info.json in "${path}": ${syntax}`);
  return decodePlan(text);
}

// --- Decoding into Plan (input already known to be valid JSON) -------------------------------------

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
  const top = readJsonToken(text, 0);
  if (top.kind === "null") return out; // Go: null into a struct is a no-op
  if (top.kind !== "object") {
    throw errors.invalidUpgradeInfo(`json: cannot unmarshal ${top.kind} into Go value of type types.Plan`);
  }

  let savedError: string | undefined; // Go keeps decoding after a type error and reports the first one
  let hasClientState = false;
  for (const [key, value] of jsonObjectEntries(text, top)) {
    const field = FIELDS.get(goFoldName(key));
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
      const parsed = parseStrictRFC3339(utf8ByteString(raw));
      if (typeof parsed === "string") throw errors.invalidUpgradeInfo(parsed);
      out.time = raw;
      out.timeIsZero = parsed;
      continue;
    }
    if (field === "height") {
      if (value.kind === "number") {
        const token = text.slice(value.start, value.end);
        const h = /^-?[0-9]+$/.test(token) ? BigInt(token) : undefined; // BigInt: exact past 2^53
        if (h !== undefined && isInt64(h)) out.height = h;
        else savedError ??= typeError(`number ${token}`, "height", "int64");
      } else {
        savedError ??= typeError(value.kind, "height", "int64");
      }
      continue;
    }
    if (value.kind === "string") out[field] = jsonUnquote(text, value);
    else savedError ??= typeError(value.kind, field, "string");
  }
  if (savedError !== undefined) throw errors.invalidUpgradeInfo(savedError);
  if (hasClientState) throw out.timeIsZero ? errors.ibcMoved() : errors.timeDeprecated();
  return out;
}

function typeError(what: string, field: string, type: string): string {
  return `json: cannot unmarshal ${what} into Go struct field Plan.${field} of type ${type}`;
}
