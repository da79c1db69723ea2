/** `xupgrade keys delete <name> [-y]`. */
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { expectArgs, type KeyringOpts } from "../flags.js";
import { confirm } from "../io.js";
import { KeyringContext } from "./context.js";

export async function deleteKey(opts: KeyringOpts & { yes?: boolean }, cmd: Command): Promise<void> {
  const [name] = expectArgs(cmd, 1, 1);
  const ctx = new KeyringContext(opts);
  const keyring = ctx.keyring();
  const info = await keyring.get(name);
  if (!opts.yes && !(await confirm("Key reference will be deleted. Continue? [y/N]: "))) throw new CliError("aborted");
  await keyring.delete(info.name);
  process.stderr.write("Key deleted forever (uh oh!)\n");
}
