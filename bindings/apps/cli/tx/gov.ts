/** `xupgrade tx gov vote <proposal-id> yes|no|abstain|no_with_veto --from <key>` (gov v1 MsgVote). */
import type { Command } from "commander";
import { cliCore } from "../core.js";
import { CliError } from "../errors.js";
import { Context, expectArgs, requireFlags } from "../flags.js";
import { parseProposalId } from "../query/gov.js";
import { type TxOpts, addTxFlags, offlineAccount, txSettings } from "./flags.js";
import { resolveSigner, runTx } from "./flow.js";
import { VOTE_OPTIONS, voteMsg } from "./msgs.js";

interface VoteOpts extends TxOpts {
  metadata?: string;
}

export function registerGovTxs(tx: Command): void {
  const gov = tx.command("gov").summary("Governance transactions subcommands").description("Governance transactions subcommands");
  const vote = gov
    .command("vote")
    .argument("[proposal-id]")
    .argument("[option]")
    .summary("Vote for an active proposal, options: yes/no/no_with_veto/abstain")
    .description("Submit a vote for an active proposal. The option is one of yes, no, abstain, no_with_veto.")
    .option("--metadata <text>", "metadata of the vote");
  addTxFlags(vote).action(async (_id: unknown, _option: unknown, opts: VoteOpts, cmd: Command) => {
    const [idText, optionText] = expectArgs(cmd, 2, 2);
    const proposalId = parseProposalId(idText);
    const option = VOTE_OPTIONS[optionText.toLowerCase()];
    if (!option) throw new CliError(`invalid vote option ${JSON.stringify(optionText)}: must be one of yes, no, abstain, no_with_veto`);
    requireFlags(opts as unknown as Record<string, unknown>, ["from"]);
    const ctx = new Context(opts);
    const core = await cliCore();
    const settings = txSettings(core, opts);
    offlineAccount(opts);
    const signer = await resolveSigner(ctx, opts.from!, Boolean(opts.generateOnly));
    const msg = voteMsg(proposalId, signer.address, option, opts.metadata ?? "");
    await runTx(ctx, opts, signer, [msg], settings, { proposal: false });
  });
}
