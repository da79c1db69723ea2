/**
 * Sends the ledger's pending deliveries (docs/spec/watch.md §6.3): one worker per webhook, in the order the alerts
 * were made, each POST retried after a failure (not 2xx, refused, no answer within the timeout) with a doubling
 * pause (the first `backoffMs`, at most 5 min) up to `retries` times, then marked failed with the reason. Workers
 * run beside the watch loop — making an alert only wakes them — so a slow or dead receiver never holds a poll.
 * Each request carries the alert's id (`Idempotency-Key`, and in the body) so a receiver can drop the one
 * duplicate a crash between its answer and the ledger's write could cause. The sending itself is the project's
 * one (base/post-retry.ts); the ledger is this file's.
 */
import { postWithRetries } from "../../base/post-retry.js";
import { sleep } from "../../base/sleep.js";
import type { WebhookConfig } from "./config.js";
import type { Ledger } from "./ledger.js";
import { payload } from "./payloads.js";

export interface DeliveryOptions {
  hooks: readonly WebhookConfig[];
  ledger: Ledger;
  /** Writes the ledger (atomically); awaited after each change. */
  persist: () => Promise<void>;
  retries: number;
  backoffMs: number;
  timeoutMs: number;
  onDelivered?: (hook: string, id: string, ok: boolean, detail: string) => void;
}

const MAX_BACKOFF_MS = 300_000;

/** The key a webhook's deliveries are kept under: its URL, its format, and Telegram's chat. */
export const hookKey = (h: Pick<WebhookConfig, "url" | "format" | "chatId">) => `${h.format}:${h.url}${h.chatId ? `#${h.chatId}` : ""}`;

/** Whether an alert of `chain` goes to a webhook. */
export const hookTakes = (h: WebhookConfig, chain: string) => !h.chains || h.chains.includes(chain);

/** A URL for messages: Telegram's carries the bot token, which is never printed. */
export const redactUrl = (url: string) => url.replace(/\/bot[^/]+\//, "/bot<token>/");

export class Dispatcher {
  private readonly stop = new AbortController();
  private readonly workers = new Map<string, Promise<void>>();
  private readonly wake = new Map<string, () => void>();
  /** Workers kicked since they last looked at the ledger (a kick between the look and the wait is not lost). */
  private readonly kicked = new Set<string>();

  constructor(private readonly o: DeliveryOptions) {
    for (const h of o.hooks) this.workers.set(hookKey(h), this.work(h));
  }

  /** Wakes every worker: new alerts are pending. Returns at once. */
  kick(): void {
    for (const h of this.o.hooks) this.kicked.add(hookKey(h));
    for (const w of this.wake.values()) w();
  }

  private async work(h: WebhookConfig): Promise<void> {
    const key = hookKey(h);
    while (!this.stop.signal.aborted) {
      this.kicked.delete(key);
      const next = this.o.ledger.pending(key)[0];
      if (!next) {
        if (this.kicked.has(key)) continue;
        // One listener per wait, removed when the wait ends: a long-running watch waits here forever.
        await new Promise<void>((r) => {
          const onAbort = () => r();
          this.wake.set(key, () => {
            this.stop.signal.removeEventListener("abort", onAbort);
            r();
          });
          this.stop.signal.addEventListener("abort", onAbort, { once: true });
        });
        continue;
      }
      await this.deliver(h, key, next.alert.id, JSON.stringify(payload(next.alert, h)));
    }
  }

  private async deliver(h: WebhookConfig, key: string, id: string, body: string): Promise<void> {
    const out = await postWithRetries(h.url, {
      body,
      headers: { "content-type": "application/json", "user-agent": "xupgrade-watch", "idempotency-key": id },
      retries: this.o.retries,
      timeoutMs: this.o.timeoutMs,
      backoffMs: this.o.backoffMs,
      maxBackoffMs: MAX_BACKOFF_MS,
      signal: this.stop.signal,
      onFailure: (attempt, problem) => this.o.ledger.update(id, key, { state: "pending", attempts: attempt, error: problem }),
    });
    if (out.kind === "stopped") return; // still pending: the next start sends it
    if (out.kind === "sent") {
      this.o.ledger.update(id, key, { state: "sent", attempts: out.attempts, sentAt: Date.now() });
      await this.o.persist();
      this.o.onDelivered?.(key, id, true, `HTTP ${out.status}`);
      return;
    }
    this.o.ledger.update(id, key, { state: "failed", attempts: out.attempts, error: out.problem });
    await this.o.persist();
    this.o.onDelivered?.(key, id, false, out.problem);
  }

  /** Lets the deliveries in flight finish for at most `ms`, then stops every worker (what is pending stays pending). */
  async close(ms: number): Promise<void> {
    const idle = () => [...this.workers.keys()].every((k) => this.o.ledger.pending(k).length === 0);
    const deadline = Date.now() + ms;
    while (!idle() && Date.now() < deadline) await sleep(20);
    this.stop.abort();
    await Promise.all(this.workers.values());
  }
}
