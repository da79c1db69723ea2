/**
 * The one logger shape every part of the project accepts: `info` and `error`, and optionally `warn` and
 * `debug`, each a message with structured fields. The keeper, the ABCI server, the devnet and the sidecar
 * all take it, so one object can be handed to each (the devnet's JSON logger, the visor's console logger).
 */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  warn?(message: string, fields?: LogFields): void;
  debug?(message: string, fields?: LogFields): void;
}

/** A logger that drops everything. */
export const silentLogger: Required<Logger> = { debug() {}, info() {}, warn() {}, error() {} };
