/**
 * `xupgrade watch` as a library (docs/spec/watch.md): every chain of the config followed by its own loop
 * (./follower.ts) — one chain's slow node never holds another's — each verified snapshot turned into alerts
 * (./alerts.ts) written to the ledger before anything is sent (./ledger.ts), delivered beside the loops
 * (./delivery.ts), the calendar events republished as the ETA moves (./ics.ts), the metrics updated, and the
 * state written atomically (./state.ts). Served over HTTP when `listen` is set (./server.ts).
 *
 *   const watch = await Watch.start({ config, stateDir });
 *   watch.fleet();          // the rows
 *   await watch.stop();     // loops stopped, deliveries in flight finished (bounded), state written
 */
import { sleep } from "../../base/sleep.js";
import type { Logger } from "../../base/logger.js";
import { silentLogger } from "../../base/logger.js";
import type { LightProvider } from "../../light/provider.js";
import { dueAlerts, type AlertRules } from "./alerts.js";
import { chainEvents } from "./calendar.js";
import type { ChainConfig, WatchConfig } from "./config.js";
import { Dispatcher, hookKey, hookTakes, redactUrl } from "./delivery.js";
import { fleetRow, type FleetJson } from "./fleet.js";
import { ChainFollower } from "./follower.js";
import { HeaderHistory } from "./history.js";
import { chainLink } from "./link.js";
import { publish, renderCalendar } from "./ics.js";
import { Ledger } from "./ledger.js";
import { WatchMetrics } from "./metrics.js";
import { startWatchServer, type WatchServer } from "./server.js";
import type { ChainSnapshot } from "./snapshot.js";
import { WatchState } from "./state.js";
import { visorReader } from "./visor.js";

export interface WatchOptions {
  config: WatchConfig;
  /** Where the state lives (the config's `state_dir` unless given). */
  stateDir: string;
  /** host:port to serve on (the config's `listen` unless given; none: no server). */
  listen?: string;
  uiDir?: string;
  log?: Logger;
  now?: () => number;
  /** Providers for nodes and witnesses (tests); default RPC over HTTP. */
  provider?: (url: string) => LightProvider;
  /** Per RPC call (default 15 s). */
  timeoutMs?: number;
  /** Run only `rounds` polls of each chain, then stop polling (`--once`: 1). */
  rounds?: number;
}

interface Followed {
  chain: ChainConfig;
  follower: ChainFollower;
  history: HeaderHistory;
  snapshot?: ChainSnapshot;
  historySavedAt: number;
}

export class Watch {
  private readonly followed: Followed[];
  private readonly ledger: Ledger;
  private readonly dispatcher: Dispatcher;
  readonly metrics = new WatchMetrics();
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  private server?: WatchServer;
  private readonly rules: AlertRules;
  private readonly log: Logger;
  private readonly now: () => number;
  private polls = 0;
  private readonly pollWaiters: (() => void)[] = [];

  private constructor(
    readonly o: WatchOptions,
    readonly state: WatchState,
  ) {
    const cfg = o.config;
    this.log = o.log ?? silentLogger;
    this.now = o.now ?? Date.now;
    this.rules = {
      leadsMs: cfg.leadsMs,
      readinessThreshold: cfg.readinessThreshold,
      readinessWithinMs: cfg.readinessWithinMs,
      stillHaltedAfterMs: cfg.stillHaltedAfterMs,
      lateAfterMs: 2 * cfg.pollMs + 5_000,
      pollMs: cfg.pollMs,
    };
    this.ledger = new Ledger(state.alerts);
    this.followed = cfg.chains.map((chain) => {
      const history = new HeaderHistory(cfg.historyWindowMs, state.history(chain.name));
      const memory = state.memory(chain.name);
      const follower = new ChainFollower({
        chain,
        store: state,
        history,
        maxAgeMs: cfg.maxAgeMs,
        timeoutMs: o.timeoutMs,
        following: memory.plan && { name: memory.plan.name, height: BigInt(memory.plan.height) },
        visor: chain.visor ? visorReader(chain.visor) : undefined,
        now: this.now,
        provider: o.provider,
      });
      return { chain, follower, history, historySavedAt: 0 };
    });
    this.dispatcher = new Dispatcher({
      hooks: cfg.webhooks,
      ledger: this.ledger,
      persist: () => this.persist(),
      retries: cfg.retries,
      backoffMs: cfg.backoffMs,
      timeoutMs: cfg.timeoutMs,
      onDelivered: (hook, id, ok, detail) => {
        this.metrics.delivered(ok);
        (ok ? this.log.info : (this.log.warn ?? this.log.error)).call(this.log, ok ? "alert delivered" : "alert not delivered", {
          id,
          webhook: redactUrl(hook),
          detail,
        });
      },
    });
  }

  static async start(o: WatchOptions): Promise<Watch> {
    const watch = new Watch(o, WatchState.open(o.stateDir));
    const listen = o.listen ?? o.config.listen;
    if (listen) {
      watch.server = await startWatchServer(
        listen,
        {
          fleet: () => JSON.stringify(watch.fleet(), null, 1),
          calendar: (c) => watch.calendar(c),
          metrics: async () => ({ type: watch.metrics.registry.contentType, text: await watch.metrics.text() }),
        },
        { uiDir: o.uiDir, onError: (e) => watch.log.error("serving", { err: (e as Error).message }) },
      );
      watch.log.info(`serving the fleet view at ${watch.server.url}/fleet.html`);
    }
    // Deliveries left pending by the last run go out now, in their order.
    watch.dispatcher.kick();
    for (const c of o.config.chains) {
      if (c.withoutWitnesses)
        watch.log.warn?.(`${c.name}: no witness (without_witnesses = true): verified against one node, which could show a fork unnoticed`);
      if (c.trustOnFirstUse) watch.log.warn?.(`${c.name}: trust on first use: until a trust root is given, everything about it is UNCONFIRMED`);
    }
    watch.loops = watch.followed.map((f) => watch.loop(f));
    return watch;
  }

  /** The server's base URL, when it serves. */
  get url(): string | undefined {
    return this.server?.url;
  }

  private persist(): Promise<void> {
    this.state.alerts = this.ledger.entries;
    return this.state.flush();
  }

  private async loop(f: Followed): Promise<void> {
    for (let round = 0; !this.stopping.signal.aborted && (this.o.rounds === undefined || round < this.o.rounds); round++) {
      try {
        await this.pollOnce(f);
      } catch (e) {
        this.log.error(`${f.chain.name}: poll failed`, { err: (e as Error).message });
      }
      this.polls++;
      for (const w of this.pollWaiters.splice(0)) w();
      if (this.o.rounds !== undefined && round + 1 >= this.o.rounds) break;
      await sleep(this.o.config.pollMs, this.stopping.signal).catch(() => undefined);
    }
  }

  /** Resolves after `n` more polls (of any chain) have finished. */
  async polled(n = 1): Promise<void> {
    const target = this.polls + n;
    while (this.polls < target) await new Promise<void>((r) => this.pollWaiters.push(r));
  }

  private async pollOnce(f: Followed): Promise<void> {
    const snap = await f.follower.poll();
    if (this.stopping.signal.aborted) return;
    f.snapshot = snap;
    this.metrics.observe(snap);
    const name = f.chain.name;
    if (snap.status !== "verified") this.log.warn?.(`${name}: ${snap.status}`, { check: snap.failure?.check, err: snap.failure?.message });
    const before = this.state.memory(name);
    const page = chainLink(f.chain, snap.root?.origin);
    const { alerts, memory } = dueAlerts(before, snap, this.rules, (id) => this.ledger.has(id), f.chain.page);
    const hooks = this.o.config.webhooks.filter((h) => hookTakes(h, name)).map(hookKey);
    for (const a of alerts) {
      this.ledger.add(a, hooks);
      this.metrics.alert(name, a.kind);
      this.log.info(`alert: ${a.title}`, { id: a.id });
    }
    const calendar = publish(
      this.state.calendar(name),
      chainEvents(snap, before, this.state.calendar(name), f.chain.page ?? (this.url ? `${this.url}/${page}` : undefined)),
      snap.at,
    );
    this.state.setChain(name, memory, calendar);
    await this.persist();
    if (alerts.length > 0) this.dispatcher.kick();
    if (this.now() - f.historySavedAt > 60_000) {
      f.historySavedAt = this.now();
      await this.state.saveHistory(name, f.history.all);
    }
  }

  /** The fleet's rows as `/fleet.json` serves them. */
  fleet(): FleetJson {
    return {
      generated_at: new Date(this.now()).toISOString(),
      source: "watch",
      chains: this.followed.map((f) => {
        const snap = f.snapshot ?? {
          name: f.chain.name,
          chainId: f.chain.chainId,
          at: this.now(),
          status: "starting" as const,
          witnesses: { without: f.chain.withoutWitnesses, confirmed: [], faulty: [], unavailable: [] },
          proposals: [],
          history: { samples: f.history.all.length, spanMs: 0, covered: false },
        };
        return fleetRow(snap, this.ledger.ofChain(f.chain.name), chainLink(f.chain, f.snapshot?.root?.origin));
      }),
    };
  }

  /** The calendar feed of one chain (undefined: no such chain), or of the fleet. */
  calendar(chain?: string): string | undefined {
    if (chain !== undefined) {
      if (!this.followed.some((f) => f.chain.name === chain)) return undefined;
      return renderCalendar(`xupgrade: ${chain} upgrades`, Object.values(this.state.calendar(chain)));
    }
    return renderCalendar(
      "xupgrade: fleet upgrades",
      this.followed.flatMap((f) => Object.values(this.state.calendar(f.chain.name))),
    );
  }

  /** Stops the loops, lets deliveries in flight finish (at most `graceMs`), writes the state and the histories. */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.loops);
    await this.dispatcher.close(graceMs);
    await this.persist();
    for (const f of this.followed) await this.state.saveHistory(f.chain.name, f.history.all);
    await this.server?.close();
  }

  /** Resolves when every loop has ended (after `rounds` polls, or stop()). */
  async done(): Promise<void> {
    await Promise.all(this.loops);
  }
}
