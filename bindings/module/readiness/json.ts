/**
 * The attestation as JSON (docs/spec/readiness.md §3): the file a sidecar hands to the node it supervises
 * (`<home>/data/upgrade-readiness.json`), and what its `/readiness` endpoint answers. Heights are decimal
 * strings, hashes hex; `path`, `reason`, `summary` and `created` are for people and never enter the vote
 * extension.
 */
import { fromHex, toHex } from "@cosmjs/encoding";
import { checkAttestation, REHEARSAL_VERDICTS, type ReadinessAttestation, type RehearsalVerdict } from "./attestation.js";
import { ReadinessError } from "./errors.js";

export const READINESS_FORMAT = "xupgrade-readiness/1";
export const READINESS_FILE = "upgrade-readiness.json";

export interface ReadinessJson {
  format: typeof READINESS_FORMAT;
  plan: { name: string; height: string };
  platform: string;
  binary: { sha256: string; version: string; path: string };
  preflight: { ok: boolean; reason: string };
  rehearsal: { verdict: RehearsalVerdict; exit_code: number; app_hash: string; snapshot_height: string; summary: string };
  /** RFC 3339, when the sidecar made it. */
  created: string;
}

export interface ReadinessNotes {
  path?: string;
  reason?: string;
  summary?: string;
  created?: string;
}

export function attestationToJson(a: ReadinessAttestation, notes: ReadinessNotes = {}): ReadinessJson {
  return {
    format: READINESS_FORMAT,
    plan: { name: a.planName, height: a.planHeight.toString() },
    platform: a.platform,
    binary: { sha256: toHex(a.binarySha256), version: a.binaryVersion, path: notes.path ?? "" },
    preflight: { ok: a.preflightOk, reason: notes.reason ?? "" },
    rehearsal: {
      verdict: a.rehearsal,
      exit_code: a.rehearsalExitCode,
      app_hash: toHex(a.appHash).toUpperCase(),
      snapshot_height: a.snapshotHeight.toString(),
      summary: notes.summary ?? "",
    },
    created: notes.created ?? "",
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads the JSON form and checks the attestation it holds; a ReadinessError says what is wrong. */
export function attestationFromJson(value: unknown): ReadinessAttestation {
  const bad = (what: string) => new ReadinessError("malformed", `readiness file: ${what}`);
  if (!isObject(value)) throw bad("not a JSON object");
  if (value.format !== READINESS_FORMAT) throw bad(`format is ${JSON.stringify(value.format)}, expected ${JSON.stringify(READINESS_FORMAT)}`);
  const part = (key: string) => {
    const v = value[key];
    if (!isObject(v)) throw bad(`${key} is not an object`);
    return v;
  };
  const str = (o: Record<string, unknown>, key: string, where: string, optional = false): string => {
    const v = o[key];
    if (v === undefined && optional) return "";
    if (typeof v !== "string") throw bad(`${where}.${key} is not a string`);
    return v;
  };
  const height = (o: Record<string, unknown>, key: string, where: string): bigint => {
    const v = str(o, key, where);
    if (!/^(0|[1-9][0-9]{0,18})$/.test(v)) throw bad(`${where}.${key} ${JSON.stringify(v)} is not a decimal height`);
    return BigInt(v);
  };
  const hex = (o: Record<string, unknown>, key: string, where: string): Uint8Array => {
    const v = str(o, key, where);
    if (!/^([0-9a-fA-F]{2})*$/.test(v)) throw bad(`${where}.${key} is not hex`);
    return fromHex(v.toLowerCase());
  };
  const plan = part("plan");
  const binary = part("binary");
  const preflight = part("preflight");
  const rehearsal = part("rehearsal");
  if (typeof value.platform !== "string") throw bad("platform is not a string");
  if (typeof preflight.ok !== "boolean") throw bad("preflight.ok is not a boolean");
  const verdict = rehearsal.verdict;
  if (typeof verdict !== "string" || !REHEARSAL_VERDICTS.includes(verdict as RehearsalVerdict))
    throw bad(`rehearsal.verdict must be one of ${REHEARSAL_VERDICTS.join(", ")}`);
  const exit = rehearsal.exit_code;
  if (typeof exit !== "number" || !Number.isInteger(exit) || exit < 0 || exit > 0xffffffff) throw bad("rehearsal.exit_code is not an exit code");
  const a: ReadinessAttestation = {
    planName: str(plan, "name", "plan"),
    planHeight: height(plan, "height", "plan"),
    platform: value.platform,
    binarySha256: hex(binary, "sha256", "binary"),
    preflightOk: preflight.ok,
    rehearsal: verdict as RehearsalVerdict,
    rehearsalExitCode: exit,
    appHash: hex(rehearsal, "app_hash", "rehearsal"),
    snapshotHeight: height(rehearsal, "snapshot_height", "rehearsal"),
    binaryVersion: str(binary, "version", "binary", true),
  };
  checkAttestation(a);
  return a;
}
