/**
 * Plan info as JSON (docs/spec/interfaces.md §9 steps 1, 3, 4): `{"binaries": {"<os>/<arch>"|"any": "<url>"}}`,
 * decoded as Go's `json.Unmarshal` into the SDK's `plan.Info` would: the `binaries` key matches
 * case-insensitively (the last match wins), other keys are ignored, null counts as absent or "", syntax
 * and type errors use Go's words. Shared by the CLI, the sidecar and the light client (no Node APIs).
 */
import { goFoldName, goJsonSyntaxError, jsonObjectEntries, jsonUnquote, readJsonToken } from "../../go/json.js";
import { PlanInfoError } from "./errors.js";

export { PlanInfoError };

const parseError = (detail: string) => new PlanInfoError(`could not parse plan info: ${detail}`);
const BINARIES = goFoldName("binaries");

/** The binaries map of a JSON plan info (may be empty), keys in document order. */
export function parseInfoJson(text: string): Map<string, string> {
  return parseInfoDocument(text).binaries;
}

/** A JSON plan info: its binaries map, and whether it had a (non-null) `binaries` member at all. */
export function parseInfoDocument(text: string): { binaries: Map<string, string>; hasBinaries: boolean } {
  const syntax = goJsonSyntaxError(text);
  if (syntax !== undefined) throw parseError(syntax);
  const binaries = new Map<string, string>();
  const top = readJsonToken(text, 0);
  if (top.kind === "null") return { binaries, hasBinaries: false };
  if (top.kind !== "object") throw parseError(`json: cannot unmarshal ${top.kind} into Go value of type plan.Info`);
  let found: ReturnType<typeof readJsonToken> | undefined;
  for (const [key, value] of jsonObjectEntries(text, top)) {
    if (goFoldName(key) === BINARIES) found = value;
  }
  if (found === undefined || found.kind === "null") return { binaries, hasBinaries: false };
  if (found.kind !== "object") {
    throw parseError(`json: cannot unmarshal ${found.kind} into Go struct field Info.binaries of type plan.BinaryDownloadURLMap`);
  }
  for (const [key, value] of jsonObjectEntries(text, found)) {
    if (value.kind === "null")
      binaries.set(key, ""); // a map element starts as "" and null leaves it so
    else if (value.kind === "string") binaries.set(key, jsonUnquote(text, value));
    else throw parseError(`json: cannot unmarshal ${value.kind} into Go struct field Info.binaries of type string`);
  }
  return { binaries, hasBinaries: true };
}
