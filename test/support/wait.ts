/** Polling with a bound: every wait in the suites goes through here, never a fixed sleep. */

/** Polls `fn` until it returns a value other than undefined/false, for at most `timeoutMs`. */
export async function waitUntil<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
