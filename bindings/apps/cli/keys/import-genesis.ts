/**
 * `xupgrade keys import-genesis`: imports the devnet's genesis accounts (`<home>/config/genesis-keys.json`,
 * written by `devnet init`) into the keyring, each under its name, from its private key. Keys already
 * present with the same address are skipped.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { expectArgs, type KeyringOpts } from "../flags.js";
import { print } from "../output.js";
import { KeyringContext } from "./context.js";
import { fromPrivkey, parseHexPrivkey } from "./derive.js";
import { keyJson } from "./json.js";

interface GenesisKeyEntry {
  name?: unknown;
  address?: unknown;
  private_key?: unknown;
}

export async function importGenesis(opts: KeyringOpts & { file?: string }, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  const ctx = new KeyringContext(opts);
  const format = ctx.output;
  const path = opts.file ?? join(ctx.home, "config", "genesis-keys.json");
  let doc: { keys?: unknown };
  try {
    doc = JSON.parse(await readFile(path, "utf8"));
  } catch (e) {
    throw new CliError(`cannot read genesis keys ${path}: ${(e as Error).message}`);
  }
  if (!Array.isArray(doc?.keys)) throw new CliError(`cannot read genesis keys ${path}: no "keys" list`);
  const keyring = ctx.keyring();
  const imported = [];
  for (const entry of doc.keys as GenesisKeyEntry[]) {
    if (typeof entry?.name !== "string" || typeof entry.private_key !== "string")
      throw new CliError(`cannot read genesis keys ${path}: an entry lacks name or private_key`);
    const material = await fromPrivkey(parseHexPrivkey(entry.private_key));
    if (typeof entry.address === "string" && entry.address !== material.address) {
      throw new CliError(`genesis key ${JSON.stringify(entry.name)}: private_key does not match address ${entry.address}`);
    }
    const existing = await keyring.find(entry.name);
    if (existing && existing.address === material.address) continue;
    imported.push(keyJson(await keyring.add(entry.name, material)));
  }
  print(imported, format);
}
