/** `xupgrade query upgrade plan|applied|module_versions|authority` over abci_query (interfaces.md §4, §7.1). */
import type { Command } from "commander";
import { queryAppliedPlan, queryAuthority, queryCurrentPlan, queryModuleVersions } from "../../../client/upgrade.js";
import { CliError } from "../errors.js";
import { Context, addQueryFlags, expectArgs, type QueryOpts } from "../flags.js";
import { print, toIndentedJson } from "../output.js";
import { isObject } from "../../../client/rpc.js";
import { blockRecord } from "./block-record.js";
import { planJson } from "./json.js";

export function registerUpgradeQueries(query: Command): void {
  const upgrade = query
    .command("upgrade")
    .summary("Querying commands for the upgrade module")
    .description("Querying commands for the upgrade module");

  addQueryFlags(
    upgrade
      .command("plan")
      .summary("get upgrade plan (if one exists)")
      .description("Gets the currently scheduled upgrade plan, if one exists"),
  ).action(async (opts: QueryOpts, cmd: Command) => {
    expectArgs(cmd, 0, 0);
    const ctx = new Context(opts);
    const plan = await queryCurrentPlan(ctx.rpc(), ctx.height);
    if (!plan) throw new CliError("no upgrade scheduled");
    print(planJson(plan), ctx.output);
  });

  addQueryFlags(
    upgrade
      .command("applied")
      .argument("[upgrade-name]")
      .summary("block header for height at which a completed upgrade was applied")
      .description(
        "If upgrade-name was previously executed on the chain, this returns the header for the block at which it was applied. " +
          "This helps a client determine which binary was valid over a given range of blocks, as well as more context to understand past migrations.",
      ),
  ).action(async (_name: string | undefined, opts: QueryOpts, cmd: Command) => {
    const [name] = expectArgs(cmd, 1, 1);
    const ctx = new Context(opts);
    const rpc = ctx.rpc();
    const height = await queryAppliedPlan(rpc, name, ctx.height);
    if (height === 0n) throw new CliError("no upgrade found");
    const res = await rpc.call("blockchain", { minHeight: height.toString(), maxHeight: height.toString() });
    if (!Array.isArray(res.block_metas)) throw rpc.garbage("blockchain", "block_metas is not a list");
    const meta = res.block_metas.find((m) => isObject(m) && isObject(m.header) && String(m.header.height) === height.toString());
    if (meta === undefined) throw new CliError(`no headers returned for height ${height}`);
    // Always JSON, whatever --output says (as the SDK's command).
    process.stdout.write(toIndentedJson(blockRecord(rpc, meta)) + "\n");
  });

  const versions = addQueryFlags(
    upgrade
      .command("module_versions")
      .alias("module-versions")
      .argument("[module_name]")
      .summary("get the list of module versions")
      .description(
        "Gets a list of module names and their respective consensus versions. Following the command with a specific module name will return only that module's information.",
      ),
  );
  versions.action(async (_m: string | undefined, opts: QueryOpts, cmd: Command) => {
    const [moduleName = ""] = expectArgs(cmd, 0, 1);
    const ctx = new Context(opts);
    const list = await queryModuleVersions(ctx.rpc(), moduleName, ctx.height);
    if (list.length === 0) throw new CliError("not found");
    print({ module_versions: list.map((m) => ({ name: m.name, version: m.version.toString() })) }, ctx.output);
  });

  addQueryFlags(upgrade.command("authority").summary("Get the upgrade authority address").description("Get the upgrade authority address")).action(
    async (opts: QueryOpts, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const ctx = new Context(opts);
      print({ address: await queryAuthority(ctx.rpc(), ctx.height) }, ctx.output);
    },
  );
}
