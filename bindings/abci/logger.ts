/**
 * The server's logger is the project's one shape (base/logger.ts), so the keeper's and the devnet's loggers fit
 * as they are; `debug` gets every request received, connection by connection. Without one, warnings and
 * errors go to stderr and the rest is dropped.
 */
import type { LogFields, Logger } from "../base/logger.js";

/** Fills in the optional levels; a logger that throws is ignored (logging must not take the server down). */
export function completeLogger(logger: Logger | undefined): Required<Logger> {
  const l = logger ?? STDERR;
  const safe = (write: ((m: string, f?: LogFields) => void) | undefined) => (m: string, f?: LogFields) => {
    try {
      write?.call(l, m, f);
    } catch {
      /* ignored */
    }
  };
  return { info: safe(l.info), error: safe(l.error), warn: safe(l.warn ?? l.error), debug: safe(l.debug) };
}

const line = (message: string, fields: LogFields = {}) =>
  `abci: ${message}${Object.entries(fields)
    .map(([k, v]) => ` ${k}=${v instanceof Error ? JSON.stringify(v.message) : typeof v === "string" ? JSON.stringify(v) : String(v)}`)
    .join("")}\n`;

const STDERR: Logger = {
  info: () => {},
  warn: (m, f) => process.stderr.write(line(m, f)),
  error: (m, f) => process.stderr.write(line(m, f)),
};
