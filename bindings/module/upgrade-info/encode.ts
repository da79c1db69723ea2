/**
 * upgrade-info.json's bytes (docs/spec/keeper.md §7): Go's `json.Marshal(Plan)` — keys in struct order, no
 * whitespace, Go's string escaping. Shared by the keeper (Node), the sidecar and anything that must
 * write the file a Go node would write.
 */
import { isInt64 } from "../../go/int.js";
import { goJsonString } from "../../go/json.js";

export const UPGRADE_INFO_FILE = "upgrade-info.json";
export const ZERO_TIME = "0001-01-01T00:00:00Z";

/**
 * `name`, `height` and `info` carry `omitempty`, so an empty name or a zero height is left out exactly as
 * Go would (the keeper never writes those: Plan.ValidateBasic refuses them before); `time` is the non-omittable
 * zero time.
 */
export function encodeUpgradeInfo(plan: { name: string; height: bigint; info?: string }): string {
  if (typeof plan.name !== "string") throw new TypeError("plan name must be a string");
  if (typeof plan.height !== "bigint" || !isInt64(plan.height)) {
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
