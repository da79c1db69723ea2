/** `xupgrade tx upgrade software-upgrade|cancel-software-upgrade` (interfaces.md §7.2, §9, §10). */
import type { Command } from "commander";
import { UpgradeError } from "../../../core/errors.js";
import { GOV_AUTHORITY } from "../../../module/keeper.js";
import type { Plan } from "../../../core/types.js";
import { parseCoinList } from "../coins.js";
import { cliCore } from "../core.js";
import { durationFlag } from "../flags.js";
import { CliError } from "../errors.js";
import { Context, expectArgs, requireFlags } from "../flags.js";
import { addressProblem } from "../keys/derive.js";
import { limitsFromEnv } from "../../../module/plan-info/download.js";
import { validatePlanInfo } from "../../../module/plan-info/validate.js";
import { type TxOpts, addTxFlags, offlineAccount, txSettings } from "./flags.js";
import { resolveSigner, runTx } from "./flow.js";
import { cancelUpgradeMsg, softwareUpgradeMsg, submitProposalMsg } from "./msgs.js";
import { checkCancelWindow, checkUpgradeWindow } from "./window.js";
import { INT64_MAX } from "../../../go/int.js";

interface ProposalOpts extends TxOpts {
  title?: string;
  summary?: string;
  deposit?: string;
  metadata?: string;
  authority?: string;
}

interface SoftwareUpgradeOpts extends ProposalOpts {
  upgradeHeight?: string;
  upgradeInfo?: string;
  validate: boolean;
  checksumRequired: boolean;
  daemonName?: string;
  safetyDelta?: string;
}


function addProposalFlags(cmd: Command): Command {
  cmd
    .option("--title <title>", "title of the proposal (required)")
    .option("--summary <summary>", "summary of the proposal (required)")
    .option("--deposit <coins>", "initial deposit, e.g. 10000000stake")
    .option("--metadata <text>", "metadata of the proposal")
    .option("--authority <address>", `authority of the upgrade message (default: the gov module account ${GOV_AUTHORITY})`);
  return addTxFlags(cmd);
}

function checkAuthority(authority: string): string {
  const problem = addressProblem(authority);
  if (problem) throw new CliError(`invalid authority address: ${problem}`);
  return authority;
}

function checkDaemonName(name: string): string {
  if (name === "" || name === "." || name === ".." || /[/\\\0]/.test(name)) {
    throw new CliError(`invalid --daemon-name ${JSON.stringify(name)}: must be a file name`);
  }
  return name;
}

function parseUpgradeHeight(text: string): bigint {
  if (!/^[0-9]+$/.test(text) || BigInt(text) === 0n || BigInt(text) > INT64_MAX) {
    throw new CliError(`invalid --upgrade-height ${JSON.stringify(text)}: must be a positive integer`);
  }
  return BigInt(text);
}

export function registerUpgradeTxs(tx: Command): void {
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
    .option("--safety-delta <duration>", "extra time a cancel proposal would need, for the cancellation-window warning", "0s");
  addProposalFlags(su).action(async (_name: string | undefined, opts: SoftwareUpgradeOpts, cmd: Command) => {
    const [name] = expectArgs(cmd, 1, 1);
    requireFlags(opts as unknown as Record<string, unknown>, ["title", "summary", "upgrade-height", "from"]);
    const height = parseUpgradeHeight(opts.upgradeHeight!);
    const safetyDelta = durationFlag("safety-delta", opts.safetyDelta ?? "0s");
    const daemonName = checkDaemonName(opts.daemonName ?? (process.env.DAEMON_NAME || "xupgrade"));
    const authority = checkAuthority(opts.authority ?? GOV_AUTHORITY);
    const ctx = new Context(opts);
    const core = await cliCore();
    const deposit = opts.deposit === undefined ? [] : parseCoinList(core, opts.deposit, "invalid deposit");
    const settings = txSettings(core, opts);
    offlineAccount(opts);
    const plan: Plan = { name, height, info: opts.upgradeInfo ?? "" };
    try {
      core.validateBasic(plan);
    } catch (e) {
      if (e instanceof UpgradeError) throw new CliError(e.message);
      throw e;
    }
    const signer = await resolveSigner(ctx, opts.from!, Boolean(opts.generateOnly));
    if (opts.validate) {
      await validatePlanInfo(plan.info, { enforceChecksum: opts.checksumRequired, daemonName, limits: limitsFromEnv() });
    }
    const msg = submitProposalMsg([softwareUpgradeMsg(core, authority, plan)], {
      initialDeposit: deposit,
      proposer: signer.address,
      metadata: opts.metadata ?? "",
      title: opts.title!,
      summary: opts.summary!,
    });
    await runTx(ctx, opts, signer, [msg], settings, {
      proposal: true,
      checks: async (rpc, current) => {
        if (height <= current) throw new CliError(`upgrade height ${height} must be greater than the current height ${current}`);
        await checkUpgradeWindow(rpc, current, height, safetyDelta);
      },
    });
  });

  const cancel = upgrade
    .command("cancel-software-upgrade")
    .usage("[flags]")
    .summary("Cancel the current software upgrade proposal")
    .description(
      "Cancel a software upgrade along with its info: a gov v1 MsgSubmitProposal carrying MsgCancelUpgrade, signed with --from and broadcast.",
    );
  addProposalFlags(cancel).action(async (opts: ProposalOpts, cmd: Command) => {
    expectArgs(cmd, 0, 0);
    requireFlags(opts as unknown as Record<string, unknown>, ["title", "summary", "from"]);
    const authority = checkAuthority(opts.authority ?? GOV_AUTHORITY);
    const ctx = new Context(opts);
    const core = await cliCore();
    const deposit = opts.deposit === undefined ? [] : parseCoinList(core, opts.deposit, "invalid deposit");
    const settings = txSettings(core, opts);
    offlineAccount(opts);
    const signer = await resolveSigner(ctx, opts.from!, Boolean(opts.generateOnly));
    const msg = submitProposalMsg([cancelUpgradeMsg(authority)], {
      initialDeposit: deposit,
      proposer: signer.address,
      metadata: opts.metadata ?? "",
      title: opts.title!,
      summary: opts.summary!,
    });
    await runTx(ctx, opts, signer, [msg], settings, {
      proposal: true,
      checks: (rpc, current) => checkCancelWindow(rpc, current, deposit),
    });
  });
}
