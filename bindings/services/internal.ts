/**
 * Unexpected errors, the one rule every server of the project follows (docs/spec/interfaces.md §12.1): an error
 * nobody worded for the wire — a host bug, a failed file read, a TypeError from a keeper — is answered as
 * the bare text `internal error` (gRPC INTERNAL, REST 500 `{"code":13,…}`, ABCI `undefined`/1 `internal` as
 * the SDK's ABCIInfo redacts it, JSON-RPC -32603 with data `internal error`), and its detail (message,
 * stack, paths) goes to the server's log through an {@link InternalErrorReporter}, never into the answer.
 *
 * Errors that are part of the wire (docs/spec/interfaces.md §2–§5: `codespace upgrade code 2: …`, `Not Implemented`,
 * the height errors, JSON-RPC method errors) are worded where they arise and pass unchanged.
 */

/** The whole text of an answer to an unexpected error. */
export const INTERNAL_MESSAGE = "internal error";

/** ABCI's answer to an unexpected error: the SDK's redacted `errInternal` (ABCIInfo without debug). */
export const INTERNAL_ABCI = { codespace: "undefined", code: 1, log: "internal" } as const;

/**
 * Told about every unexpected error a server answered with {@link INTERNAL_MESSAGE}: the error as thrown
 * and which surface answered (`grpc`, `rest`, `abci`, `rpc`, `rest /ui`, …).
 */
export type InternalErrorReporter = (error: unknown, surface: string) => void;

/** The detail of an error for a log line: its stack when it has one, else its text. */
export function errorDetail(error: unknown): string {
  if (error instanceof Error) {
    const own = error.stack ?? `${error.name}: ${error.message}`;
    return error.cause === undefined ? own : `${own}\ncaused by: ${errorDetail(error.cause)}`;
  }
  try {
    return typeof error === "string" ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    return String(error);
  }
}

/** The default reporter: one line on stderr (a host with a logger passes its own, e.g. `onInternalError`). */
export const reportToStderr: InternalErrorReporter = (error, surface) => {
  process.stderr.write(`xupgrade ${surface}: unexpected error answered as "${INTERNAL_MESSAGE}": ${errorDetail(error).replaceAll("\n", "\\n")}\n`);
};

/** Calls `report`, never letting a failing reporter turn into another unexpected error. */
export function safeReport(report: InternalErrorReporter, error: unknown, surface: string): void {
  try {
    report(error, surface);
  } catch {
    /* a broken logger must not break the answer */
  }
}
