/** The message of anything thrown, without a stack: an Error's message, anything else as text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
