/** `xupgrade tx upgrade cancel-software-upgrade` (docs/spec/interfaces.md §7.2, §10): a gov proposal carrying MsgCancelUpgrade. */
import type { Command } from "commander";
import { expectArgs, requireFlags } from "../flags.js";
import { resolveSigner, runTx } from "./flow.js";
import { cancelUpgradeMsg } from "./msgs.js";
import { proposalMsg, proposalSetup, type ProposalOpts } from "./proposal.js";
import { checkCancelWindow } from "./window.js";

export async function cancelSoftwareUpgrade(opts: ProposalOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  requireFlags(opts as unknown as Record<string, unknown>, ["title", "summary", "from"]);
  const { authority, ctx, deposit, settings } = await proposalSetup(opts);
  const signer = await resolveSigner(ctx, opts.from!, Boolean(opts.generateOnly));
  const msg = proposalMsg(cancelUpgradeMsg(authority), opts, signer.address, deposit);
  await runTx(ctx, opts, signer, [msg], settings, {
    proposal: true,
    checks: (rpc, current) => checkCancelWindow(rpc, current, deposit),
  });
}
