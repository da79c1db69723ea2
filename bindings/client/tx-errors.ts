/** How broadcasting a transaction can end other than in a block (docs/spec/interfaces.md §7.3): each says what became of it. */
import { ClientError } from "./errors.js";
import type { UpgradePlanRef } from "./upgrade-halt.js";

/** CheckTx refused it: it is in no mempool. */
export class TxRefusedError extends ClientError {
  override name = "TxRefusedError";
  constructor(
    readonly code: number,
    readonly codespace: string,
    readonly log: string,
  ) {
    super(`broadcast failed (codespace ${codespace} code ${code}): ${log}`);
  }
}

/** Accepted, and not in a block within the wait while the chain ran. */
export class InclusionTimeoutError extends ClientError {
  override name = "InclusionTimeoutError";
  constructor(readonly txhash: string) {
    super(`timed out waiting for tx ${txhash} to be included in a block`);
  }
}

/**
 * Where the transaction stood when the chain halted for an upgrade:
 * - `not-sent`: nothing was broadcast (the chain was halted, or the node refused it for the halt);
 * - `mempool`: accepted, not in a block when the chain halted: it waits in the halted nodes' mempools, which a
 *   node may drop when it restarts on the new binary;
 * - `halt-block`: in block H itself, which the chain executes when it resumes;
 * - `node-down`: the node stopped answering near the upgrade height (its binary being switched) before the
 *   transaction was seen in a block (it may or may not have taken it).
 */
export type HaltStage = "not-sent" | "mempool" | "halt-block" | "node-down";

const where = (stage: HaltStage, txhash: string, plan: UpgradePlanRef): string => {
  const halt = `the chain halted at height ${plan.height} for upgrade ${JSON.stringify(plan.name)}`;
  switch (stage) {
    case "not-sent":
      return `${halt}: tx ${txhash} was not broadcast; the chain takes transactions again once validators run a binary with the ${JSON.stringify(plan.name)} upgrade handler`;
    case "mempool":
      return `tx ${txhash} was accepted, but ${halt} before including it: it waits in the halted nodes' mempools, which a node may drop when it restarts on the new binary, so whether it is committed after the switch is not known`;
    case "halt-block":
      return `tx ${txhash} is in block ${plan.height}, where the chain halted for upgrade ${JSON.stringify(plan.name)}: the chain executes it, and its result is known, once validators run a binary with the ${JSON.stringify(plan.name)} upgrade handler`;
    case "node-down":
      return `the node stopped answering near the upgrade height ${plan.height} of ${JSON.stringify(plan.name)} (its binary being switched), before tx ${txhash} was seen in a block: whether it is committed after the switch is not known`;
  }
};

/** The chain halted for an upgrade before the transaction's result was known (after `waitedMs`, when it was waited for). */
export class UpgradeHaltError extends ClientError {
  override name = "UpgradeHaltError";
  constructor(
    readonly stage: HaltStage,
    readonly txhash: string,
    readonly plan: UpgradePlanRef,
    readonly waitedMs?: number,
  ) {
    super(`${waitedMs === undefined ? "" : `still halted after waiting ${Math.round(waitedMs / 1000)}s: `}${where(stage, txhash, plan)}`);
  }
}

/** Rebroadcast after the switch, it was refused for its sequence and is in no block: another transaction with that sequence was committed. */
export class TxSupersededError extends ClientError {
  override name = "TxSupersededError";
  constructor(
    readonly txhash: string,
    readonly log: string,
  ) {
    super(
      `tx ${txhash} was not committed: rebroadcast after the upgrade, it was refused (${log}) and no block holds it, so another transaction of its account with the same sequence was committed`,
    );
  }
}
