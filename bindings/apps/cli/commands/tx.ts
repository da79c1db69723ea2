/**
 * `xupgrade tx upgrade software-upgrade|cancel-software-upgrade`, `tx gov vote` and `tx bank send`: declarations only.
 * Each action loads its module when it runs (signing, the keyring and plan-info downloads included).
 */
import type { Command } from "commander";
import { GOV_AUTHORITY } from "../../../module/authority.js";
import { addTxFlags, type TxOpts } from "../tx/flags.js";
import type { ProposalOpts, SoftwareUpgradeOpts } from "../tx/proposal.js";
import type { VoteOpts } from "../tx/vote.js";

function addProposalFlags(cmd: Command): Command {
  cmd
    .option("--title <title>", "title of the proposal (required)")
    .option("--summary <summary>", "summary of the proposal (required)")
    .option("--deposit <coins>", "initial deposit, e.g. 10000000stake")
    .option("--metadata <text>", "metadata of the proposal")
    .option("--authority <address>", `authority of the upgrade message (default: the gov module account ${GOV_AUTHORITY})`);
  return addTxFlags(cmd);
}

/** `tx` with its subcommands, on the root program. */
export function registerTxGroup(program: Command): void {
  const tx = program.command("tx").summary("Transactions subcommands").description("Transactions subcommands");
  registerTxs(tx);
}

export function registerTxs(tx: Command): void {
  const upgrade = tx.command("upgrade").summary("Upgrade transaction subcommands").description("Upgrade transaction subcommands");

  const su = upgrade
    .command("software-upgrade")
    .argument("[name]")
    .usage("[name] (--upgrade-height [height]) (--upgrade-info [info]) [flags]")
    .summary("Submit a software upgrade proposal")
    .description(
      "Submit a software upgrade proposal: a gov v1 MsgSubmitProposal carrying MsgSoftwareUpgrade, signed with --from and broadcast. " +
        "Please specify a unique name and height for the upgrade to take effect. The info is validated (downloads and checksums " +
        "of every binary) unless --no-validate is given.",
    )
    .option("--upgrade-height <height>", "the height at which the upgrade must happen (required)")
    .option("--upgrade-info <info>", "info for the upgrade plan, such as new version download urls", "")
    .option("--no-validate", "skip validation of the upgrade info (dangerous)")
    .option("--no-checksum-required", "skip the requirement of a checksum for the binaries in the upgrade info")
    .option("--daemon-name <name>", "the name of the executable being upgraded, for upgrade-info validation (default $DAEMON_NAME, else xupgrade)")
    .option("--safety-delta <duration>", "extra time a cancel proposal would need, for the cancellation-window warning", "0s")
    .option(
      "--readiness-warn-blocks <n>",
      "on a chain that tallies readiness: warn when the height leaves fewer than this many blocks after the vote for the validators to stage and rehearse the binary (default 1000)",
    );
  addProposalFlags(su).action(async (_name: string | undefined, opts: SoftwareUpgradeOpts, cmd: Command) =>
    (await import("../tx/software-upgrade.js")).softwareUpgrade(opts, cmd),
  );

  const cancel = upgrade
    .command("cancel-software-upgrade")
    .usage("[flags]")
    .summary("Cancel the current software upgrade proposal")
    .description("Cancel a software upgrade along with its info: a gov v1 MsgSubmitProposal carrying MsgCancelUpgrade, signed with --from and broadcast.");
  addProposalFlags(cancel).action(async (opts: ProposalOpts, cmd: Command) =>
    (await import("../tx/cancel-software-upgrade.js")).cancelSoftwareUpgrade(opts, cmd),
  );

  const gov = tx.command("gov").summary("Governance transactions subcommands").description("Governance transactions subcommands");
  const vote = gov
    .command("vote")
    .argument("[proposal-id]")
    .argument("[option]")
    .summary("Vote for an active proposal, options: yes/no/no_with_veto/abstain")
    .description("Submit a vote for an active proposal. The option is one of yes, no, abstain, no_with_veto.")
    .option("--metadata <text>", "metadata of the vote");
  addTxFlags(vote).action(async (_id: unknown, _option: unknown, opts: VoteOpts, cmd: Command) => (await import("../tx/vote.js")).vote(opts, cmd));

  const bank = tx.command("bank").summary("Bank transaction subcommands").description("Bank transaction subcommands");
  const send = bank
    .command("send")
    .argument("[from_key_or_address]")
    .argument("[to_address]")
    .argument("[amount]")
    .summary("Send funds from one account to another.")
    .description(
      "Send funds from one account to another.\nNote, the '--from' flag is ignored as it is implied from [from_key_or_address].\n" +
        "With --generate-only the first argument may be a bech32 address instead of a key name.",
    );
  addTxFlags(send).action(async (_from: unknown, _to: unknown, _amount: unknown, opts: TxOpts, cmd: Command) =>
    (await import("../tx/send.js")).bankSend(opts, cmd),
  );
}

export type { TxOpts };
