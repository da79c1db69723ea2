/** `xupgrade tx gov vote <proposal-id> yes|no|abstain|no_with_veto --from <key>` (gov v1 MsgVote). */
import type { Command } from "commander";
import { cliCore } from "../core.js";
import { CliError } from "../errors.js";
import { expectArgs, requireFlags } from "../flags.js";
import { KeyringContext } from "../keys/context.js";
import { parseProposalId } from "../query/gov.js";
import type { TxOpts } from "./flags.js";
import { resolveSigner, runTx } from "./flow.js";
import { VOTE_OPTIONS, voteMsg } from "./msgs.js";
import { offlineAccount, txSettings } from "./settings.js";

export interface VoteOpts extends TxOpts {
  metadata?: string;
}

export async function vote(opts: VoteOpts, cmd: Command): Promise<void> {
  const [idText, optionText] = expectArgs(cmd, 2, 2);
  const proposalId = parseProposalId(idText);
  const option = VOTE_OPTIONS[optionText.toLowerCase()];
  if (!option) throw new CliError(`invalid vote option ${JSON.stringify(optionText)}: must be one of yes, no, abstain, no_with_veto`);
  requireFlags(opts as unknown as Record<string, unknown>, ["from"]);
  const ctx = new KeyringContext(opts);
  const core = await cliCore();
  const settings = txSettings(core, opts);
  offlineAccount(opts);
  const signer = await resolveSigner(ctx, opts.from!, Boolean(opts.generateOnly));
  const msg = voteMsg(proposalId, signer.address, option, opts.metadata ?? "");
  await runTx(ctx, opts, signer, [msg], settings, { proposal: false });
}
