/** `xupgrade tx upgrade software-upgrade <name>` (docs/spec/interfaces.md §7.2, §9, §10): a gov proposal carrying MsgSoftwareUpgrade. */
import type { Command } from "commander";
import { UpgradeError } from "../../../core/errors.js";
import type { Plan } from "../../../core/types.js";
import { limitsFromEnv } from "../../../module/plan-info/download.js";
import { validatePlanInfo } from "../../../module/plan-info/validate.js";
import { CliError } from "../errors.js";
import { DEFAULT_READINESS_WARN_BLOCKS } from "../../../client/readiness.js";
import { durationFlag, expectArgs, requireFlags } from "../flags.js";
import { resolveSigner, runTx } from "./flow.js";
import { softwareUpgradeMsg } from "./msgs.js";
import { checkDaemonName, parseUpgradeHeight, proposalMsg, proposalSetup, type SoftwareUpgradeOpts } from "./proposal.js";
import { checkReadinessWindow, checkUpgradeWindow } from "./window.js";

export async function softwareUpgrade(opts: SoftwareUpgradeOpts, cmd: Command): Promise<void> {
  const [name] = expectArgs(cmd, 1, 1);
  requireFlags(opts as unknown as Record<string, unknown>, ["title", "summary", "upgrade-height", "from"]);
  const height = parseUpgradeHeight(opts.upgradeHeight!);
  const rwb = opts.readinessWarnBlocks;
  if (rwb !== undefined && !/^[0-9]{1,18}$/.test(rwb))
    throw new CliError(`invalid --readiness-warn-blocks ${JSON.stringify(rwb)}: must be a non-negative integer`);
  const readinessWarnBlocks = rwb === undefined ? DEFAULT_READINESS_WARN_BLOCKS : BigInt(rwb);
  const safetyDelta = durationFlag("safety-delta", opts.safetyDelta ?? "0s", "margin");
  const daemonName = checkDaemonName(opts.daemonName ?? (process.env.DAEMON_NAME || "xupgrade"));
  const { authority, ctx, core, deposit, settings } = await proposalSetup(opts);
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
  const msg = proposalMsg(softwareUpgradeMsg(core, authority, plan), opts, signer.address, deposit);
  await runTx(ctx, opts, signer, [msg], settings, {
    proposal: true,
    checks: async (rpc, current) => {
      if (height <= current) throw new CliError(`upgrade height ${height} must be greater than the current height ${current}`);
      await checkUpgradeWindow(rpc, current, height, safetyDelta);
      await checkReadinessWindow(rpc, current, height, readinessWarnBlocks);
    },
  });
}
