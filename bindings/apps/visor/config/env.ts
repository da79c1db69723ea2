/** The settings read from variables (the environment, or the TOML file under it), every problem collected. */
import { isAbsolute, normalize } from "node:path";
import { MS } from "../../../go/duration.js";
import { parseEnvDuration } from "../../../go/option.js";
import { goAtoi } from "../../../go/int.js";
import { TIME_FORMAT_NAMES, TIME_LAYOUTS } from "../../../go/time-layout.js";
import { DEFAULT_IDLE_MS, DEFAULT_MAX_BYTES, DEFAULT_MIN_RATE, DEFAULT_TIMEOUT_MS, limitsFromEnv } from "../../../module/plan-info/download.js";
import {
  DEFAULT_GRPC_ADDRESS,
  DEFAULT_POLL_INTERVAL,
  DEFAULT_RPC_ADDRESS,
  DEFAULT_RPC_POLL_INTERVAL,
  DEFAULT_SIGNATURE_NAMESPACE,
  DEFAULT_WEBHOOK_RETRIES,
  DEFAULT_WEBHOOK_TIMEOUT,
  ENV,
  type Source,
  type VisorConfig,
} from "./types.js";
import { messageOf } from "../../../base/errors.js";
import { parseHostPort } from "../../../base/host-port.js";
import { readSigningKeys } from "../download/ssh-key.js";

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
  try {
    return parseEnvDuration(name, raw);
  } catch (e) {
    errs.push(messageOf(e));
    return def;
  }
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
  errs.push(`env variable ${JSON.stringify(ENV.timeFormatLogs)} must have a timeformat value ("${TIME_FORMAT_NAMES.join("|")}"), got ${JSON.stringify(raw)}`);
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

/** The download limits: the module's parsers (one message each), durations kept in ns for `visor config`. */
function limitsOptions(src: Source, errs: string[]): { maxBytes: number; idle: bigint; timeout: bigint; minRate: number } {
  const out = { maxBytes: DEFAULT_MAX_BYTES, idle: BigInt(DEFAULT_IDLE_MS) * MS, timeout: BigInt(DEFAULT_TIMEOUT_MS) * MS, minRate: DEFAULT_MIN_RATE };
  const one = (name: string, take: (raw: string) => void) => {
    const raw = src[name];
    if (raw === undefined || raw === "") return;
    try {
      limitsFromEnv({ [name]: raw });
      take(raw);
    } catch (e) {
      errs.push(messageOf(e));
    }
  };
  one(ENV.downloadMaxBytes, (raw) => (out.maxBytes = Number(raw)));
  one(ENV.downloadIdleTimeout, (raw) => (out.idle = parseEnvDuration(ENV.downloadIdleTimeout, raw)));
  one(ENV.downloadTimeout, (raw) => (out.timeout = parseEnvDuration(ENV.downloadTimeout, raw)));
  one(ENV.downloadMinRate, (raw) => (out.minRate = Number(raw)));
  return out;
}

/** A non-negative integer option (`DAEMON_WEBHOOK_RETRIES`, `DAEMON_DATA_BACKUP_KEEP`). */
function countOption(src: Source, name: string, def: number, errs: string[]): number {
  const raw = src[name];
  if (raw === undefined || raw === "") return def;
  if (!/^[0-9]{1,9}$/.test(raw)) {
    errs.push(`invalid: ${name}: must be a non-negative integer, got ${JSON.stringify(raw)}`);
    return def;
  }
  return Number(raw);
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;

/** `DAEMON_HTTP_ADDRESS`: "" (off) or a loopback `host:port` — the endpoint is for this machine's monitoring only. */
function httpAddressOption(src: Source, errs: string[]): string {
  const raw = src[ENV.httpAddress] ?? "";
  if (raw === "") return "";
  let host: string;
  try {
    host = parseHostPort(raw).host;
  } catch {
    errs.push(`invalid: ${ENV.httpAddress}: ${JSON.stringify(raw)} is not host:port`);
    return raw;
  }
  if (!LOOPBACK.test(host)) errs.push(`invalid: ${ENV.httpAddress}: ${JSON.stringify(raw)} is not a loopback address (127.0.0.1, [::1] or localhost)`);
  return raw;
}

/** `DAEMON_WEBHOOK_URL`: http(s) URLs separated by commas. */
function webhookOption(src: Source, errs: string[]): string[] {
  const raw = src[ENV.webhookUrl] ?? "";
  const urls = raw
    .split(",")
    .map((u) => u.trim())
    .filter((u) => u !== "");
  for (const u of urls) {
    let ok = false;
    try {
      const parsed = new URL(u);
      ok = parsed.protocol === "http:" || parsed.protocol === "https:";
    } catch {
      /* below */
    }
    if (!ok) errs.push(`invalid: ${ENV.webhookUrl}: ${JSON.stringify(u)} is not an http:// or https:// URL`);
  }
  return urls;
}

/** `DAEMON_DOWNLOAD_SIGNING_KEYS`: the keys themselves, or an absolute path to a file of them. */
function signingKeysOption(src: Source, errs: string[]): string[] {
  const raw = src[ENV.downloadSigningKeys] ?? "";
  if (raw.trim() === "") return [];
  try {
    return readSigningKeys(raw).map((k) => k.line);
  } catch (e) {
    errs.push(`invalid: ${ENV.downloadSigningKeys}: ${messageOf(e)}`);
    return [];
  }
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
  const httpAddress = httpAddressOption(src, errs);
  const rpcPollInterval = durationOption(src, ENV.rpcPollInterval, DEFAULT_RPC_POLL_INTERVAL, errs);
  const webhookUrls = webhookOption(src, errs);
  const webhookRetries = countOption(src, ENV.webhookRetries, DEFAULT_WEBHOOK_RETRIES, errs);
  const webhookTimeout = durationOption(src, ENV.webhookTimeout, DEFAULT_WEBHOOK_TIMEOUT, errs);
  const dataBackupKeep = countOption(src, ENV.dataBackupKeep, 0, errs);
  const downloadSigningKeys = signingKeysOption(src, errs);
  const downloadSignatureNamespace = src[ENV.downloadSignatureNamespace] || DEFAULT_SIGNATURE_NAMESPACE;
  const rawImageFile = src[ENV.orchestratorImageFile] ?? "";
  if (rawImageFile !== "" && !isAbsolute(rawImageFile))
    errs.push(`invalid: ${ENV.orchestratorImageFile}: ${JSON.stringify(rawImageFile)} must be an absolute path`);
  const readiness = boolOption(src, ENV.readiness, false, errs);
  const prestart = boolOption(src, ENV.prestart, false, errs);
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
    downloadTimeout: limits.timeout,
    downloadMinRate: limits.minRate,
    httpAddress,
    rpcPollInterval,
    webhookUrls,
    webhookRetries,
    webhookTimeout,
    dataBackupKeep,
    downloadSigningKeys,
    downloadSignatureNamespace,
    orchestratorImageFile: rawImageFile,
    readiness,
    prestart,
  };
  return { cfg, errors: errs };
}
