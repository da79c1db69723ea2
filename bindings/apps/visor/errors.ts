/** The visor's own failures: the message is the whole, user-facing text (`Error: <message>`, exit 1). */
export class VisorError extends Error {
  override name = "VisorError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
