/**
 * grpc-gateway JSON as the SDK's gateway marshals it (`JSONPb{EmitDefaults: true, OrigName: true}`,
 * docs/spec/interfaces.md §3): snake_case in field order, int64/uint64 as strings, unset messages and bytes as null,
 * the zero time as "0001-01-01T00:00:00Z", Go's string escaping, compact.
 */
import type { Plan } from "../core/types.js";
import { goJsonString } from "../go/json.js";
import type { QueryMethod } from "./names.js";
import type { QueryResponses } from "./codec.js";

const ZERO_TIME = '"0001-01-01T00:00:00Z"';

export function planJson(plan: Plan): string {
  return (
    `{"name":${goJsonString(plan.name)},"time":${ZERO_TIME},"height":"${plan.height}",` + `"info":${goJsonString(plan.info)},"upgraded_client_state":null}`
  );
}

export function responseJson<M extends QueryMethod>(method: M, res: QueryResponses[M]): string {
  switch (method) {
    case "CurrentPlan": {
      const { plan } = res as QueryResponses["CurrentPlan"];
      return `{"plan":${plan === undefined ? "null" : planJson(plan)}}`;
    }
    case "AppliedPlan":
      return `{"height":"${(res as QueryResponses["AppliedPlan"]).height}"}`;
    case "UpgradedConsensusState": {
      const s = (res as QueryResponses["UpgradedConsensusState"]).upgradedConsensusState;
      return `{"upgraded_consensus_state":${s === undefined || s.length === 0 ? "null" : `"${Buffer.from(s).toString("base64")}"`}}`;
    }
    case "ModuleVersions": {
      const items = (res as QueryResponses["ModuleVersions"]).moduleVersions.map(
        ({ name, version }) => `{"name":${goJsonString(name)},"version":"${version}"}`,
      );
      return `{"module_versions":[${items.join(",")}]}`;
    }
    case "Authority":
      return `{"address":${goJsonString((res as QueryResponses["Authority"]).address)}}`;
  }
  throw new TypeError(`unknown method ${String(method)}`);
}

/** The gateway's error body, a google.rpc.Status: `{"code":<n>,"message":"…","details":[]}`. */
export function statusJson(code: number, message: string): string {
  return `{"code":${code},"message":${goJsonString(message)},"details":[]}`;
}
