/**
 * The CLI's one error type. Every failure ends as one `Error: <message>` line on stderr and exit code 1
 * (docs/spec/interfaces.md §7); `exitCode` differs only for the devnet, which exits with the node's own code.
 */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export const fail = (message: string): never => {
  throw new CliError(message);
};
