/**
 * Structured logs: one JSON object per line, `{"level","time","module","msg",…fields}`; bigints become
 * decimal strings. The keeper's Logger interface (`info`/`error`) is a subset, so the same object is
 * handed to the upgrade keeper.
 */
import type { Logger } from "../../../module/keeper.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface DevnetLogger extends Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  debug?(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** JSON lines to `write` (default: process.stdout) at `level` and above. */
export function jsonLogger(
  write: (line: string) => void = (line) => process.stdout.write(line),
  level: LogLevel = "info",
): Required<DevnetLogger> {
  const min = ORDER[level];
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const record: Record<string, unknown> = { level: lvl, time: new Date().toISOString(), ...(fields ?? {}), msg };
    // Keep level, time, module and msg first for people reading the stream.
    const ordered: Record<string, unknown> = { level: record.level, time: record.time };
    if (record.module !== undefined) ordered.module = record.module;
    ordered.msg = msg;
    for (const [k, v] of Object.entries(record)) if (!(k in ordered)) ordered[k] = v;
    write(JSON.stringify(ordered, (_k, v) => (typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v)) + "\n");
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

export const silentLogger: Required<DevnetLogger> = { debug() {}, info() {}, warn() {}, error() {} };

/** Fills in the optional methods of a caller's logger. */
export function fullLogger(logger: DevnetLogger | undefined): Required<DevnetLogger> {
  if (!logger) return jsonLogger();
  return {
    info: (m, f) => logger.info(m, f),
    error: (m, f) => logger.error(m, f),
    warn: (m, f) => (logger.warn ? logger.warn(m, f) : logger.info(m, f)),
    debug: (m, f) => logger.debug?.(m, f),
  };
}

/** A logger whose records all carry `module`. */
export function withModule(logger: Required<DevnetLogger>, module: string): Required<DevnetLogger> {
  return {
    debug: (m, f) => logger.debug(m, { module, ...f }),
    info: (m, f) => logger.info(m, { module, ...f }),
    warn: (m, f) => logger.warn(m, { module, ...f }),
    error: (m, f) => logger.error(m, { module, ...f }),
  };
}
