/**
 * One webhook delivery: a body POSTed to a URL, each attempt bounded by a timeout, retried after a failure (a
 * non-2xx answer, a refused connection, no answer in time) up to `retries` times with a doubling pause (the
 * first `backoffMs`, at most `maxBackoffMs`), cut short when `signal` fires. What is sent and what a result
 * means belong to the caller (the visor's webhooks, the watch's alerts); this is only the sending.
 */
import { sleep } from "./sleep.js";

export interface PostRetryOptions {
  body: string;
  headers: Record<string, string>;
  /** Attempts after the first. */
  retries: number;
  timeoutMs: number;
  backoffMs: number;
  maxBackoffMs: number;
  /** Stops the delivery: the attempt in flight is aborted, no pause or attempt follows. */
  signal: AbortSignal;
  /** Told after each failed attempt that was not stopped, before the pause. */
  onFailure?: (attempt: number, problem: string) => void;
}

/**
 * `sent`: answered 2xx. `failed`: every attempt failed, `problem` the last one's. `stopped`: the signal fired
 * first, `problem` the last failed attempt's ("" when none had failed).
 */
export type PostOutcome =
  | { kind: "sent"; attempts: number; status: number }
  | { kind: "failed"; attempts: number; problem: string }
  | { kind: "stopped"; attempts: number; problem: string };

/** Why an attempt failed, in a few words (`HTTP 500`, `ECONNREFUSED`, `no answer within 200 ms`). */
function problemOf(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (err.cause?.code ?? err.cause?.message ?? err.message);
}

export async function postWithRetries(url: string, o: PostRetryOptions): Promise<PostOutcome> {
  let pause = o.backoffMs;
  let problem = "";
  for (let attempt = 1; ; attempt++) {
    if (o.signal.aborted) return { kind: "stopped", attempts: attempt - 1, problem };
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: o.headers,
        body: o.body,
        signal: AbortSignal.any([AbortSignal.timeout(o.timeoutMs), o.signal]),
      });
      // The answer's body is read and dropped, so the connection is released.
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { kind: "sent", attempts: attempt, status: res.status };
      problem = `HTTP ${res.status}`;
    } catch (e) {
      if (o.signal.aborted) return { kind: "stopped", attempts: attempt, problem };
      problem = problemOf(e, o.timeoutMs);
    }
    o.onFailure?.(attempt, problem);
    if (attempt > o.retries) return { kind: "failed", attempts: attempt, problem };
    try {
      await sleep(pause, o.signal);
    } catch {
      return { kind: "stopped", attempts: attempt, problem };
    }
    pause = Math.min(o.maxBackoffMs, pause * 2);
  }
}
