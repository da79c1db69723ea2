/**
 * Upgrade readiness (docs/spec/readiness.md), an xupgrade extension: the stake-weighted tally the chain keeps
 * of its validators' attestations, read either way the page reads the upgrade state —
 *   REST  `GET /xupgrade/upgrade/v1/readiness` (the gateway's JSON, parsed here);
 *   raw   the readiness store through abci_query (`/store/readiness/key`): 0x00 the params, and the tally of
 *         the scheduled plan under its key, decoded by the package's codec — the value a Merkle proof will
 *         cover once the node's app hash is a Merkle root.
 * A node without the extension (simd, an older devnet) answers 501 or refuses the store: said in words.
 */
import {
  decodeReadinessParams,
  decodeTally,
  tallyKey,
  type ReadinessParams,
  type ReadinessStatus,
  type ReadinessTally,
  type ValidatorReadiness,
} from "xupgrade";
import { failed, ok, type Part, type PlanView } from "./model.js";
import { field, getJson, httpProblem, int, originOf, Problem, toProblem } from "./net.js";
import type { RpcClient } from "./rpc.js";

export interface ReadinessView {
  /** undefined: no plan scheduled, or none tallied (vote extensions off, or not yet). */
  tally: ReadinessTally | undefined;
  params: ReadinessParams;
  /** The node does not serve readiness (not an xupgrade node with vote extensions). */
  unsupported?: string;
}

const STATUS: Record<string, ReadinessStatus> = {
  READINESS_STATUS_READY: "ready",
  READINESS_STATUS_DIFFERENT_BINARY: "different_binary",
  READINESS_STATUS_FAILED: "failed",
  READINESS_STATUS_NOT_REHEARSED: "not_rehearsed",
  READINESS_STATUS_NO_ATTESTATION: "no_attestation",
};
const VERDICT = { REHEARSAL_VERDICT_NOT_REHEARSED: "not_rehearsed", REHEARSAL_VERDICT_PASSED: "passed", REHEARSAL_VERDICT_FAILED: "failed" } as const;

function b64(text: unknown, what: string): Uint8Array {
  if (typeof text !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(text))
    throw new Problem("garbage", `${what} answered “${String(text)}” where base64 bytes belong.`);
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** The REST gateway's JSON as the package's tally. */
export function tallyFromJson(t: unknown, what: string): ReadinessTally {
  const n = (path: string) => int(field(t, path, what, "string"), what, path);
  const validators = field(t, "validators", what, "array").map((v): ValidatorReadiness => {
    const status = STATUS[field(v, "status", what)];
    if (!status) throw new Problem("garbage", `${what} answered an unknown readiness status “${String((v as { status?: unknown }).status)}”.`);
    const a = (v as { attestation?: unknown }).attestation;
    const attestation =
      a === null || a === undefined
        ? undefined
        : {
            planName: field(a, "plan_name", what),
            planHeight: int(field(a, "plan_height", what), what, "plan_height"),
            platform: field(a, "platform", what),
            binarySha256: b64(field(a, "binary_sha256", what), what),
            preflightOk: field(a, "preflight_ok", what, "any") === true,
            rehearsal: VERDICT[field(a, "rehearsal", what) as keyof typeof VERDICT] ?? "not_rehearsed",
            rehearsalExitCode: Number(field(a, "rehearsal_exit_code", what, "number")),
            appHash: b64(field(a, "app_hash", what), what),
            snapshotHeight: int(field(a, "snapshot_height", what), what, "snapshot_height"),
            binaryVersion: field(a, "binary_version", what),
          };
    return {
      address: b64(field(v, "address", what), what),
      name: field(v, "name", what),
      power: int(field(v, "power", what), what, "power"),
      status,
      ...(attestation ? { attestation } : {}),
      attestedHeight: int(field(v, "attested_height", what), what, "attested_height"),
    };
  });
  return {
    planName: field(t, "plan_name", what),
    planHeight: n("plan_height"),
    updatedHeight: n("updated_height"),
    totalPower: n("total_power"),
    readyPower: n("ready_power"),
    differentBinaryPower: n("different_binary_power"),
    failedPower: n("failed_power"),
    notRehearsedPower: n("not_rehearsed_power"),
    noAttestationPower: n("no_attestation_power"),
    validators,
    appHashGroups: field(t, "app_hash_groups", what, "array").map((g) => ({
      snapshotHeight: int(field(g, "snapshot_height", what), what, "snapshot_height"),
      appHash: b64(field(g, "app_hash", what), what),
      power: int(field(g, "power", what), what, "power"),
      validators: field(g, "validators", what, "array").map((x) => b64(x, what)),
    })),
    expectedBinaries: field(t, "expected_binaries", what, "array").map((e) => ({
      platform: field(e, "platform", what),
      sha256: b64(field(e, "sha256", what), what),
      source: field(e, "source", what) === "EXPECTED_BINARY_SOURCE_PLAN_INFO" ? ("plan_info" as const) : ("most_power" as const),
    })),
    appHashesDisagree: field(t, "app_hashes_disagree", what, "any") === true,
  };
}

/** REST: the readiness route (501 from a node without it). */
export async function readReadinessRest(restBase: string): Promise<Part<ReadinessView>> {
  const what = "REST xupgrade/upgrade/v1/readiness";
  const url = `${restBase}/xupgrade/upgrade/v1/readiness`;
  try {
    const { json, status, headers } = await getJson(url, what, { acceptErrorStatus: true });
    if (status === 501 || status === 404)
      return ok(
        {
          tally: undefined,
          params: { voteExtensionsEnableHeight: 0n, activationThreshold: "" },
          unsupported: `${originOf(url)} does not serve readiness (HTTP ${status}): not an xupgrade node.`,
        },
        undefined,
      );
    if (status >= 400) throw httpProblem(what, originOf(url), status, json);
    const h = headers.get("x-cosmos-block-height");
    const tally = field(json, "tally", what, "any");
    const params = {
      voteExtensionsEnableHeight: int(field(json, "params.vote_extensions_enable_height", what), what, "vote_extensions_enable_height"),
      activationThreshold: field(json, "params.activation_threshold", what),
    };
    return ok({ tally: tally === null ? undefined : tallyFromJson(tally, what), params }, h && /^[0-9]+$/.test(h) ? BigInt(h) : undefined);
  } catch (e) {
    return failed(toProblem(e, "REST"));
  }
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Raw: the readiness store's params and the scheduled plan's tally, decoded by the package. */
export async function readReadinessRaw(rpc: RpcClient, plan: Part<PlanView | undefined>): Promise<Part<ReadinessView>> {
  try {
    let params: ReadinessParams;
    try {
      const p = await rpc.abciQuery("/store/readiness/key", "00");
      params = p.value.length === 0 ? { voteExtensionsEnableHeight: 0n, activationThreshold: "" } : decodeReadinessParams(p.value);
    } catch (e) {
      const problem = toProblem(e);
      if (problem.kind === "abci")
        return ok(
          {
            tally: undefined,
            params: { voteExtensionsEnableHeight: 0n, activationThreshold: "" },
            unsupported: `the node keeps no readiness store (${problem.detail})`,
          },
          undefined,
        );
      throw e;
    }
    if (!plan.ok) return failed(plan.problem);
    if (!plan.value) return ok({ tally: undefined, params }, plan.at);
    const { value, height } = await rpc.abciQuery("/store/readiness/key", hex(tallyKey(plan.value.name, plan.value.height)));
    let tally: ReadinessTally | undefined;
    if (value.length > 0) {
      try {
        tally = decodeTally(value);
      } catch (e) {
        throw new Problem("corrupt", `the readiness tally of “${plan.value.name}”: ${(e as Error).message}`, "raw store");
      }
    }
    return ok({ tally, params }, height);
  } catch (e) {
    return failed(toProblem(e, "raw store"));
  }
}
