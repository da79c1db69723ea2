/**
 * `xupgrade tx bank send <from_key_or_address> <to_address> <amount>` (bank MsgSend, docs/spec/interfaces.md
 * §7.2): the SDK's command — the first argument is the signer (it sets --from), the amount a coin list
 * (`10stake,5uatom`).
 */
import type { Command } from "commander";
import { addressProblem } from "../../../client/address.js";
import { parseCoinList } from "../coins.js";
import { cliCore } from "../core.js";
import { CliError } from "../errors.js";
import { expectArgs } from "../flags.js";
import { KeyringContext } from "../keys/context.js";
import type { TxOpts } from "./flags.js";
import { resolveSigner, runTx } from "./flow.js";
import { sendMsg } from "./msgs.js";
import { offlineAccount, txSettings } from "./settings.js";

export async function bankSend(opts: TxOpts, cmd: Command): Promise<void> {
  const [from, to, amountText] = expectArgs(cmd, 3, 3);
  const problem = addressProblem(to);
  if (problem) throw new CliError(`invalid to address ${JSON.stringify(to)}: ${problem}`);
  const ctx = new KeyringContext(opts);
  const core = await cliCore();
  const amount = parseCoinList(core, amountText, "invalid amount");
  if (amount.length === 0) throw new CliError("invalid coins");
  const settings = txSettings(core, opts);
  offlineAccount(opts);
  // The SDK: "the '--from' flag is ignored as it is implied from [from_key_or_address]".
  const signer = await resolveSigner(ctx, from, Boolean(opts.generateOnly));
  await runTx(ctx, { ...opts, from }, signer, [sendMsg(signer.address, to, amount)], settings, { proposal: false });
}
