/**
 * The flags shared by many commands (docs/spec/interfaces.md §7) — `--output/-o`, `--node`, `--height`, `--home`,
 * the keyring flags — as commander declarations, and cobra's argument and flag checks. Declarations only:
 * the command tree loads this for every command, so it imports nothing heavy (values are resolved in
 * context.ts).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { messageOf } from "../../base/errors.js";
import { parseDurationOption, parseIntegerOption, type DurationKind, type IntegerRange } from "../../go/option.js";
import { DEFAULT_NODE } from "../../client/rpc.js";
import { CliError } from "./errors.js";

export interface HomeOpts {
  home?: string;
}
export interface OutputOpts extends HomeOpts {
  output?: string;
}
export interface NodeOpts extends OutputOpts {
  node?: string;
}
export interface QueryOpts extends NodeOpts {
  height?: string;
}
export interface KeyringOpts extends OutputOpts {
  keyringBackend?: string;
  keyringDir?: string;
  passphraseFile?: string;
}

export const defaultHome = (): string => join(homedir(), ".xupgrade");

export function addHome(cmd: Command): Command {
  return cmd.option("--home <dir>", "directory for the keyring and client config (default ~/.xupgrade)");
}

export function addOutput(cmd: Command): Command {
  return cmd.option("-o, --output <format>", "output format: text or json (default text)");
}

export function addNode(cmd: Command): Command {
  return cmd.option("--node <url>", `CometBFT RPC endpoint of the node (default ${DEFAULT_NODE})`);
}

export function addQueryFlags(cmd: Command): Command {
  addOutput(addNode(addHome(cmd)));
  return cmd.option("--height <h>", "query the state at this height (0 = latest)");
}

export function addKeyringFlags(cmd: Command): Command {
  return cmd
    .option("--keyring-backend <backend>", "keyring backend: test (unencrypted, devnets) or file (default file)")
    .option("--keyring-dir <dir>", "directory holding the keyring (default: --home)")
    .option("--passphrase-file <path>", "read the file keyring's passphrase from the first line of this file (or set XUPGRADE_KEYRING_PASSPHRASE)");
}

/** Cobra-style argument count checks (`accepts 1 arg(s), received 0`). */
export function expectArgs(cmd: Command, min: number, max: number): string[] {
  const args = cmd.args;
  const n = args.length;
  if (n >= min && n <= max) return args;
  if (max === 0) throw new CliError(`unknown command ${JSON.stringify(args[0])} for ${JSON.stringify(commandPath(cmd))}`);
  if (min === max) throw new CliError(`accepts ${min} arg(s), received ${n}`);
  if (min === 0) throw new CliError(`accepts at most ${max} arg(s), received ${n}`);
  throw new CliError(`accepts between ${min} and ${max} arg(s), received ${n}`);
}

export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Cobra's `required flag(s) "a", "b" not set` for flags that have no value. */
export function requireFlags(opts: Record<string, unknown>, flags: string[]): void {
  const camel = (f: string) => f.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const missing = flags.filter((f) => opts[camel(f)] === undefined).sort();
  if (missing.length > 0) throw new CliError(`required flag(s) ${missing.map((f) => `"${f}"`).join(", ")} not set`);
}

/** A duration flag of `kind` (go/option.ts), in ns: `invalid --<flag> "<text>": <reason>` when it is not one. */
export function durationFlag(flag: string, text: string, kind: DurationKind): bigint {
  try {
    return parseDurationOption(text, kind);
  } catch (e) {
    throw new CliError(`invalid --${flag} ${JSON.stringify(text)}: ${messageOf(e)}`);
  }
}

/**
 * An integer flag, or argument, in `range` (go/option.ts): `invalid <what> "<text>": <reason>[ <hint>]` when it
 * is not one; `what` is `--<flag>` or the argument's name.
 */
export function integerValue(what: string, text: string, range: IntegerRange, hint = ""): bigint {
  try {
    return parseIntegerOption(text, range);
  } catch (e) {
    throw new CliError(`invalid ${what} ${JSON.stringify(text)}: ${messageOf(e)}${hint === "" ? "" : ` ${hint}`}`);
  }
}
