/** JSON forms of decoded protobuf values, as the SDK's CLI prints them (snake_case, int64 as strings, zero time as 0001-01-01T00:00:00Z). */
import type { Any } from "cosmjs-types/google/protobuf/any";
import type { Timestamp } from "cosmjs-types/google/protobuf/timestamp";
import { formatRfc3339Nano } from "../../../go/time.js";
import type { JsonValue } from "../yaml.js";

export function timestampJson(t: Timestamp | undefined): JsonValue {
  if (t === undefined) return null;
  return formatRfc3339Nano(t.seconds, t.nanos);
}

/** The zero time when absent (a non-nullable gogoproto Timestamp). */
export function timeJson(t: Timestamp | undefined): string {
  return t === undefined ? "0001-01-01T00:00:00Z" : formatRfc3339Nano(t.seconds, t.nanos);
}

/** An Any whose type this CLI does not render field by field. */
export function opaqueAnyJson(a: Any): JsonValue {
  return { "@type": a.typeUrl, value: Buffer.from(a.value).toString("base64") };
}

export interface PlanLike {
  name: string;
  time?: Timestamp;
  height: bigint;
  info: string;
  upgradedClientState?: Any;
}

export function planJson(p: PlanLike): JsonValue {
  return {
    name: p.name,
    time: timeJson(p.time),
    height: p.height.toString(),
    info: p.info,
    upgraded_client_state: p.upgradedClientState ? opaqueAnyJson(p.upgradedClientState) : null,
  };
}

export function coinsJson(coins: { denom: string; amount: string }[]): JsonValue {
  return coins.map((c) => ({ denom: c.denom, amount: c.amount }));
}
