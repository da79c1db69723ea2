/** `xupgrade keys list`. */
import type { Command } from "commander";
import { expectArgs, type KeyringOpts } from "../flags.js";
import { print } from "../output.js";
import { KeyringContext } from "./context.js";
import { keyJson } from "./json.js";

export async function list(opts: KeyringOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  const ctx = new KeyringContext(opts);
  const format = ctx.output;
  print((await ctx.keyring().list()).map(keyJson), format);
}
