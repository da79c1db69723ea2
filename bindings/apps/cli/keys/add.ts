/** `xupgrade keys add <name> [--recover]`: a new key from a new BIP-39 mnemonic, or recovered from one. */
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { expectArgs, type KeyringOpts } from "../flags.js";
import { requireLine } from "../io.js";
import { print } from "../output.js";
import { KeyringContext } from "./context.js";
import { DEFAULT_HD_PATH, checkHdPath, checkMnemonic, fromMnemonic, newMnemonic } from "./derive.js";
import { keyJson } from "./json.js";
import { checkKeyName } from "./keyring.js";

export interface AddOpts extends KeyringOpts {
  recover?: boolean;
  hdPath?: string;
  backup: boolean;
}

export async function add(opts: AddOpts, cmd: Command): Promise<void> {
  const [name] = expectArgs(cmd, 1, 1);
  checkKeyName(name);
  checkHdPath(opts.hdPath ?? DEFAULT_HD_PATH);
  const ctx = new KeyringContext(opts);
  const format = ctx.output;
  const keyring = ctx.keyring();
  if (await keyring.find(name).then((k) => k?.name === name)) {
    throw new CliError(`key ${JSON.stringify(name)} already exists in the ${keyring.backend} keyring; delete it first or choose another name`);
  }
  let mnemonic: string;
  if (opts.recover) {
    mnemonic = checkMnemonic(await requireLine("> Enter your bip39 mnemonic\n", "mnemonic"));
  } else {
    mnemonic = newMnemonic(24);
  }
  const info = await keyring.add(name, await fromMnemonic(mnemonic, opts.hdPath));
  const out = keyJson(info);
  if (opts.recover || !opts.backup) return print(out, format);
  if (format === "json") return print({ ...out, mnemonic }, format);
  print(out, format);
  process.stderr.write(
    "\n**Important** write this mnemonic phrase in a safe place.\nIt is the only way to recover your account if you ever forget your password.\n\n" +
      mnemonic +
      "\n",
  );
}
