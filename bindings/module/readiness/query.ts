/**
 * The readiness query (`xupgrade.upgrade.v1.Query/Readiness`, REST `GET /xupgrade/upgrade/v1/readiness`,
 * docs/spec/readiness.md §8): its request and response messages, and the response as the REST gateway's JSON
 * (proto3 JSON with the original field names, as the SDK's gateway writes it: 64-bit integers as strings,
 * bytes as base64, enums by name, every field present).
 */
import { toBase64 } from "@cosmjs/encoding";
import type { ReadinessAttestation } from "./attestation.js";
import { decodeParams, decodeTally, encodeParams, encodeTally, type ReadinessParams } from "./store.js";
import type { ReadinessTally } from "./tally.js";
import { LEN, V, walk, Writer } from "./wire.js";

export const READINESS_QUERY_PATH = "/xupgrade.upgrade.v1.Query/Readiness";
export const READINESS_REST_PATH = "/xupgrade/upgrade/v1/readiness";

export interface QueryReadinessRequest {
  /** "" = the plan scheduled now. */
  name: string;
  /** With a name: the plan's height; 0 = the latest tally of a plan of that name. */
  height: bigint;
}

export interface QueryReadinessResponse {
  tally?: ReadinessTally;
  params: ReadinessParams;
}

export function encodeReadinessRequest(r: QueryReadinessRequest): Uint8Array {
  return new Writer().string(1, r.name).int64(2, r.height).finish();
}

/** Decodes a request; a malformed one is a ReadinessError of kind "malformed". */
export function decodeReadinessRequest(bytes: Uint8Array): QueryReadinessRequest {
  const r: QueryReadinessRequest = { name: "", height: 0n };
  walk(bytes, "QueryReadinessRequest", "malformed", { 1: LEN, 2: V }, (f) => {
    if (f.no === 1) r.name = f.string();
    else r.height = f.int64();
  });
  return r;
}

export function encodeReadinessResponse(r: QueryReadinessResponse): Uint8Array {
  return new Writer()
    .message(1, r.tally && encodeTally(r.tally))
    .message(2, encodeParams(r.params))
    .finish();
}

export function decodeReadinessResponse(bytes: Uint8Array): QueryReadinessResponse {
  const r: QueryReadinessResponse = { params: { voteExtensionsEnableHeight: 0n, activationThreshold: "" } };
  walk(bytes, "QueryReadinessResponse", "corrupt", { 1: LEN, 2: LEN }, (f) => {
    if (f.no === 1) r.tally = decodeTally(f.bytes());
    else r.params = decodeParams(f.bytes());
  });
  return r;
}

// ---- proto3 JSON (the REST gateway's form) ----

const STATUS = {
  ready: "READY",
  different_binary: "DIFFERENT_BINARY",
  failed: "FAILED",
  not_rehearsed: "NOT_REHEARSED",
  no_attestation: "NO_ATTESTATION",
} as const;
const VERDICT = { not_rehearsed: "NOT_REHEARSED", passed: "PASSED", failed: "FAILED" } as const;
const SOURCE = { plan_info: "PLAN_INFO", most_power: "MOST_POWER" } as const;

function attestationJson(a: ReadinessAttestation) {
  return {
    plan_name: a.planName,
    plan_height: a.planHeight.toString(),
    platform: a.platform,
    binary_sha256: toBase64(a.binarySha256),
    preflight_ok: a.preflightOk,
    rehearsal: `REHEARSAL_VERDICT_${VERDICT[a.rehearsal]}`,
    rehearsal_exit_code: a.rehearsalExitCode,
    app_hash: toBase64(a.appHash),
    snapshot_height: a.snapshotHeight.toString(),
    binary_version: a.binaryVersion,
  };
}

export function tallyJson(t: ReadinessTally) {
  return {
    plan_name: t.planName,
    plan_height: t.planHeight.toString(),
    updated_height: t.updatedHeight.toString(),
    total_power: t.totalPower.toString(),
    ready_power: t.readyPower.toString(),
    different_binary_power: t.differentBinaryPower.toString(),
    failed_power: t.failedPower.toString(),
    not_rehearsed_power: t.notRehearsedPower.toString(),
    no_attestation_power: t.noAttestationPower.toString(),
    validators: t.validators.map((v) => ({
      address: toBase64(v.address),
      name: v.name,
      power: v.power.toString(),
      status: `READINESS_STATUS_${STATUS[v.status]}`,
      attestation: v.attestation ? attestationJson(v.attestation) : null,
      attested_height: v.attestedHeight.toString(),
    })),
    app_hash_groups: t.appHashGroups.map((g) => ({
      snapshot_height: g.snapshotHeight.toString(),
      app_hash: toBase64(g.appHash),
      power: g.power.toString(),
      validators: g.validators.map(toBase64),
    })),
    expected_binaries: t.expectedBinaries.map((e) => ({
      platform: e.platform,
      sha256: toBase64(e.sha256),
      source: `EXPECTED_BINARY_SOURCE_${SOURCE[e.source]}`,
    })),
    app_hashes_disagree: t.appHashesDisagree,
  };
}

/** The REST answer: `{"tally": {…} | null, "params": {…}}`. */
export function readinessResponseJson(r: QueryReadinessResponse) {
  return {
    tally: r.tally ? tallyJson(r.tally) : null,
    params: { vote_extensions_enable_height: r.params.voteExtensionsEnableHeight.toString(), activation_threshold: r.params.activationThreshold },
  };
}
