/** JSON of the messages a proposal or transaction carries, for the types this CLI knows; others stay opaque. */
import { MsgCancelUpgrade, MsgSoftwareUpgrade } from "cosmjs-types/cosmos/upgrade/v1beta1/tx";
import type { Any } from "cosmjs-types/google/protobuf/any";
import { MSG_CANCEL_UPGRADE_TYPE_URL, MSG_SOFTWARE_UPGRADE_TYPE_URL } from "../../../module/msgs.js";
import type { JsonValue } from "../yaml.js";
import { opaqueAnyJson, planJson } from "./json.js";

export function anyMessageJson(a: Any): JsonValue {
  try {
    if (a.typeUrl === MSG_SOFTWARE_UPGRADE_TYPE_URL) {
      const m = MsgSoftwareUpgrade.decode(a.value);
      return { "@type": a.typeUrl, authority: m.authority, plan: planJson(m.plan) };
    }
    if (a.typeUrl === MSG_CANCEL_UPGRADE_TYPE_URL) {
      return { "@type": a.typeUrl, authority: MsgCancelUpgrade.decode(a.value).authority };
    }
  } catch {
    /* undecodable: shown opaque */
  }
  return opaqueAnyJson(a);
}
