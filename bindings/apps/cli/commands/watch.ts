/**
 * `xupgrade watch --config <file>` (docs/spec/watch.md): flag parsing only; the watch (bindings/apps/watch) is
 * loaded when the command runs. It follows every chain of the config until SIGINT or SIGTERM, then lets the
 * deliveries in flight finish (at most 5 s), writes its state and exits 0. `--once` polls each chain once, prints
 * the fleet's rows (JSON) on stdout and exits — 1 when a chain failed verification.
 */
import { dirname, isAbsolute, join } from "node:path";
import type { Command } from "commander";
import type * as WatchLib from "../../watch/index.js";
import { CliError } from "../errors.js";
import { defaultHome, expectArgs } from "../flags.js";
import { messageOf } from "../../../base/errors.js";

interface WatchOpts {
  config?: string;
  listen?: string;
  stateDir?: string;
  once?: boolean;
  home?: string;
}

async function load(): Promise<typeof WatchLib> {
  try {
    return await import("../../watch/index.js");
  } catch (e) {
    throw new CliError(`cannot load the watch: ${messageOf(e)}`);
  }
}

export function registerWatch(program: Command): void {
  program
    .command("watch")
    .summary("Follow many chains' upgrades, verified: ETA bands, alerts, calendar feeds, a fleet view, metrics")
    .description(
      "Follows every chain of the config file with the verified light client (each from its trust root, with its witnesses): the plan, " +
        "proposals in their voting period, readiness, halts — with an ETA band (p10–p90) from verified header times. Alerts go to the " +
        "webhooks (Slack, Discord, Telegram, JSON) at the lead times and on events, each exactly once across restarts; calendar feeds, " +
        "the fleet view and /metrics are served at `listen`. See docs/spec/watch.md.",
    )
    .requiredOption("-c, --config <file>", "the watch config (TOML, or JSON by its .json name)")
    .option("--listen <host:port>", "serve the fleet view, the feeds and /metrics here (overrides the config's listen)")
    .option("--state-dir <dir>", "where alerts, trust roots and header times are kept (default: the config's state_dir, else <home>/watch)")
    .option("--home <dir>", "the CLI's home (default ~/.xupgrade)")
    .option("--once", "poll every chain once, print the fleet's rows as JSON and exit (1 when a chain failed verification)")
    .action(async (opts: WatchOpts, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      const lib = await load();
      const { createLogger } = await import("../../visor/log.js");
      let config: WatchLib.WatchConfig;
      try {
        config = await lib.loadWatchConfig(opts.config!);
      } catch (e) {
        if (e instanceof lib.WatchConfigError) throw new CliError(e.message);
        throw e;
      }
      const configured = config.stateDir && (isAbsolute(config.stateDir) ? config.stateDir : join(dirname(opts.config!), config.stateDir));
      const stateDir = opts.stateDir ?? configured ?? join(opts.home ?? defaultHome(), "watch");
      const log = createLogger({ timeFormat: "" });
      let watch: WatchLib.Watch;
      try {
        watch = await lib.Watch.start({ config, stateDir, listen: opts.listen, log, rounds: opts.once ? 1 : undefined });
      } catch (e) {
        if (e instanceof lib.WatchStateError) throw new CliError(e.message);
        throw e;
      }
      if (opts.once) {
        await watch.done();
        await watch.stop();
        const fleet = watch.fleet();
        process.stdout.write(JSON.stringify(fleet, null, 2) + "\n");
        if (fleet.chains.some((c) => c.status !== "verified"))
          throw new CliError(
            `not every chain verified: ${fleet.chains
              .filter((c) => c.status !== "verified")
              .map((c) => `${c.name} (${c.status}${c.failure ? `: ${c.failure.message}` : ""})`)
              .join("; ")}`,
          );
        return;
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          log.info(`${signal}: stopping`);
          resolve();
        };
        process.once("SIGINT", () => stop("SIGINT"));
        process.once("SIGTERM", () => stop("SIGTERM"));
      });
      await watch.stop();
      log.info("stopped: state written");
    });
}
