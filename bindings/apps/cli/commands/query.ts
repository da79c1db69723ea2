/**
 * `xupgrade query upgrade …` and `query gov proposal`: declarations only. Each action loads its module
 * when it runs, so a query pays for the RPC client and one message type, nothing else.
 */
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { addQueryFlags, type QueryOpts } from "../flags.js";
import type { ReadinessOpts } from "../query/readiness.js";
import type { VerifyOpts } from "../query/verify.js";

/** --verify and its trust flags (docs/spec/light-client.md §9.2). */
function addVerifyFlags(cmd: Command): Command {
  return cmd
    .option("--verify", "prove the answer against a header verified from a trust root (light client), instead of believing the node")
    .option("--trust-height <h>", "with --verify: the trusted header's height")
    .option("--trust-hash <hash>", "with --verify: the trusted header's hash (64 hex digits)")
    .option("--trusting-period <duration>", "with --verify: how long a verified header may vouch for later ones (default 336h)")
    .option("--trust-file <path>", "with --verify: where the newest verified header is kept (default <home>/light/<chain-id>.json)")
    .option(
      "--trust-on-first-use",
      "with --verify and no trust root: take the node's own latest header unverified (every answer then says so until you give a root)",
    )
    .option(
      "--witness <url>",
      "with --verify: another node's RPC that must have the same header (repeatable; at least one is required)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--without-witnesses", "with --verify: verify against the node alone, without a witness (the output says so)")
    .option(
      "--max-age <duration>",
      "with --verify: refuse a latest header older than this, unless the chain is proven halted for an upgrade (default 10m; 0: no bound)",
    )
    .option("--chain-id <id>", "with --verify: the chain (default: the trusted header's)");
}

/** The verified query when --verify is given (its own bundle, loaded only then), else the plain one. */
function verifiable(opts: VerifyOpts): boolean {
  const trustFlags = [
    "trustHeight",
    "trustHash",
    "trustingPeriod",
    "trustFile",
    "trustOnFirstUse",
    "witness",
    "withoutWitnesses",
    "maxAge",
    "chainId",
  ] as const;
  const given = trustFlags.find((f) => opts[f] !== undefined);
  if (!opts.verify && given) throw new CliError(`--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --verify`);
  return opts.verify === true;
}

/** `query` (alias `q`) with its subcommands, on the root program. */
export function registerQueryGroup(program: Command): void {
  const query = program.command("query").alias("q").summary("Querying subcommands").description("Querying subcommands");
  registerQueries(query);
}

export function registerQueries(query: Command): void {
  const upgrade = query.command("upgrade").summary("Querying commands for the upgrade module").description("Querying commands for the upgrade module");

  addVerifyFlags(
    addQueryFlags(upgrade.command("plan").summary("get upgrade plan (if one exists)").description("Gets the currently scheduled upgrade plan, if one exists")),
  ).action(async (opts: VerifyOpts, cmd: Command) =>
    verifiable(opts) ? (await import("../query/verify.js")).plan(opts, cmd) : (await import("../query/upgrade.js")).plan(opts, cmd),
  );

  addVerifyFlags(
    addQueryFlags(
      upgrade
        .command("applied")
        .argument("[upgrade-name]")
        .summary("block header for height at which a completed upgrade was applied")
        .description(
          "If upgrade-name was previously executed on the chain, this returns the header for the block at which it was applied. " +
            "This helps a client determine which binary was valid over a given range of blocks, as well as more context to understand past migrations.",
        ),
    ),
  ).action(async (_name: string | undefined, opts: VerifyOpts, cmd: Command) =>
    verifiable(opts) ? (await import("../query/verify.js")).applied(opts, cmd) : (await import("../query/upgrade.js")).applied(opts, cmd),
  );

  addVerifyFlags(
    addQueryFlags(
      upgrade
        .command("module_versions")
        .alias("module-versions")
        .argument("[module_name]")
        .summary("get the list of module versions")
        .description(
          "Gets a list of module names and their respective consensus versions. Following the command with a specific module name will return only that module's information.",
        ),
    ),
  ).action(async (_m: string | undefined, opts: VerifyOpts, cmd: Command) =>
    verifiable(opts) ? (await import("../query/verify.js")).moduleVersions(opts, cmd) : (await import("../query/upgrade.js")).moduleVersions(opts, cmd),
  );

  addQueryFlags(upgrade.command("authority").summary("Get the upgrade authority address").description("Get the upgrade authority address")).action(
    async (opts: QueryOpts, cmd: Command) => (await import("../query/upgrade.js")).authority(opts, cmd),
  );

  addVerifyFlags(
    addQueryFlags(
      upgrade
        .command("readiness")
        .argument("[upgrade-name]")
        .option("--plan-height <h>", "with an upgrade name: the height of the plan of that name (default: its latest tally; required with --verify)")
        .option("--warn-blocks <n>", "warn when less than 2/3 of the power is ready this many blocks before the height (default 1000)")
        .summary("stake-weighted readiness of the scheduled upgrade (an xupgrade extension)")
        .description(
          "Shows how much of the voting power has attested, through its validator's vote extensions, that it is ready for the scheduled upgrade: " +
            "the binary it will run (sha256), its pre-flight, and its rehearsal of the upgrade with the app hash reached. " +
            "Warns when less than 2/3 is ready close to the height, and when rehearsed app hashes disagree. See docs/spec/readiness.md.",
        ),
    ),
  ).action(async (_name: string | undefined, opts: ReadinessOpts & VerifyOpts, cmd: Command) =>
    verifiable(opts) ? (await import("../query/verify.js")).readiness(opts, cmd) : (await import("../query/readiness.js")).readiness(opts, cmd),
  );

  const gov = query.command("gov").summary("Querying commands for the gov module").description("Querying commands for the gov module");
  addQueryFlags(
    gov.command("proposal").argument("[proposal-id]").summary("Query details of a single proposal").description("Query details for a proposal by its id"),
  ).action(async (_id: string | undefined, opts: QueryOpts, cmd: Command) => (await import("../query/gov.js")).proposal(opts, cmd));
}
