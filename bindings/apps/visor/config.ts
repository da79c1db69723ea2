/**
 * The visor's configuration (sidecar.md §3): environment variables, optionally a TOML file underneath them
 * (`-c/--cosmovisor-config`, lower-case variable names, defaults for missing keys), every problem collected
 * and reported at once with cosmovisor's wording, and the `visor config` listing.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";
import { parse as parseToml } from "smol-toml";
import { formatGoDuration, parseGoDuration, MS } from "../../go/duration.js";
import { VisorError, messageOf } from "./errors.js";
import { DEFAULT_IDLE_MS, DEFAULT_MAX_BYTES, limitsFromEnv } from "../../module/plan-info/download.js";
import { TIME_FORMAT_NAMES, TIME_LAYOUTS } from "../../go/time-layout.js";
import { goAtoi } from "../../go/int.js";

export const ENV = {
  home: "DAEMON_HOME",
  name: "DAEMON_NAME",
  allowDownloadBinaries: "DAEMON_ALLOW_DOWNLOAD_BINARIES",
  downloadMustHaveChecksum: "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM",
  restartAfterUpgrade: "DAEMON_RESTART_AFTER_UPGRADE",
  restartDelay: "DAEMON_RESTART_DELAY",
  shutdownGrace: "DAEMON_SHUTDOWN_GRACE",
  pollInterval: "DAEMON_POLL_INTERVAL",
  unsafeSkipBackup: "UNSAFE_SKIP_BACKUP",
  dataBackupDir: "DAEMON_DATA_BACKUP_DIR",
  preupgradeMaxRetries: "DAEMON_PREUPGRADE_MAX_RETRIES",
  grpcAddress: "DAEMON_GRPC_ADDRESS",
  disableLogs: "COSMOVISOR_DISABLE_LOGS",
  colorLogs: "COSMOVISOR_COLOR_LOGS",
  timeFormatLogs: "COSMOVISOR_TIMEFORMAT_LOGS",
  customPreupgrade: "COSMOVISOR_CUSTOM_PREUPGRADE",
  disableRecase: "COSMOVISOR_DISABLE_RECASE",
  rpcAddress: "DAEMON_RPC_ADDRESS",
  downloadMaxBytes: "DAEMON_DOWNLOAD_MAX_BYTES",
  downloadIdleTimeout: "DAEMON_DOWNLOAD_IDLE_TIMEOUT",
} as const;

export const ENV_NAMES: readonly string[] = Object.values(ENV);

export interface VisorConfig {
  home: string;
  name: string;
  allowDownloadBinaries: boolean;
  downloadMustHaveChecksum: boolean;
  restartAfterUpgrade: boolean;
  /** Durations in nanoseconds; 0 = not set. */
  restartDelay: bigint;
  shutdownGrace: bigint;
  pollInterval: bigint;
  unsafeSkipBackup: boolean;
  dataBackupDir: string;
  preupgradeMaxRetries: number;
  grpcAddress: string;
  disableLogs: boolean;
  colorLogs: boolean;
  /** One of the twelve layout names, or "" for no timestamp. */
  timeFormatLogs: string;
  customPreupgrade: string;
  disableRecase: boolean;
  rpcAddress: string;
  downloadMaxBytes: number;
  downloadIdleTimeout: bigint;
}

export const DEFAULT_POLL_INTERVAL = 300n * MS;
export const DEFAULT_RPC_ADDRESS = "http://localhost:26657";
export const DEFAULT_GRPC_ADDRESS = "localhost:9090";

export const ROOT_NAME = "cosmovisor";

/** Durations as milliseconds for timers. */
export const ms = (ns: bigint): number => Number(ns / MS);

// ---- value parsers: each returns the value or pushes cosmovisor's message ----

type Source = Record<string, string | undefined>;

function boolOption(src: Source, name: string, def: boolean, errs: string[]): boolean {
  const raw = src[name];
  if (raw === undefined || raw === "") return def;
  const v = raw.toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  errs.push(`env variable ${JSON.stringify(name)} must have a boolean value ("true" or "false"), got ${JSON.stringify(v)}`);
  return def;
}

function durationOption(src: Source, name: string, def: bigint, errs: string[]): bigint {
  const raw = src[name];
  if (raw === undefined || raw === "") return def;
  let d: bigint;
  try {
    d = parseGoDuration(raw);
  } catch (e) {
    errs.push(`invalid: ${name}: could not parse '${raw}' into a duration: ${messageOf(e)}`);
    return def;
  }
  if (d <= 0n) {
    errs.push(`invalid: ${name}: must be greater than 0`);
    return def;
  }
  return d;
}

function retriesOption(src: Source, errs: string[]): number {
  const name = ENV.preupgradeMaxRetries;
  const raw = src[name];
  if (raw === undefined || raw === "") return 0;
  const parsed = goAtoi(raw);
  if (!parsed.ok) {
    errs.push(`${name} could not be parsed to int: ${parsed.error}`);
    return 0;
  }
  const n = Number(parsed.value);
  if (n < 0) {
    errs.push(`${name} must not be negative`);
    return 0;
  }
  return n;
}

function timeFormatOption(src: Source, errs: string[]): string {
  const raw = src[ENV.timeFormatLogs];
  if (raw === undefined) return "kitchen";
  if (raw === "" || TIME_LAYOUTS[raw] !== undefined) return raw;
  errs.push(
    `env variable ${JSON.stringify(ENV.timeFormatLogs)} must have a timeformat value ("${TIME_FORMAT_NAMES.join("|")}"), got ${JSON.stringify(raw)}`,
  );
  return "kitchen";
}

function rpcOption(src: Source, errs: string[]): string {
  const raw = src[ENV.rpcAddress];
  if (raw === undefined || raw === "") return DEFAULT_RPC_ADDRESS;
  const text = raw.startsWith("tcp://") ? "http://" + raw.slice(6) : raw;
  let ok = false;
  try {
    const u = new URL(text);
    ok = u.protocol === "http:" || u.protocol === "https:";
  } catch {
    /* below */
  }
  if (!ok) errs.push(`invalid: ${ENV.rpcAddress}: ${JSON.stringify(raw)} is not a tcp://, http:// or https:// URL`);
  return raw;
}

function limitsOptions(src: Source, errs: string[]): { maxBytes: number; idle: bigint } {
  let maxBytes = DEFAULT_MAX_BYTES;
  let idle = BigInt(DEFAULT_IDLE_MS) * MS;
  try {
    maxBytes = limitsFromEnv({ [ENV.downloadMaxBytes]: src[ENV.downloadMaxBytes] }).maxBytes;
  } catch (e) {
    errs.push(messageOf(e));
  }
  const raw = src[ENV.downloadIdleTimeout];
  if (raw !== undefined && raw !== "") {
    try {
      limitsFromEnv({ [ENV.downloadIdleTimeout]: raw });
      idle = parseGoDuration(raw);
    } catch (e) {
      errs.push(messageOf(e));
    }
  }
  return { maxBytes, idle };
}

/** An absolute path without a trailing slash (`/a/b/` → `/a/b`). */
function cleanPath(p: string): string {
  const n = normalize(p);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

/** Parses every variable; returns the configuration and the parse errors (validation is separate). */
export function parseConfig(src: Source): { cfg: VisorConfig; errors: string[] } {
  const errs: string[] = [];
  const rawHome = src[ENV.home] ?? "";
  const home = rawHome !== "" && isAbsolute(rawHome) ? cleanPath(rawHome) : rawHome;
  const allowDownloadBinaries = boolOption(src, ENV.allowDownloadBinaries, false, errs);
  const downloadMustHaveChecksum = boolOption(src, ENV.downloadMustHaveChecksum, false, errs);
  const restartAfterUpgrade = boolOption(src, ENV.restartAfterUpgrade, true, errs);
  const unsafeSkipBackup = boolOption(src, ENV.unsafeSkipBackup, false, errs);
  const disableLogs = boolOption(src, ENV.disableLogs, false, errs);
  const colorLogs = boolOption(src, ENV.colorLogs, true, errs);
  const timeFormatLogs = timeFormatOption(src, errs);
  const disableRecase = boolOption(src, ENV.disableRecase, false, errs);
  const pollInterval = durationOption(src, ENV.pollInterval, DEFAULT_POLL_INTERVAL, errs);
  const shutdownGrace = durationOption(src, ENV.shutdownGrace, 0n, errs);
  const restartDelay = durationOption(src, ENV.restartDelay, 0n, errs);
  const preupgradeMaxRetries = retriesOption(src, errs);
  const rpcAddress = rpcOption(src, errs);
  const limits = limitsOptions(src, errs);
  const rawBackup = src[ENV.dataBackupDir];
  const dataBackupDir = rawBackup === undefined || rawBackup === "" ? home : isAbsolute(rawBackup) ? cleanPath(rawBackup) : rawBackup;
  const cfg: VisorConfig = {
    home,
    name: src[ENV.name] ?? "",
    allowDownloadBinaries,
    downloadMustHaveChecksum,
    restartAfterUpgrade,
    restartDelay,
    shutdownGrace,
    pollInterval,
    unsafeSkipBackup,
    dataBackupDir,
    preupgradeMaxRetries,
    grpcAddress: src[ENV.grpcAddress] || DEFAULT_GRPC_ADDRESS,
    disableLogs,
    colorLogs,
    timeFormatLogs,
    customPreupgrade: src[ENV.customPreupgrade] ?? "",
    disableRecase,
    rpcAddress,
    downloadMaxBytes: limits.maxBytes,
    downloadIdleTimeout: limits.idle,
  };
  return { cfg, errors: errs };
}

function statError(e: unknown, path: string): string {
  const code = (e as { code?: string }).code;
  const text: Record<string, string> = { ENOENT: "no such file or directory", EACCES: "permission denied", ENOTDIR: "not a directory" };
  return `stat ${path}: ${(code && text[code]) ?? messageOf(e)}`;
}

/** cosmovisor's Config.validate: name, home and its `cosmovisor/` root, and the backup directory when backups are on. */
export function validateConfig(cfg: VisorConfig): string[] {
  const errs: string[] = [];
  if (cfg.name === "") errs.push(`${ENV.name} is not set`);
  if (cfg.home === "") errs.push(`${ENV.home} is not set`);
  else if (!isAbsolute(cfg.home)) errs.push(`${ENV.home} must be an absolute path`);
  else {
    const root = join(cfg.home, ROOT_NAME);
    try {
      if (!statSync(root).isDirectory()) errs.push(`${root} is not a directory`);
    } catch (e) {
      errs.push(`cannot stat home dir: ${statError(e, root)}`);
    }
  }
  if (cfg.unsafeSkipBackup) return errs;
  if (cfg.dataBackupDir === "") errs.push(`${ENV.dataBackupDir} must not be empty`);
  else if (!isAbsolute(cfg.dataBackupDir)) errs.push(`${cfg.dataBackupDir} must be an absolute path`);
  else {
    try {
      if (!statSync(cfg.dataBackupDir).isDirectory()) errs.push(`${JSON.stringify(cfg.dataBackupDir)} must be a valid directory`);
    } catch (e) {
      errs.push(`${JSON.stringify(cfg.dataBackupDir)} must be a valid directory: ${statError(e, cfg.dataBackupDir)}`);
    }
  }
  return errs;
}

/** The TOML file's values as variable → text (keys are the lower-case variable names). */
export function readConfigFile(path: string): Source {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new VisorError(`failed to read config file ${JSON.stringify(path)}: ${statError(e, path).replace(/^stat /, "open ")}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new VisorError(`failed to parse config file ${JSON.stringify(path)}: ${messageOf(e).split("\n")[0]}`);
  }
  const out: Source = {};
  for (const name of ENV_NAMES) {
    const v = doc[name.toLowerCase()];
    if (v === undefined || v === null) continue;
    if (typeof v === "string" || typeof v === "boolean" || typeof v === "number" || typeof v === "bigint") out[name] = String(v);
    else throw new VisorError(`invalid config file ${JSON.stringify(path)}: ${name.toLowerCase()} must be a string, a boolean or a number`);
  }
  return out;
}

/**
 * The file's values under the environment's: a variable set (non-empty) in the environment wins; missing
 * everywhere → the default.
 */
export function mergeSources(file: Source, env: Source): Source {
  const out: Source = {};
  for (const name of ENV_NAMES) {
    const e = env[name];
    out[name] = e !== undefined && (e !== "" || file[name] === undefined) ? e : file[name];
  }
  return out;
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** `-c/--cosmovisor-config`; "" or undefined: environment only. */
  configFile?: string;
  /** Skip Config.validate (init: the root does not exist yet). */
  validate?: boolean;
}

/** The configuration, or one VisorError listing every problem (one per line). */
export function loadConfig(o: LoadOptions = {}): VisorConfig {
  const env = (o.env ?? process.env) as Source;
  const src = o.configFile ? mergeSources(readConfigFile(o.configFile), env) : env;
  const { cfg, errors } = parseConfig(src);
  if (o.validate !== false) errors.push(...validateConfig(cfg));
  if (errors.length > 0) throw new VisorError(errors.join("\n"));
  return cfg;
}

/** `visor config`: every value, then the derived paths. */
export function detailString(cfg: VisorConfig): string {
  const root = join(cfg.home, ROOT_NAME);
  const lines = [
    "Configurable Values:",
    `  ${ENV.home}: ${cfg.home}`,
    `  ${ENV.name}: ${cfg.name}`,
    `  ${ENV.allowDownloadBinaries}: ${cfg.allowDownloadBinaries}`,
    `  ${ENV.downloadMustHaveChecksum}: ${cfg.downloadMustHaveChecksum}`,
    `  ${ENV.restartAfterUpgrade}: ${cfg.restartAfterUpgrade}`,
    `  ${ENV.restartDelay}: ${formatGoDuration(cfg.restartDelay)}`,
    `  ${ENV.shutdownGrace}: ${formatGoDuration(cfg.shutdownGrace)}`,
    `  ${ENV.pollInterval}: ${formatGoDuration(cfg.pollInterval)}`,
    `  ${ENV.unsafeSkipBackup}: ${cfg.unsafeSkipBackup}`,
    `  ${ENV.dataBackupDir}: ${cfg.dataBackupDir}`,
    `  ${ENV.preupgradeMaxRetries}: ${cfg.preupgradeMaxRetries}`,
    `  ${ENV.grpcAddress}: ${cfg.grpcAddress}`,
    `  ${ENV.disableLogs}: ${cfg.disableLogs}`,
    `  ${ENV.colorLogs}: ${cfg.colorLogs}`,
    `  ${ENV.timeFormatLogs}: ${cfg.timeFormatLogs}`,
    `  ${ENV.customPreupgrade}: ${cfg.customPreupgrade}`,
    `  ${ENV.disableRecase}: ${cfg.disableRecase}`,
    `  ${ENV.rpcAddress}: ${cfg.rpcAddress}`,
    `  ${ENV.downloadMaxBytes}: ${cfg.downloadMaxBytes}`,
    `  ${ENV.downloadIdleTimeout}: ${formatGoDuration(cfg.downloadIdleTimeout)}`,
    "Derived Values:",
    `        Root Dir: ${root}`,
    `     Upgrade Dir: ${join(root, "upgrades")}`,
    `     Genesis Bin: ${join(root, "genesis", "bin", cfg.name)}`,
    `  Monitored File: ${join(cfg.home, "data", "upgrade-info.json")}`,
    ` Data Backup Dir: ${cfg.dataBackupDir}`,
  ];
  return lines.join("\n") + "\n";
}
