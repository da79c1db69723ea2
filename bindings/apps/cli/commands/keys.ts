/** `xupgrade keys add|import-hex|list|show|delete|import-genesis`: declarations; each action loads its module when it runs. */
import type { Command } from "commander";
import { HD_PATH } from "../../../client/chain.js";
import { addHome, addKeyringFlags, addOutput, type KeyringOpts } from "../flags.js";
import type { AddOpts } from "../keys/add.js";
import type { ShowOpts } from "../keys/show.js";

const keyringCommand = (cmd: Command) => addKeyringFlags(addOutput(addHome(cmd)));

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
      .option("--hd-path <path>", "BIP-44 derivation path", HD_PATH)
      .option("--no-backup", "do not print the new mnemonic"),
  ).action(async (_n: unknown, opts: AddOpts, cmd: Command) => (await import("../keys/add.js")).add(opts, cmd));

  keyringCommand(
    keys
      .command("import-hex")
      .argument("[name]")
      .argument("[hex]")
      .summary("Import a raw secp256k1 private key given in hex")
      .description("Import a 32-byte secp256k1 private key in hex (64 digits). Without the argument it is read from the terminal (hidden) or stdin."),
  ).action(async (_n: unknown, _h: unknown, opts: KeyringOpts, cmd: Command) => (await import("../keys/import-hex.js")).importHex(opts, cmd));

  keyringCommand(
    keys
      .command("list")
      .summary("List all keys")
      .description("Return a list of all public keys stored by this key manager along with their associated name and address."),
  ).action(async (opts: KeyringOpts, cmd: Command) => (await import("../keys/list.js")).list(opts, cmd));

  keyringCommand(
    keys
      .command("show")
      .argument("[name|address]")
      .summary("Retrieve key information by name or address")
      .description("Display keys details. If a name or address is given, the key stored under it is shown.")
      .option("-a, --address", "output the address only")
      .option("-p, --pubkey", "output the public key only"),
  ).action(async (_n: unknown, opts: ShowOpts, cmd: Command) => (await import("../keys/show.js")).show(opts, cmd));

  keyringCommand(
    keys
      .command("delete")
      .argument("[name]")
      .summary("Delete the given key")
      .description("Delete a key from the store. Without --yes, asks for confirmation.")
      .option("-y, --yes", "skip the confirmation prompt"),
  ).action(async (_n: unknown, opts: KeyringOpts & { yes?: boolean }, cmd: Command) => (await import("../keys/delete.js")).deleteKey(opts, cmd));

  addKeyringFlags(
    addOutput(
      addHome(
        keys
          .command("import-genesis")
          .summary("Import the devnet's genesis account keys into the keyring")
          .description("Import every key of a devnet's genesis-keys.json (default <home>/config/genesis-keys.json) under its name.")
          .option("--file <path>", "the genesis keys file (default <home>/config/genesis-keys.json)"),
      ),
    ),
  ).action(async (opts: KeyringOpts & { file?: string }, cmd: Command) => (await import("../keys/import-genesis.js")).importGenesis(opts, cmd));
  return keys;
}
