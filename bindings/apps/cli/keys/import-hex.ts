/** `xupgrade keys import-hex <name> [hex]`: a raw secp256k1 private key (read hidden when not given). */
import type { Command } from "commander";
import { expectArgs, type KeyringOpts } from "../flags.js";
import { requireLine } from "../io.js";
import { print } from "../output.js";
import { KeyringContext } from "./context.js";
import { fromPrivkey, parseHexPrivkey } from "./derive.js";
import { keyJson } from "./json.js";
import { checkKeyName } from "./keyring.js";

export async function importHex(opts: KeyringOpts, cmd: Command): Promise<void> {
  const [name, hexArg] = expectArgs(cmd, 1, 2);
  checkKeyName(name);
  const ctx = new KeyringContext(opts);
  const format = ctx.output;
  const hex = hexArg ?? (await requireLine("Enter hex private key: ", "private key", true));
  const info = await ctx.keyring().add(name, await fromPrivkey(parseHexPrivkey(hex)));
  print(keyJson(info), format);
}
