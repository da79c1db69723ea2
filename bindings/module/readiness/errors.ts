/**
 * Why a vote extension, an attestation or a stored readiness value is refused (docs/spec/readiness.md §2.2):
 * one kind per check, each with its own message, as CometBFT's light client names its checks.
 */
export type ReadinessErrorKind =
  | "too-large"
  | "malformed"
  | "not-canonical"
  | "plan-name"
  | "plan-height"
  | "platform"
  | "binary-sha256"
  | "rehearsal"
  | "app-hash"
  | "exit-code"
  | "snapshot-height"
  | "binary-version"
  | "corrupt";

export class ReadinessError extends Error {
  override readonly name = "ReadinessError";
  constructor(
    readonly kind: ReadinessErrorKind,
    message: string,
  ) {
    super(message);
  }
}
