/** `xupgrade tx upgrade cancel-software-upgrade` (docs/spec/interfaces.md §7.2, §10): a gov proposal carrying MsgCancelUpgrade. */
import type { Command } from "commander";
import { GOV_AUTHORITY } from "../../../module/authority.js";
import { parseCoinList } from "../coins.js";
import { cliCore } from "../core.js";
import { expectArgs, requireFlags } from "../flags.js";
import { KeyringContext } from "../keys/context.js";
import { resolveSigner, runTx } from "./flow.js";
import { cancelUpgradeMsg } from "./msgs.js";
import { checkAuthority, proposalMsg, type ProposalOpts } from "./proposal.js";
import { offlineAccount, txSettings } from "./settings.js";
import { checkCancelWindow } from "./window.js";

export async function cancelSoftwareUpgrade(opts: ProposalOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  requireFlags(opts as unknown as Record<string, unknown>, ["title", "summary", "from"]);
  const authority = checkAuthority(opts.authority ?? GOV_AUTHORITY);
  const ctx = new KeyringContext(opts);
  const core = await cliCore();
  const deposit = opts.deposit === undefined ? [] : parseCoinList(core, opts.deposit, "invalid deposit");
  const settings = txSettings(core, opts);
  offlineAccount(opts);
  const signer = await resolveSigner(ctx, opts.from!, Boolean(opts.generateOnly));
  const msg = proposalMsg(cancelUpgradeMsg(authority), opts, signer.address, deposit);
  await runTx(ctx, opts, signer, [msg], settings, {
    proposal: true,
    checks: (rpc, current) => checkCancelWindow(rpc, current, deposit),
  });
}
