/**
 * Plan info as JSON (interfaces.md §9 steps 1, 3, 4): `{"binaries": {"<os>/<arch>"|"any": "<url>"}}`,
 * parsed with Go's encoding/json semantics where they show: the `binaries` key matches case-insensitively
 * (last match wins), other keys are ignored, null counts as absent/"", and type errors use Go's words.
 */

export class PlanInfoError extends Error {}

const goType = (v: unknown): string => {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "bool";
    default:
      return "object";
  }
};

const parseError = (detail: string) => new PlanInfoError(`could not parse plan info: ${detail}`);

/** The binaries map of a JSON plan info (may be empty). */
export function parseInfoJson(text: string): Map<string, string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw parseError((e as Error).message);
  }
  const binaries = new Map<string, string>();
  if (doc === null) return binaries;
  if (goType(doc) !== "object") throw parseError(`json: cannot unmarshal ${goType(doc)} into Go value of type plan.Info`);
  let found: unknown = undefined;
  for (const key of Object.keys(doc as object)) {
    if (key.toLowerCase() === "binaries") found = (doc as Record<string, unknown>)[key];
  }
  if (found === undefined || found === null) return binaries;
  if (goType(found) !== "object") {
    throw parseError(`json: cannot unmarshal ${goType(found)} into Go struct field Info.binaries of type plan.BinaryDownloadURLMap`);
  }
  for (const [key, value] of Object.entries(found as Record<string, unknown>)) {
    if (value === null) binaries.set(key, "");
    else if (typeof value === "string") binaries.set(key, value);
    else throw parseError(`json: cannot unmarshal ${goType(value)} into Go struct field Info.binaries of type string`);
  }
  return binaries;
}
