/**
 * Webhooks (docs/spec/sidecar.md §11.1): each stage of an upgrade POSTed as JSON to every URL of
 * `DAEMON_WEBHOOK_URL`, in order per URL, each delivery retried after a failure (a non-2xx answer, a refused
 * connection, no answer within `DAEMON_WEBHOOK_TIMEOUT`) at most `DAEMON_WEBHOOK_RETRIES` times with a
 * doubling pause (0.5 s, 1 s, 2 s, … at most 10 s), then given up with a warning. A delivery never holds the
 * upgrade: they run beside it, and at exit the visor waits for the ones in flight for a bounded time.
 * Loaded only when a URL is configured. The sending itself is the project's one (base/post-retry.ts).
 *
 * The body: `{"event":"halt","time":"2026-…Z","plan":{"name":"v2","height":"1234"},"details":{…},
 * "daemon":"<DAEMON_NAME>","home":"<DAEMON_HOME>","host":"<hostname>"}` (heights as strings, as the SDK's JSON).
 */
import { hostname } from "node:os";
import { postWithRetries } from "../../../base/post-retry.js";
import { isStage, type VisorEvent } from "./events.js";
import type { VisorLogger } from "../log.js";

export interface WebhookOptions {
  urls: readonly string[];
  retries: number;
  timeoutMs: number;
  log: VisorLogger;
  daemon: string;
  home: string;
  /** The first pause between attempts (default 500 ms; tests shorten it). */
  backoffMs?: number;
}

const MAX_BACKOFF_MS = 10_000;

function webhookBody(e: VisorEvent, o: Pick<WebhookOptions, "daemon" | "home">): string {
  return JSON.stringify({
    event: e.stage,
    time: new Date(e.at).toISOString(),
    plan: e.plan ? { name: e.plan.name, height: e.plan.height.toString() } : null,
    details: e.details,
    daemon: o.daemon,
    home: o.home,
    host: hostname(),
  });
}

export class Webhooks {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly stop = new AbortController();

  constructor(private readonly o: WebhookOptions) {}

  /** An events.ts listener: stages are delivered, observations are not. */
  readonly observe = (e: VisorEvent): void => {
    if (!isStage(e.stage)) return;
    const body = webhookBody(e, this.o);
    for (const url of this.o.urls) {
      const prev = this.queues.get(url) ?? Promise.resolve();
      this.queues.set(
        url,
        prev.then(() => this.deliver(url, e.stage, body)),
      );
    }
  };

  private async deliver(url: string, event: string, body: string): Promise<void> {
    const out = await postWithRetries(url, {
      body,
      headers: { "content-type": "application/json", "user-agent": "xupgrade-visor" },
      retries: this.o.retries,
      timeoutMs: this.o.timeoutMs,
      backoffMs: this.o.backoffMs ?? 500,
      maxBackoffMs: MAX_BACKOFF_MS,
      signal: this.stop.signal,
    });
    if (out.kind === "sent") return;
    this.o.log.warn(`webhook ${event} not delivered`, { url, attempts: out.attempts, err: out.problem || "stopped" });
  }

  /** Waits for the deliveries in flight, at most `ms`; then stops them. */
  async flush(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.queues.values()), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
    this.stop.abort();
    await Promise.all(this.queues.values());
  }
}
