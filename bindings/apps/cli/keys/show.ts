/** `xupgrade keys show <name|address> [-a|-p]`. */
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { expectArgs, type KeyringOpts } from "../flags.js";
import { print } from "../output.js";
import { KeyringContext } from "./context.js";
import { keyJson } from "./json.js";
import { pubkeyJson } from "./keyring.js";

export interface ShowOpts extends KeyringOpts {
  address?: boolean;
  pubkey?: boolean;
}

export async function show(opts: ShowOpts, cmd: Command): Promise<void> {
  const [nameOrAddress] = expectArgs(cmd, 1, 1);
  const ctx = new KeyringContext(opts);
  const format = ctx.output;
  if (opts.address && opts.pubkey) throw new CliError("the --address and --pubkey flags are mutually exclusive");
  const info = await ctx.keyring().get(nameOrAddress);
  if (opts.address) return void process.stdout.write(info.address + "\n");
  if (opts.pubkey) return void process.stdout.write(pubkeyJson(info.pubkey) + "\n");
  print(keyJson(info), format);
}
