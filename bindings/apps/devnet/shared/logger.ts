/**
 * Structured logs: one JSON object per line, `{"level","time","module","msg",…fields}`; bigints become
 * decimal strings. It has the project's one Logger shape (base/logger.ts), so the same object is handed to
 * the upgrade keeper and the ABCI server.
 */
import type { Logger } from "../../../base/logger.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** JSON lines to `write` (default: process.stdout) at `level` and above. */
export function jsonLogger(write: (line: string) => void = (line) => process.stdout.write(line), level: LogLevel = "info"): Required<Logger> {
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

/** Fills in the optional methods of a caller's logger. */
export function fullLogger(logger: Logger | undefined): Required<Logger> {
  if (!logger) return jsonLogger();
  return {
    info: (m, f) => logger.info(m, f),
    error: (m, f) => logger.error(m, f),
    warn: (m, f) => (logger.warn ? logger.warn(m, f) : logger.info(m, f)),
    debug: (m, f) => logger.debug?.(m, f),
  };
}

/** A logger whose records all carry `module`. */
export function withModule(logger: Required<Logger>, module: string): Required<Logger> {
  return {
    debug: (m, f) => logger.debug(m, { module, ...f }),
    info: (m, f) => logger.info(m, { module, ...f }),
    warn: (m, f) => logger.warn(m, { module, ...f }),
    error: (m, f) => logger.error(m, { module, ...f }),
  };
}
