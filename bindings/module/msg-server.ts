/** The upgrade module's Msg service: governance schedules and cancels plans through it (docs/spec/keeper.md §9). */
import { errors } from "../core/errors.js";
import type { UpgradeKeeper } from "./keeper.js";
import type { MsgCancelUpgrade, MsgSoftwareUpgrade } from "./msgs.js";
import type { PlanInput } from "../core/types.js";

export interface MsgServer {
  softwareUpgrade(msg: { authority: string; plan: PlanInput }, blockHeight: bigint | number): Record<string, never>;
  cancelUpgrade(msg: MsgCancelUpgrade): Record<string, never>;
}

export function createMsgServer(keeper: UpgradeKeeper): MsgServer {
  /** Plain string equality, as upstream: no bech32 normalisation. */
  const checkAuthority = (authority: unknown) => {
    if (typeof authority !== "string") throw new TypeError("authority must be a string");
    if (authority !== keeper.authority) throw errors.unauthorized(keeper.authority, authority);
  };
  return {
    softwareUpgrade(msg: MsgSoftwareUpgrade | { authority: string; plan: PlanInput }, blockHeight) {
      checkAuthority(msg.authority);
      keeper.scheduleUpgrade(msg.plan, blockHeight);
      return {};
    },
    cancelUpgrade(msg) {
      checkAuthority(msg.authority);
      keeper.clearUpgradePlan();
      return {};
    },
  };
}
