/**
 * The server's logger: the keeper's and the devnet's loggers fit as they are (`info`/`error`, optional
 * `warn`/`debug`). Without one, warnings and errors go to stderr and the rest is dropped.
 */
export type LogFields = Record<string, unknown>;

export interface AbciLogger {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  warn?(message: string, fields?: LogFields): void;
  /** Every request received, connection by connection (off unless the logger has it). */
  debug?(message: string, fields?: LogFields): void;
}

/** Fills in the optional levels; a logger that throws is ignored (logging must not take the server down). */
export function completeLogger(logger: AbciLogger | undefined): Required<AbciLogger> {
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

const STDERR: AbciLogger = {
  info: () => {},
  warn: (m, f) => process.stderr.write(line(m, f)),
  error: (m, f) => process.stderr.write(line(m, f)),
};
