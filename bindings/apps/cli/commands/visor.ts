/**
 * `xupgrade visor init|run|add-upgrade|show-upgrade-info|prepare-upgrade|rollback|config|version`: flag parsing only;
 * the sidecar (bindings/apps/visor, docs/spec/sidecar.md) is loaded when a visor command runs. `run` hands every
 * argument to the node (only `--cosmovisor-config <path>` is taken out, as cosmovisor does) and exits
 * with the node's status.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { expectArgs, integerValue } from "../flags.js";
import { parseOutput } from "../output.js";
import type { VisorConfig } from "../../visor/config/index.js";
import { messageOf } from "../../../base/errors.js";
import { HEIGHT } from "../../../go/option.js";

interface ConfigOpts {
  cosmovisorConfig?: string;
}

const CONFIG_FLAG = "-c, --cosmovisor-config <path>";
const CONFIG_HELP = "TOML file with the variables in lower case (the environment overrides it)";

function configPath(cmd: Command): string | undefined {
  return cmd.opts<ConfigOpts>().cosmovisorConfig ?? cmd.parent?.opts<ConfigOpts>().cosmovisorConfig;
}

const logger = async (cfg: Pick<VisorConfig, "disableLogs" | "colorLogs" | "timeFormatLogs">) =>
  (await import("../../visor/log.js")).createLogger({ disabled: cfg.disableLogs, color: cfg.colorLogs, timeFormat: cfg.timeFormatLogs });

/** The configuration from the environment (and `-c <file>` under it), every problem at once. */
const config = async (cmd: Command) => (await import("../../visor/config/index.js")).loadConfig({ configFile: configPath(cmd) });

/** Runs a visor step, turning its failures into the CLI's one `Error:` line. */
async function step<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(messageOf(e));
  }
}

/** `--cosmovisor-config <p>` / `--cosmovisor-config=<p>` taken out of the node's arguments. */
export function takeConfigFlag(args: string[]): { path?: string; args: string[] } {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.toLowerCase() === "--cosmovisor-config" || a.toLowerCase() === "-cosmovisor-config") {
      if (i + 1 >= args.length) throw new CliError("--cosmovisor-config requires an argument");
      return { path: args[i + 1], args: [...args.slice(0, i), ...args.slice(i + 2)] };
    }
    if (a.toLowerCase().startsWith("--cosmovisor-config=")) return { path: a.slice(a.indexOf("=") + 1), args: [...args.slice(0, i), ...args.slice(i + 1)] };
  }
  return { args };
}

function visorVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

export function registerVisor(program: Command): void {
  const visor = program
    .command("visor")
    .summary("Supervise the node binary and switch it at the upgrade height (cosmovisor equivalent)")
    .description(
      "The sidecar: runs the node binary, notices the halt at an upgrade height, downloads and verifies the new binary " +
        "named in Plan.Info, backs up the data, switches binaries and restarts. Configured by DAEMON_HOME, DAEMON_NAME and " +
        "the other DAEMON_*/COSMOVISOR_* variables (see `xupgrade visor config`).",
    )
    .option(CONFIG_FLAG, CONFIG_HELP)
    .enablePositionalOptions();

  visor
    .command("init")
    .summary("Create the layout, copy the genesis binary and point `current` at it")
    .description("Usage: xupgrade visor init <path-to-genesis-binary>. Needs DAEMON_NAME and an absolute DAEMON_HOME.")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (_opts: ConfigOpts, cmd: Command) => {
      const [path] = expectArgs(cmd, 0, 1);
      const file = configPath(cmd);
      const { mergeSources, parseConfig, readConfigFile } = await import("../../visor/config/index.js");
      const { cfg, errors } = parseConfig(file ? mergeSources(readConfigFile(file), process.env) : process.env);
      const problems = [...errors];
      if (cfg.name === "") problems.push("DAEMON_NAME is not set");
      if (cfg.home === "") problems.push("DAEMON_HOME is not set");
      else if (!cfg.home.startsWith("/")) problems.push("DAEMON_HOME must be an absolute path");
      if (problems.length > 0) throw new CliError(problems.join("\n"));
      const { initVisor } = await import("../../visor/setup.js");
      await step(async () => initVisor(cfg, path, await logger(cfg)));
    });

  visor
    .command("run")
    .summary("Run the node under the visor: everything after `run` goes to the node")
    .description("Usage: xupgrade visor run <node args…>. Exits with the node's exit status (0 after a switch with DAEMON_RESTART_AFTER_UPGRADE=false).")
    .helpOption(false)
    .allowUnknownOption()
    .passThroughOptions()
    .action(async (_opts: unknown, cmd: Command) => {
      const taken = takeConfigFlag(cmd.args);
      const { loadConfig } = await import("../../visor/config/index.js");
      const cfg = loadConfig({ configFile: taken.path ?? configPath(cmd) });
      const { runVisor } = await import("../../visor/run.js");
      const code = await step(() => runVisor({ cfg, args: taken.args, signals: true }));
      if (code !== 0) throw new CliError("", code);
    });

  visor
    .command("add-upgrade")
    .summary("Stage a binary for a named upgrade (optionally with a manual plan at a height)")
    .description("Usage: xupgrade visor add-upgrade <upgrade-name> <path-to-executable> [--force] [--upgrade-height <h>]")
    .option("--force", "replace an existing binary (and a pending manual plan)")
    .option("--upgrade-height <height>", "also write data/upgrade-info.json for a manual upgrade at this height")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (opts: { force?: boolean; upgradeHeight?: string }, cmd: Command) => {
      const [name, path] = expectArgs(cmd, 2, 2);
      const height = opts.upgradeHeight === undefined ? undefined : integerValue("--upgrade-height", opts.upgradeHeight, HEIGHT);
      const cfg = await config(cmd);
      const { addUpgrade } = await import("../../visor/setup.js");
      await step(async () => addUpgrade(cfg, name, path, { force: opts.force, height }, await logger(cfg)));
    });

  visor
    .command("show-upgrade-info")
    .summary("Pre-flight: the pending plan, the binary it would run, and whether it is ready")
    .description(
      "Reports the plan in data/upgrade-info.json, or the chain's scheduled plan (CurrentPlan over DAEMON_RPC_ADDRESS): the binary path, " +
        "whether it is staged, the URL for this platform and its checksum, and `ready: yes|no (<reason>)`. An unstaged binary is downloaded, " +
        "verified and unpacked into a temporary directory (then deleted) unless --no-download is given. With --rehearse the binary also rehearses the " +
        "upgrade on a copy of the node's state (docs/spec/rehearse.md): `ready: yes — rehearsed: N modules migrated in T`, or no with the halt it predicts.",
    )
    .option("-o, --output <format>", "text or json (default text)")
    .option("--no-download", "do not download the binary to check it")
    .option(
      "--rehearse",
      "also have the binary rehearse the upgrade on a copy of the node's committed state (`<bin> rehearse --home $DAEMON_HOME --plan <name> --height <h> -o json`); a predicted halt makes it ready: no",
    )
    .option("--no-attest", "with --rehearse: do not write the readiness attestation for the node ($DAEMON_HOME/data/upgrade-readiness.json)")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (opts: { output?: string; download: boolean; rehearse?: boolean; attest: boolean }, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const format = parseOutput(opts.output);
      const cfg = await config(cmd);
      const { formatReport, showUpgradeInfo } = await import("../../visor/upgrade/preflight.js");
      const log = await logger(cfg);
      // The rehearsal's result is a stage the webhooks tell (docs/spec/sidecar.md §11); nothing is loaded without them.
      const telling =
        cfg.webhookUrls.length > 0
          ? await (await import("../../visor/telling/tell.js")).startTelling(cfg, log, { currentUpgrade: "", endpoint: false })
          : undefined;
      const result = await step(async () =>
        showUpgradeInfo(cfg, { verify: opts.download, log, rehearse: opts.rehearse === true, events: telling?.events }),
      ).finally(() => telling?.close());
      // docs/spec/readiness.md §3: the rehearsed pre-flight is this validator's readiness attestation.
      let attestation: unknown;
      let attestedTo = "";
      if (result.found && opts.rehearse === true && opts.attest) {
        const { attest } = await import("../../visor/telling/readiness.js");
        const { readinessFilePath } = await import("../../../module/readiness/file.js");
        attestation = await step(() => attest(cfg, result.report, log));
        attestedTo = readinessFilePath(cfg.home);
      }
      if (format === "json")
        process.stdout.write(JSON.stringify(result.found ? { ...result.report, ...(attestation ? { attestation } : {}) } : { message: result.message }) + "\n");
      else process.stdout.write(formatReport(result) + (attestedTo ? `attested: ${attestedTo} (the node's votes carry it)\n` : ""));
    });

  visor
    .command("prepare-upgrade")
    .summary("Download and stage the binary of the chain's scheduled upgrade now")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (_opts: unknown, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const cfg = await config(cmd);
      const { prepareUpgrade } = await import("../../visor/upgrade/preflight.js");
      await step(async () => prepareUpgrade(cfg, { log: await logger(cfg) }));
    });

  visor
    .command("rollback")
    .summary("Undo the last upgrade: restore its data backup and point `current` back (the node stopped)")
    .description(
      "Restores $DAEMON_HOME/data from the newest complete backup taken for the upgrade `current` records (hard-linked where it can), keeps the " +
        "replaced data beside it, points `current` back at the binary that ran before, and marks the upgrade rolled back so no start upgrades " +
        "to it again until `add-upgrade <name> <binary> --force` stages a fixed binary. Refused while the node runs, without a backup, or without " +
        "room for the copy. Without --force, also refused when the new binary committed blocks past the upgrade height or the validator signed " +
        "after the backup (priv_validator_state.json); the newer signed state is always kept (docs/spec/sidecar.md §13).",
    )
    .option("--force", "roll back although blocks past the upgrade height are lost or the validator signed after the backup")
    .option("--backup <path>", "this complete backup of the upgrade (a path, or a name in DAEMON_DATA_BACKUP_DIR) instead of the newest")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (opts: { force?: boolean; backup?: string }, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const cfg = await config(cmd);
      const { rollback } = await import("../../visor/upgrade/rollback.js");
      const log = await logger(cfg);
      // The rollback is a stage the webhooks tell (docs/spec/sidecar.md §11); nothing is loaded without them.
      const telling =
        cfg.webhookUrls.length > 0
          ? await (await import("../../visor/telling/tell.js")).startTelling(cfg, log, { currentUpgrade: "", endpoint: false })
          : undefined;
      await step(async () => rollback(cfg, { log, force: opts.force === true, backup: opts.backup, events: telling?.events })).finally(() => telling?.close());
    });

  visor
    .command("config")
    .summary("Print the configuration and the derived paths")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (_opts: unknown, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const { detailString } = await import("../../visor/config/index.js");
      process.stdout.write(detailString(await config(cmd)));
    });

  visor
    .command("version")
    .summary("Print the visor's version, then the node binary's `version`")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (_opts: unknown, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const cfg = await config(cmd);
      process.stdout.write(`xupgrade visor version: ${visorVersion()}\n`);
      const { Layout } = await import("../../visor/layout.js");
      const { bin } = await step(() => new Layout(cfg).resolveCurrent());
      const result = await new Promise<string>((resolve) => {
        const child = spawn(bin, ["version"], { stdio: "inherit" });
        child.on("error", (e) => resolve(`cannot run ${bin} version: ${e.message}`));
        child.on("close", (c, s) => resolve(c === 0 ? "" : `${bin} version: ${s ? `signal: ${s}` : `exit status ${c}`}`));
      });
      if (result !== "") throw new CliError(result);
    });
}
