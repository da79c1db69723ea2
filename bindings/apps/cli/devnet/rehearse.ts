/**
 * `xupgrade devnet rehearse`: the new binary's upgrade, run now on a copy of a node's committed state
 * (docs/spec/rehearse.md). Prints the report (text, or `-o json`) and exits with the exit code the real
 * upgrade would end the node with: 0 when it would succeed, 20–25 (or 1) when it would halt. A rehearsal
 * that cannot run is one `Error:` line and exit 1 (with `-o json`, also `{"rehearsed":false,…}` on stdout).
 */
import type { Command } from "commander";
import type * as Devnet from "../../devnet/index.js";
import { loadDevnet } from "./load.js";
import { CliError } from "../errors.js";
import { defaultHome, expectArgs, integerValue } from "../flags.js";
import { parseOutput } from "../output.js";
import { messageOf } from "../../../base/errors.js";
import { HEIGHT } from "../../../go/option.js";

export interface RehearseOpts {
  home?: string;
  app?: string;
  plan?: string;
  height?: string;
  output?: string;
  verbose?: boolean;
  core?: string;
  tmpDir?: string;
  snapshot?: string;
}

export async function rehearse(opts: RehearseOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  const format = parseOutput(opts.output);
  if (opts.app === undefined) throw new CliError('required flag(s) "app" not set');
  if (opts.plan !== undefined && opts.plan === "") throw new CliError("invalid --plan: the upgrade name cannot be empty");
  const height = opts.height === undefined ? undefined : integerValue("--height", opts.height, HEIGHT);
  if (opts.core !== undefined && opts.core !== "wasm" && opts.core !== "js")
    throw new CliError(`invalid --core ${JSON.stringify(opts.core)}: must be wasm or js`);
  if (opts.snapshot !== undefined && opts.snapshot !== "plan" && opts.snapshot !== "latest")
    throw new CliError(`invalid --snapshot ${JSON.stringify(opts.snapshot)}: must be plan or latest`);
  const devnet = await loadDevnet();
  // A signal (Ctrl-C, a supervisor's timeout) ends the process through exit, which removes the copy of the state.
  const onSignal = (signal: NodeJS.Signals) => process.exit(128 + (signal === "SIGINT" ? 2 : 15));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let report: Devnet.RehearsalReport;
  try {
    report = await devnet.rehearseUpgrade({
      home: opts.home ?? defaultHome(),
      app: opts.app,
      plan: opts.plan,
      height,
      backend: opts.core,
      tmpDir: opts.tmpDir,
      snapshot: opts.snapshot,
    });
  } catch (e) {
    if (format === "json") process.stdout.write(JSON.stringify(devnet.failedRehearsalJson(messageOf(e))) + "\n");
    throw new CliError(`cannot rehearse: ${messageOf(e)}`);
  }
  const shown = { sample: opts.verbose ? 5 : 0, log: opts.verbose === true };
  process.stdout.write(format === "json" ? JSON.stringify(devnet.rehearsalToJson(report, shown)) + "\n" : devnet.formatRehearsal(report, shown));
  if (report.exitCode !== 0) throw new CliError("", report.exitCode);
}
