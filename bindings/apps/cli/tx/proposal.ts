/** What the two upgrade proposal commands share: their options, the checks of their own flags, the proposal message. */
import { addressProblem } from "../../../client/address.js";
import type { Core } from "../../../core/contract.js";
import { GOV_AUTHORITY } from "../../../module/authority.js";
import { parseCoinList } from "../coins.js";
import { cliCore } from "../core.js";
import { CliError } from "../errors.js";
import { KeyringContext } from "../keys/context.js";
import type { TxOpts } from "./flags.js";
import { submitProposalMsg, type Msg } from "./msgs.js";
import { offlineAccount, txSettings, type TxSettings } from "./settings.js";
import { HEIGHT } from "../../../go/option.js";
import { integerValue } from "../flags.js";
import type { Coin } from "../../../core/types.js";

export interface ProposalOpts extends TxOpts {
  title?: string;
  summary?: string;
  deposit?: string;
  metadata?: string;
  authority?: string;
}

export interface SoftwareUpgradeOpts extends ProposalOpts {
  upgradeHeight?: string;
  upgradeInfo?: string;
  validate: boolean;
  checksumRequired: boolean;
  daemonName?: string;
  safetyDelta?: string;
  readinessWarnBlocks?: string;
}

/** What both proposal commands check and set up, in this order, before their own message: the authority, the keyring, the deposit, the fee and gas settings, an offline account. */
export async function proposalSetup(
  opts: ProposalOpts,
): Promise<{ authority: string; ctx: KeyringContext; core: Core; deposit: Coin[]; settings: TxSettings }> {
  const authority = checkAuthority(opts.authority ?? GOV_AUTHORITY);
  const ctx = new KeyringContext(opts);
  const core = await cliCore();
  const deposit = opts.deposit === undefined ? [] : parseCoinList(core, opts.deposit, "invalid deposit");
  const settings = txSettings(core, opts);
  offlineAccount(opts);
  return { authority, ctx, core, deposit, settings };
}

export function checkAuthority(authority: string): string {
  const problem = addressProblem(authority);
  if (problem) throw new CliError(`invalid authority address: ${problem}`);
  return authority;
}

export function checkDaemonName(name: string): string {
  if (name === "" || name === "." || name === ".." || /[/\\\0]/.test(name)) {
    throw new CliError(`invalid --daemon-name ${JSON.stringify(name)}: must be a file name`);
  }
  return name;
}

export function parseUpgradeHeight(text: string): bigint {
  return integerValue("--upgrade-height", text, HEIGHT);
}

/** The gov MsgSubmitProposal carrying `inner`, worded by the proposal flags. */
export function proposalMsg(inner: Msg, opts: ProposalOpts, proposer: string, deposit: Coin[]): Msg {
  return submitProposalMsg([inner], { initialDeposit: deposit, proposer, metadata: opts.metadata ?? "", title: opts.title!, summary: opts.summary! });
}
