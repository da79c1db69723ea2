/**
 * `xupgrade query upgrade …` and `query gov proposal`: declarations only. Each action loads its module
 * when it runs, so a query pays for the RPC client and one message type, nothing else.
 */
import type { Command } from "commander";
import { addQueryFlags, type QueryOpts } from "../flags.js";

/** `query` (alias `q`) with its subcommands, on the root program. */
export function registerQueryGroup(program: Command): void {
  const query = program.command("query").alias("q").summary("Querying subcommands").description("Querying subcommands");
  registerQueries(query);
}

export function registerQueries(query: Command): void {
  const upgrade = query
    .command("upgrade")
    .summary("Querying commands for the upgrade module")
    .description("Querying commands for the upgrade module");

  addQueryFlags(
    upgrade
      .command("plan")
      .summary("get upgrade plan (if one exists)")
      .description("Gets the currently scheduled upgrade plan, if one exists"),
  ).action(async (opts: QueryOpts, cmd: Command) => (await import("../query/upgrade.js")).plan(opts, cmd));

  addQueryFlags(
    upgrade
      .command("applied")
      .argument("[upgrade-name]")
      .summary("block header for height at which a completed upgrade was applied")
      .description(
        "If upgrade-name was previously executed on the chain, this returns the header for the block at which it was applied. " +
          "This helps a client determine which binary was valid over a given range of blocks, as well as more context to understand past migrations.",
      ),
  ).action(async (_name: string | undefined, opts: QueryOpts, cmd: Command) => (await import("../query/upgrade.js")).applied(opts, cmd));

  addQueryFlags(
    upgrade
      .command("module_versions")
      .alias("module-versions")
      .argument("[module_name]")
      .summary("get the list of module versions")
      .description(
        "Gets a list of module names and their respective consensus versions. Following the command with a specific module name will return only that module's information.",
      ),
  ).action(async (_m: string | undefined, opts: QueryOpts, cmd: Command) => (await import("../query/upgrade.js")).moduleVersions(opts, cmd));

  addQueryFlags(upgrade.command("authority").summary("Get the upgrade authority address").description("Get the upgrade authority address")).action(
    async (opts: QueryOpts, cmd: Command) => (await import("../query/upgrade.js")).authority(opts, cmd),
  );

  const gov = query.command("gov").summary("Querying commands for the gov module").description("Querying commands for the gov module");
  addQueryFlags(gov.command("proposal").argument("[proposal-id]").summary("Query details of a single proposal").description("Query details for a proposal by its id")).action(
    async (_id: string | undefined, opts: QueryOpts, cmd: Command) => (await import("../query/gov.js")).proposal(opts, cmd),
  );
}
