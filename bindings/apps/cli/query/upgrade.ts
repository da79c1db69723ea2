/** `xupgrade query upgrade plan|applied|module_versions|authority` over abci_query (docs/spec/interfaces.md §4, §7.1). */
import type { Command } from "commander";
import type { Plan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import { isObject, type CometRpc } from "../../../client/rpc.js";
import { haltedForPlan, latestBlockHeight, queryAppliedPlan, queryAuthority, queryCurrentPlan, queryModuleVersions } from "../../../client/upgrade.js";
import { Context } from "../context.js";
import { CliError } from "../errors.js";
import { expectArgs, type QueryOpts } from "../flags.js";
import { print, toIndentedJson } from "../output.js";
import { blockRecord } from "./block-record.js";
import { planJson } from "./json.js";
import { sleep } from "../../../base/sleep.js";

export async function plan(opts: QueryOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  const ctx = new Context(opts);
  const rpc = ctx.rpc();
  const latest = ctx.height === 0n ? latestBlockHeight(rpc).catch(() => undefined) : undefined;
  const plan = await queryCurrentPlan(rpc, ctx.height);
  if (!plan) throw new CliError("no upgrade scheduled");
  print(planJson(plan), ctx.output);
  if (await halted(rpc, plan, await latest)) {
    process.stderr.write(
      `halted at height ${plan.height}, waiting for ${plan.name}: the node reached the upgrade height and stopped; it resumes once a binary with the "${plan.name}" upgrade handler runs\n`,
    );
  }
}

/** docs/spec/keeper.md §6.2: halted for the plan, and still so a second later (a node applying it answers no query meanwhile). */
async function halted(rpc: CometRpc, plan: Plan, latest: bigint | undefined): Promise<boolean> {
  if (latest === undefined || !haltedForPlan(plan, latest)) return false;
  await sleep(HALT_RECHECK_MS);
  try {
    const [again, height] = await Promise.all([queryCurrentPlan(rpc), latestBlockHeight(rpc)]);
    return again?.name === plan.name && again.height === plan.height && haltedForPlan(again, height);
  } catch {
    return false;
  }
}

const HALT_RECHECK_MS = 1000;

export async function applied(opts: QueryOpts, cmd: Command): Promise<void> {
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
}

export async function moduleVersions(opts: QueryOpts, cmd: Command): Promise<void> {
  const [moduleName = ""] = expectArgs(cmd, 0, 1);
  const ctx = new Context(opts);
  const list = await queryModuleVersions(ctx.rpc(), moduleName, ctx.height);
  if (list.length === 0) throw new CliError("not found");
  print({ module_versions: list.map((m) => ({ name: m.name, version: m.version.toString() })) }, ctx.output);
}

export async function authority(opts: QueryOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  const ctx = new Context(opts);
  print({ address: await queryAuthority(ctx.rpc(), ctx.height) }, ctx.output);
}
