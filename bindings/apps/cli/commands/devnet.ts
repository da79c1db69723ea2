/**
 * `xupgrade devnet init|start|rehearse`: flag parsing only (rehearse's action is cli/devnet/rehearse.ts). The chain host (bindings/apps/devnet) is loaded with a
 * dynamic import when a devnet command runs, so no other command pays for it, and a build without it
 * says clearly what is missing. `start` exits with the devnet's own exit code (e.g. 20 when it halts
 * for an upgrade). `init --engine cometbft` writes a testnet of CometBFT validators (one node home each)
 * and imports the genesis accounts' keys into a test keyring in the testnet's folder.
 */
import type { Command } from "commander";
import type * as Devnet from "../../devnet/index.js";
import type { RehearseOpts } from "../devnet/rehearse.js";
import { loadDevnet } from "../devnet/load.js";
import { CliError } from "../errors.js";
import { defaultHome, expectArgs, integerValue, durationFlag } from "../flags.js";
import { messageOf } from "../../../base/errors.js";
import { HEIGHT, type DurationKind } from "../../../go/option.js";

/** A duration flag checked against its kind's floor (a devnet period or block time: at least 1ms), passed on as written. */
function durationText(flag: string, value: string | undefined, kind: DurationKind = "period"): string | undefined {
  if (value !== undefined) durationFlag(flag, value, kind);
  return value;
}

function parseValidators(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(integerValue("--validators", value, { min: 1n, max: 100n }));
}

/** `--unsafe-skip-upgrades 10,20` (repeatable). */
function parseSkipHeights(values: string[]): bigint[] {
  const heights: bigint[] = [];
  for (const v of values.flatMap((s) => s.split(","))) {
    const t = v.trim();
    if (t === "") continue;
    heights.push(integerValue("--unsafe-skip-upgrades", t, HEIGHT));
  }
  return heights;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The options without the flags that were not given, so the devnet applies its own defaults. */
function withoutUndefined<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as T;
}

const ENGINES = ["local", "cometbft"] as const;

function parseEngine(value: string | undefined): Devnet.DevnetEngine | undefined {
  if (value === undefined) return undefined;
  if (!(ENGINES as readonly string[]).includes(value)) throw new CliError(`invalid --engine ${JSON.stringify(value)}: must be local or cometbft`);
  return value as Devnet.DevnetEngine;
}

/** The genesis accounts' keys into the test keyring of `dir` (keys already there with the same address are kept). */
async function importTestKeys(dir: string, keys: readonly Devnet.GenesisKey[]): Promise<void> {
  // Loaded here, not at the top: this module is part of every command's tree, and the keyring pulls in signing.
  const [{ fromPrivkey, parseHexPrivkey }, { Keyring }, { passphraseSource }] = await Promise.all([
    import("../keys/derive.js"),
    import("../keys/keyring.js"),
    import("../keys/passphrase.js"),
  ]);
  const keyring = new Keyring(dir, "test", passphraseSource(undefined));
  for (const k of keys) {
    const material = await fromPrivkey(parseHexPrivkey(k.private_key));
    const existing = await keyring.find(k.name);
    if (existing?.address === material.address) continue;
    if (existing) throw new CliError(`the test keyring in ${dir} already has a key ${JSON.stringify(k.name)} with another address`);
    await keyring.add(k.name, material);
  }
}

interface InitOpts {
  engine?: string;
  home?: string;
  validators?: string;
  votingPeriod?: string;
  depositPeriod?: string;
  blockTime?: string;
  chainId?: string;
  minDeposit?: string;
  accounts?: string;
  keySeed?: string;
  randomKeys?: boolean;
  overwrite?: boolean;
  moniker?: string;
  rpc?: string;
  rest?: string;
  grpc?: string;
  voteExtensionsEnableHeight?: string;
  readinessActivationThreshold?: string;
}

interface StartOpts {
  engine?: string;
  cometbft?: string;
  home?: string;
  app?: string;
  rpc?: string;
  rest?: string;
  grpc?: string;
  blockTime?: string;
  haltGrace?: string;
  logLevel?: string;
  core?: string;
  namespace?: string;
  unsafeSkipUpgrades: string[];
  pruning?: string;
  pruningKeepRecent?: string;
}

const LOG_LEVELS = ["debug", "info", "warn", "error"];
/** Heights a node keeps besides the latest (docs/spec/store.md §3). */
const KEEP_RECENT = { min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) };

export function registerDevnet(program: Command): void {
  const devnet = program
    .command("devnet")
    .summary("Run a rehearsal chain that embeds the upgrade module")
    .description(
      "Run a rehearsal chain (auth, bank, gov, the upgrade keeper first in PreBlock): a single process with blocks on a timer " +
        "(--engine local, the default), or a testnet of CometBFT validators on this machine, each node the ABCI++ application of its own CometBFT (--engine cometbft).",
    );

  devnet
    .command("init")
    .summary("Create a fresh devnet home, or a CometBFT testnet (genesis, validator and account keys)")
    .description(
      "Create a fresh devnet home: genesis, node config, validator keys and the genesis accounts' keys in <home>/config/genesis-keys.json " +
        "(import them with `xupgrade keys import-genesis --keyring-backend test --home <home>`). " +
        "With --engine cometbft: a testnet in <home>, one CometBFT node home per validator (<home>/node0 …, each with its own loopback ports, " +
        "listed in <home>/testnet.json), the shared genesis, and the genesis accounts' keys imported into the test keyring of <home>.",
    )
    .option("--engine <engine>", "local (one process, the default) or cometbft (a testnet of CometBFT validators)")
    .option("--home <dir>", "devnet home directory (default ~/.xupgrade); with --engine cometbft the testnet's directory")
    .option("--validators <n>", "number of validators, 1–100 (default 4)")
    .option("--voting-period <duration>", "gov voting period (default 10s)")
    .option("--deposit-period <duration>", "gov max deposit period (default 10s)")
    .option("--block-time <duration>", "time between blocks (default 200ms; CometBFT's timeout_commit with --engine cometbft, default 300ms)")
    .option("--chain-id <id>", "chain id (default xupgrade-devnet-1)")
    .option("--min-deposit <coins>", "gov min deposit (default 10000000stake)")
    .option("--accounts <names>", "comma-separated names of extra funded accounts (default alice,bob)")
    .option("--key-seed <text>", "derive the keys deterministically from this text (default: the chain id)")
    .option("--random-keys", "draw random keys instead of deterministic ones")
    .option("--overwrite", "replace an existing devnet home")
    .option("--moniker <name>", "node moniker")
    .option("--rpc <addr>", "CometBFT RPC listen address written to the config (default 127.0.0.1:26657)")
    .option("--rest <addr>", "REST listen address written to the config (default 127.0.0.1:1317)")
    .option("--grpc <addr>", "gRPC listen address written to the config (default 127.0.0.1:9090)")
    .option(
      "--vote-extensions-enable-height <h>",
      "with --engine cometbft: the first height whose votes carry readiness attestations (default 1; 0 turns vote extensions off)",
    )
    .option(
      "--readiness-activation-threshold <fraction>",
      "with --engine cometbft: a plan activates at its height only if this share of the power is ready, e.g. 0.67 (default off; see docs/spec/readiness.md §7)",
    )
    .action(async (opts: InitOpts, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      if (opts.randomKeys && opts.keySeed !== undefined) throw new CliError("the --random-keys and --key-seed flags are mutually exclusive");
      const engine = parseEngine(opts.engine) ?? "local";
      if (engine === "cometbft") {
        const fixed = (["rpc", "rest", "grpc", "moniker"] as const).filter((f) => opts[f] !== undefined);
        if (fixed.length > 0)
          throw new CliError(
            `--${fixed[0]} cannot be used with --engine cometbft: every node gets its own name and free loopback ports (see <home>/testnet.json)`,
          );
      }
      const options: Devnet.InitDevnetOptions = {
        home: opts.home ?? defaultHome(),
        validators: parseValidators(opts.validators),
        votingPeriod: durationText("voting-period", opts.votingPeriod),
        depositPeriod: durationText("deposit-period", opts.depositPeriod),
        blockTime: durationText("block-time", opts.blockTime),
        chainId: opts.chainId,
        minDeposit: opts.minDeposit,
        accounts:
          opts.accounts === undefined
            ? undefined
            : opts.accounts
                .split(",")
                .map((s) => s.trim())
                .filter((s) => s !== ""),
        keySeed: opts.randomKeys ? null : opts.keySeed,
        overwrite: opts.overwrite ? true : undefined,
        moniker: opts.moniker,
        rpc: opts.rpc,
        rest: opts.rest,
        grpc: opts.grpc,
      };
      const { initDevnet, initTestnet } = await loadDevnet();
      const readiness = (["voteExtensionsEnableHeight", "readinessActivationThreshold"] as const).filter((f) => opts[f] !== undefined);
      if (engine !== "cometbft" && readiness.length > 0) {
        throw new CliError(
          `--${readiness[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --engine cometbft: only CometBFT's vote extensions carry readiness attestations`,
        );
      }
      if (engine === "cometbft") {
        let t: Devnet.InitTestnetResult;
        const ve = opts.voteExtensionsEnableHeight;
        if (ve !== undefined && !/^[0-9]{1,18}$/.test(ve))
          throw new CliError(`invalid --vote-extensions-enable-height ${JSON.stringify(ve)}: a height (0 turns vote extensions off)`);
        try {
          t = await initTestnet(
            withoutUndefined({
              ...options,
              voteExtensionsEnableHeight: ve === undefined ? undefined : BigInt(ve),
              readinessActivationThreshold: opts.readinessActivationThreshold,
            }),
          );
        } catch (e) {
          throw new CliError(messageOf(e));
        }
        await importTestKeys(t.home, t.keys);
        const lines = t.nodes.map((n) => `  ${n.name}  rpc ${n.rpc}  p2p ${n.p2p}  id ${n.node_id}  home ${n.home}`);
        process.stderr.write(
          `initialised testnet ${t.chainId} in ${t.home}: ${t.nodes.length} CometBFT validator${t.nodes.length === 1 ? "" : "s"}\n${lines.join("\n")}\n` +
            `genesis account keys: ${t.keysFile}, imported into the test keyring (--keyring-backend test --home ${t.home})\n` +
            `start each node with: xupgrade devnet start --engine cometbft --home ${t.home}/node<i> --app <app>\n`,
        );
        return;
      }
      let r: Devnet.InitDevnetResult;
      try {
        r = await initDevnet(withoutUndefined(options));
      } catch (e) {
        throw new CliError(messageOf(e));
      }
      process.stderr.write(`initialised devnet ${r.chainId} in ${r.home}; genesis account keys: ${r.keysFile}\n`);
    });

  devnet
    .command("start")
    .summary("Run the devnet until it halts or is stopped")
    .description(
      "Run the devnet in <home>. It produces blocks until it is stopped (SIGINT/SIGTERM, exit 0) or halts for an upgrade " +
        "(exit 20 UPGRADE NEEDED, 21 binary too early, 22 downgrade, 23 handler failed, 24 upgrade-info not written, 25 corrupt store). " +
        "With --engine cometbft (a node home of `devnet init --engine cometbft`) the process is the ABCI++ application of a CometBFT it starts as its child " +
        "and stops with itself; CometBFT serves the RPC, this process REST and gRPC. At a halt CometBFT's consensus stops, as a Go chain's does, and the node stays up " +
        "(p2p, RPC, REST, gRPC) so every validator gets its votes, until it is stopped, every peer holds the decision, or --halt-grace ends; then it exits with the halt's code.",
    )
    .option("--engine <engine>", "local or cometbft (default: what the home was initialised for)")
    .option("--cometbft <path>", "the CometBFT v0.38 binary (default $XUPGRADE_COMETBFT, cometbft on PATH, or the `npm run peers` cache)")
    .option("--home <dir>", "devnet home directory (default ~/.xupgrade)")
    .option("--app <module>", "application definition module (upgrade handlers, module versions, migrations, store upgrades)")
    .option("--rpc <addr>", "CometBFT RPC listen address (default from the config: devnet.json, or CometBFT's config.toml)")
    .option("--rest <addr>", "REST listen address (default from the config)")
    .option("--grpc <addr>", "gRPC listen address (default from the config)")
    .option("--unsafe-skip-upgrades <heights>", "skip the upgrades scheduled at these heights (comma-separated, repeatable)", collect, [])
    .option("--block-time <duration>", "override the configured time between blocks (local engine)")
    .option("--halt-grace <duration>", "after a halt, the longest a CometBFT node stays up for its peers (default 1m; --engine cometbft)")
    .option("--log-level <level>", "debug, info, warn or error (default info); logs are JSON lines on stdout")
    .option("--core <backend>", "keeper core: wasm (default) or js")
    .option("--namespace <ns>", "upgrade query namespace (default cosmos)")
    .option(
      "--pruning <strategy>",
      "past heights kept for queries and proofs: default (the last 10000), nothing (all), everything (the last 2), custom (--pruning-keep-recent)",
    )
    .option("--pruning-keep-recent <n>", "with --pruning custom: heights kept besides the latest")
    .action(async (opts: StartOpts, cmd: Command) => {
      expectArgs(cmd, 0, 0);
      if (opts.logLevel !== undefined && !LOG_LEVELS.includes(opts.logLevel)) {
        throw new CliError(`invalid --log-level ${JSON.stringify(opts.logLevel)}: must be one of ${LOG_LEVELS.join(", ")}`);
      }
      if (opts.core !== undefined && opts.core !== "wasm" && opts.core !== "js")
        throw new CliError(`invalid --core ${JSON.stringify(opts.core)}: must be wasm or js`);
      if (opts.pruning !== undefined && !["default", "nothing", "everything", "custom"].includes(opts.pruning)) {
        throw new CliError(`invalid --pruning ${JSON.stringify(opts.pruning)}: must be default, nothing, everything or custom`);
      }
      const keepRecent = opts.pruningKeepRecent === undefined ? undefined : Number(integerValue("--pruning-keep-recent", opts.pruningKeepRecent, KEEP_RECENT));
      if (keepRecent !== undefined && opts.pruning !== "custom") throw new CliError("--pruning-keep-recent needs --pruning custom");
      const options: Devnet.StartDevnetOptions = {
        home: opts.home ?? defaultHome(),
        engine: parseEngine(opts.engine),
        cometbft: opts.cometbft,
        app: opts.app,
        rpc: opts.rpc,
        rest: opts.rest,
        grpc: opts.grpc,
        blockTime: durationText("block-time", opts.blockTime),
        haltGrace: durationText("halt-grace", opts.haltGrace, "margin"),
        backend: opts.core,
        namespace: opts.namespace,
        skipUpgradeHeights: parseSkipHeights(opts.unsafeSkipUpgrades),
        pruning: opts.pruning as Devnet.StartDevnetOptions["pruning"],
        pruningKeepRecent: keepRecent,
      };
      const devnet = await loadDevnet();
      if (opts.logLevel !== undefined) options.logger = devnet.jsonLogger(undefined, opts.logLevel as Devnet.LogLevel);
      let handle: Devnet.DevnetHandle;
      try {
        handle = await devnet.startDevnet(withoutUndefined(options));
      } catch (e) {
        throw new CliError(messageOf(e), devnet.exitCodeFor(e) || 1);
      }
      process.stderr.write(`devnet running: rpc ${handle.rpcUrl}, rest ${handle.restUrl}, grpc ${handle.grpcAddress}\n`);
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        Promise.resolve(handle.stop()).catch((e: unknown) => process.stderr.write(`Error: ${messageOf(e)}\n`));
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      const code = await handle.done;
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      throw new CliError("", typeof code === "number" ? code : 1);
    });

  devnet
    .command("rehearse")
    .summary("Rehearse an upgrade on a copy of a node's committed state, before the height")
    .description(
      "Do now, on a copy of the node's committed state, what the new binary (--app) will do at the upgrade height: the store loader's " +
        "StoreUpgrades, the start-up checks, PreBlock with the app's handler and every module migration, the block and its commit. " +
        "The snapshot is one committed height, served by the running node without stopping it (or copied from a stopped node's " +
        "database); the node's home is never written. Reports the plan, each module's versions and migration times, the keys added, " +
        "changed and deleted per store, the app hash before and after, and — when the upgrade would halt the node — the exact error. " +
        "Exits with the exit code the real upgrade would give: 0, or 20–25 (1 for a store loader error). The plan is the one scheduled " +
        "on chain unless --plan (and --height) name another, which is then scheduled on the copy.",
    )
    .option("--home <dir>", "the node's home (a devnet home, or a CometBFT node home; default ~/.xupgrade)")
    .option("--app <module>", "the new binary's application definition module (its upgrade handlers, migrations, store upgrades)")
    .option("--plan <name>", "the upgrade to rehearse (default: the plan scheduled on chain)")
    .option("--height <h>", "the upgrade height (default: the chain's plan's height; for another plan, two blocks after the snapshot)")
    .option("-o, --output <format>", "text or json (default text)")
    .option("--verbose", "show up to 5 keys added, changed and deleted per store (and, in JSON, the new binary's log lines)")
    .option("--core <backend>", "keeper core: wasm (default) or js")
    .option("--tmp-dir <dir>", "where the copy of the state is made (default: the system's temporary directory); it is removed afterwards")
    .option(
      "--snapshot <which>",
      "plan (default): with --plan and --height, the state the running node holds for that plan's rehearsals, if any; latest: the state now",
    )
    .action(async (opts: RehearseOpts, cmd: Command) => (await import("../devnet/rehearse.js")).rehearse(opts, cmd));
}
