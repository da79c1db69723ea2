/**
 * The operator's upgrade desk (docs/spec/watch.md): `xupgrade watch` as a library — many chains followed by the
 * verified light client, an ETA band from verified header times, alerts delivered exactly once, calendar feeds,
 * the fleet view's rows and Prometheus metrics.
 */
export { Watch, type WatchOptions } from "./watch.js";
export { chainLink } from "./link.js";
export {
  parseWatchConfig,
  registryRefs,
  DEFAULT_LEADS,
  WEBHOOK_FORMATS,
  type ChainConfig,
  type WatchConfig,
  type WebhookConfig,
  type WebhookFormat,
} from "./config.js";
export { loadWatchConfig } from "./config-file.js";
export { registryChain, type RegistryChain } from "./registry.js";
export { WatchConfigError, WatchStateError } from "./errors.js";
export { etaBand, quantile, timeAt, cleanHistory, MIN_ANALOGS, type EtaBand, type HeaderTime } from "./eta.js";
export { HeaderHistory } from "./history.js";
export { ChainFollower, type FollowerOptions } from "./follower.js";
export type { ChainSnapshot, ChainStatus, PlanFact, ReadinessFact, VisorFact } from "./snapshot.js";
export { dueAlerts, emptyMemory, leadText, ALERT_KINDS, type Alert, type AlertKind, type AlertRules, type ChainMemory } from "./alerts.js";
export { payload, alertJson } from "./payloads.js";
export { Ledger, type LedgerEntry, type Delivery } from "./ledger.js";
export { Dispatcher, hookKey } from "./delivery.js";
export { renderCalendar, publish, eventUid, type CalendarEvent, type CalendarMemory } from "./ics.js";
export { fleetRow, type FleetJson, type FleetRowJson } from "./fleet.js";
export { WatchMetrics } from "./metrics.js";
export { WatchState } from "./state.js";
