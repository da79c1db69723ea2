/**
 * The `xupgrade` root command (commander) and the one place where every failure becomes `Error: <message>` on
 * stderr with exit code 1 (docs/spec/interfaces.md §7), usage errors included, worded as the SDK's cobra CLI
 * words them (`unknown flag: --x`, `required flag(s) "title" not set`, …). The command groups are registered
 * by the caller (tree.ts: all of them; query-main.ts: `query` alone, for the bin's query fast path); each
 * command's module is imported when it runs, so a query loads neither signing, the devnet, the sidecar nor gRPC.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { CliError } from "./errors.js";
import { commandPath } from "./flags.js";
import { messageOf } from "../../base/errors.js";

/** commander, with cobra's wording for unknown subcommands (it knows the command path). */
class XCommand extends Command {
  override createCommand(name?: string): Command {
    return new XCommand(name);
  }

  /** Called by commander for an operand that names no subcommand of a command group. */
  unknownCommand(): never {
    throw new CliError(`unknown command ${JSON.stringify(this.args[0])} for ${JSON.stringify(commandPath(this))}`);
  }
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** Adds command groups to the root program. */
export type RegisterCommands = (program: Command) => void;

export function buildProgram(register: RegisterCommands): Command {
  const program = new XCommand("xupgrade");
  program
    .description("xupgrade: the Cosmos x/upgrade module's command line — query and schedule chain upgrades, manage keys, run a devnet")
    .version(version(), "--version", "print the version")
    .allowExcessArguments(true)
    .enablePositionalOptions() // `visor run` hands everything after it to the node
    .exitOverride()
    .configureHelp({ sortSubcommands: false, helpWidth: 110 });

  register(program);
  return program;
}

/** Translates commander's usage errors into cobra's words. */
function usageMessage(err: CommanderError): string {
  const m = err.message.replace(/^error: /, "");
  let g: RegExpExecArray | null;
  if ((g = /^unknown option '([^']+)'/.exec(m))) {
    const flag = g[1].split("=")[0];
    return flag.startsWith("--") ? `unknown flag: ${flag}` : `unknown shorthand flag: '${flag.slice(1, 2)}' in ${flag}`;
  }
  if ((g = /^option '([^']+)' argument missing/.exec(m))) {
    const flags = g[1].split(/[ ,]+/).filter((f) => f.startsWith("-"));
    return `flag needs an argument: ${flags[flags.length - 1] ?? g[1]}`;
  }
  if ((g = /^unknown command '([^']+)'/.exec(m))) return `unknown command ${JSON.stringify(g[1])}`;
  return m.replace(/\.$/, "");
}

/** Runs the CLI on argv (without `node` and the script); returns the exit code. Never throws. */
export async function run(argv: string[], register: RegisterCommands): Promise<number> {
  const program = buildProgram(register);
  let help = "";
  const capture = (s: string) => {
    help += s;
  };
  // Help and version go to stdout; commander's own error lines are replaced by ours.
  for (const c of allCommands(program)) c.configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: capture, outputError: () => {} });
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
      if (e.code === "commander.help" || e.code === "commander.executeSubCommandAsync") {
        // A command group without a subcommand: show its help, as cobra does.
        process.stdout.write(help);
        return 0;
      }
      process.stderr.write(`Error: ${usageMessage(e)}\n`);
      return 1;
    }
    if (e instanceof CliError) {
      if (e.message !== "") process.stderr.write(`Error: ${e.message}\n`);
      return e.exitCode;
    }
    // Anything else is a bug or an unexpected failure: still one line, no stack (XUPGRADE_DEBUG=1 shows it).
    process.stderr.write(`Error: ${messageOf(e)}\n`);
    if (process.env.XUPGRADE_DEBUG) process.stderr.write(String((e as Error)?.stack ?? e) + "\n");
    return 1;
  }
}

function allCommands(c: Command): Command[] {
  return [c, ...c.commands.flatMap(allCommands)];
}
