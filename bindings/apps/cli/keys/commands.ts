/** `xupgrade keys add|import-hex|list|show|delete` over the local keyring (keys/keyring.ts). */
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { Context, addHome, addKeyringFlags, addOutput, expectArgs, type KeyringOpts } from "../flags.js";
import { confirm, requireLine } from "../io.js";
import { print } from "../output.js";
import type { JsonValue } from "../yaml.js";
import { DEFAULT_HD_PATH, checkHdPath, checkMnemonic, fromMnemonic, fromPrivkey, newMnemonic, parseHexPrivkey } from "./derive.js";
import { type KeyInfo, checkKeyName, pubkeyJson } from "./keyring.js";

export function keyJson(k: KeyInfo): { [key: string]: JsonValue } {
  return { name: k.name, type: k.type, address: k.address, pubkey: pubkeyJson(k.pubkey) };
}

const keyringCommand = (cmd: Command) => addKeyringFlags(addOutput(addHome(cmd)));

interface AddOpts extends KeyringOpts {
  recover?: boolean;
  hdPath?: string;
  backup: boolean;
}

interface ShowOpts extends KeyringOpts {
  address?: boolean;
  pubkey?: boolean;
}

export function registerKeys(program: Command): Command {
  const keys = program
    .command("keys")
    .summary("Manage your application's keys")
    .description(
      "Keyring management commands. Keys live in <home>/keyring-<backend>/: the test backend keeps them unencrypted (devnets only), " +
        "the file backend encrypts them with a passphrase (scrypt + AES-256-GCM).",
    );

  keyringCommand(
    keys
      .command("add")
      .argument("[name]")
      .summary("Add a new key (new mnemonic), or recover one with --recover")
      .description("Derive a new private key from a new BIP-39 mnemonic and store it under <name>, or recover it from a mnemonic with --recover.")
      .option("--recover", "recover the key from a BIP-39 mnemonic (read from the terminal or stdin)")
      .option("--hd-path <path>", "BIP-44 derivation path", DEFAULT_HD_PATH)
      .option("--no-backup", "do not print the new mnemonic"),
  ).action(async (_n: unknown, opts: AddOpts, cmd: Command) => {
    const [name] = expectArgs(cmd, 1, 1);
    checkKeyName(name);
    checkHdPath(opts.hdPath ?? DEFAULT_HD_PATH);
    const ctx = new Context(opts);
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
  });

  keyringCommand(
    keys
      .command("import-hex")
      .argument("[name]")
      .argument("[hex]")
      .summary("Import a raw secp256k1 private key given in hex")
      .description("Import a 32-byte secp256k1 private key in hex (64 digits). Without the argument it is read from the terminal (hidden) or stdin."),
  ).action(async (_n: unknown, _h: unknown, opts: KeyringOpts, cmd: Command) => {
    const [name, hexArg] = expectArgs(cmd, 1, 2);
    checkKeyName(name);
    const ctx = new Context(opts);
    const format = ctx.output;
    const hex = hexArg ?? (await requireLine("Enter hex private key: ", "private key", true));
    const info = await ctx.keyring().add(name, await fromPrivkey(parseHexPrivkey(hex)));
    print(keyJson(info), format);
  });

  keyringCommand(keys.command("list").summary("List all keys").description("Return a list of all public keys stored by this key manager along with their associated name and address.")).action(
    async (opts: KeyringOpts, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const ctx = new Context(opts);
      const format = ctx.output;
      print((await ctx.keyring().list()).map(keyJson), format);
    },
  );

  keyringCommand(
    keys
      .command("show")
      .argument("[name|address]")
      .summary("Retrieve key information by name or address")
      .description("Display keys details. If a name or address is given, the key stored under it is shown.")
      .option("-a, --address", "output the address only")
      .option("-p, --pubkey", "output the public key only"),
  ).action(async (_n: unknown, opts: ShowOpts, cmd: Command) => {
    const [nameOrAddress] = expectArgs(cmd, 1, 1);
    const ctx = new Context(opts);
    const format = ctx.output;
    if (opts.address && opts.pubkey) throw new CliError("the --address and --pubkey flags are mutually exclusive");
    const info = await ctx.keyring().get(nameOrAddress);
    if (opts.address) return void process.stdout.write(info.address + "\n");
    if (opts.pubkey) return void process.stdout.write(pubkeyJson(info.pubkey) + "\n");
    print(keyJson(info), format);
  });

  keyringCommand(
    keys
      .command("delete")
      .argument("[name]")
      .summary("Delete the given key")
      .description("Delete a key from the store. Without --yes, asks for confirmation.")
      .option("-y, --yes", "skip the confirmation prompt"),
  ).action(async (_n: unknown, opts: KeyringOpts & { yes?: boolean }, cmd: Command) => {
    const [name] = expectArgs(cmd, 1, 1);
    const ctx = new Context(opts);
    const keyring = ctx.keyring();
    const info = await keyring.get(name);
    if (!opts.yes && !(await confirm("Key reference will be deleted. Continue? [y/N]: "))) throw new CliError("aborted");
    await keyring.delete(info.name);
    process.stderr.write("Key deleted forever (uh oh!)\n");
  });
  return keys;
}
