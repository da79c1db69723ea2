/**
 * Telling people (docs/spec/sidecar.md §11): the visor's events, and who listens to them — the webhooks
 * (`DAEMON_WEBHOOK_URL`) and the metrics on the loopback endpoint (`DAEMON_HTTP_ADDRESS`). Each is imported
 * only when configured, so a visor that tells nobody loads none of it.
 */
import type { VisorConfig } from "../config/index.js";
import { ms } from "../config/index.js";
import type { VisorEndpoint } from "./endpoint.js";
import { VisorEvents } from "./events.js";
import type { VisorLogger } from "../log.js";

export interface Telling {
  events: VisorEvents;
  /** The endpoint, when DAEMON_HTTP_ADDRESS is set: other features register their routes on it. */
  endpoint?: VisorEndpoint;
  /** Waits (bounded) for webhook deliveries in flight, then closes the endpoint. */
  close(): Promise<void>;
}

/** At exit, how long deliveries in flight are waited for. */
const FLUSH_MS = 5000;

/** `endpoint: false` for the one-shot commands (`show-upgrade-info`): only `run` serves the endpoint. */
export async function startTelling(cfg: VisorConfig, log: VisorLogger, o: { currentUpgrade: string; endpoint?: boolean }): Promise<Telling> {
  const events = new VisorEvents();
  let endpoint: VisorEndpoint | undefined;
  let flush: ((ms: number) => Promise<void>) | undefined;
  if (cfg.httpAddress !== "" && o.endpoint !== false) {
    const { startEndpoint } = await import("./endpoint.js");
    const { VisorMetrics } = await import("./metrics.js");
    endpoint = await startEndpoint(cfg.httpAddress, log);
    const metrics = new VisorMetrics({ currentUpgrade: o.currentUpgrade });
    endpoint.route("/metrics", metrics.route);
    events.on(metrics.observe);
  }
  if (cfg.webhookUrls.length > 0) {
    const { Webhooks } = await import("./webhooks.js");
    const hooks = new Webhooks({
      urls: cfg.webhookUrls,
      retries: cfg.webhookRetries,
      timeoutMs: ms(cfg.webhookTimeout),
      log,
      daemon: cfg.name,
      home: cfg.home,
    });
    events.on(hooks.observe);
    flush = (t) => hooks.flush(t);
  }
  return {
    events,
    endpoint,
    close: async () => {
      await flush?.(FLUSH_MS);
      await endpoint?.close();
    },
  };
}
