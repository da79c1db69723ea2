/** The visor's own failures: the message is the whole, user-facing text (`Error: <message>`, exit 1). */
export class VisorError extends Error {
  override name = "VisorError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A release key of `DAEMON_DOWNLOAD_SIGNING_KEYS` that cannot be used (docs/spec/sidecar.md §7.5): not an
 * OpenSSH public key, not ed25519, not base64, a blob that says otherwise, a file that cannot be read, no key.
 */
export class SigningKeyError extends VisorError {
  override name = "SigningKeyError";
}

/** SSH wire bytes (RFC 4251 §5) that end early or run on: a key's or a signature's blob. */
export class SshEncodingError extends VisorError {
  override name = "SshEncodingError";
}
