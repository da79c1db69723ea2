/**
 * The fleet page's static mode (`fleet.html?config=<url>`): the page follows the chains of a watch config (JSON)
 * itself, in the browser, with the same followers `xupgrade watch` runs (bindings/apps/watch/follower.ts) — every
 * fact verified here, each chain's trust root from the config or saved in this browser (localStorage), first use
 * only when the config says so (then unconfirmed). No alerts are sent from a page: the column says so.
 */
import { BrowserRootStore } from "../root-store.js";
import { parseWatchConfig, type WatchConfig } from "../../../../bindings/apps/watch/config.js";
import { fleetRow, type FleetJson } from "../../../../bindings/apps/watch/fleet.js";
import { ChainFollower } from "../../../../bindings/apps/watch/follower.js";
import { HeaderHistory } from "../../../../bindings/apps/watch/history.js";
import type { ChainSnapshot } from "../../../../bindings/apps/watch/snapshot.js";
import { chainLink } from "../../../../bindings/apps/watch/link.js";

/** Saved roots in this browser: the single-chain page's store, so a root confirmed there is confirmed here too. */
const browserStore = new BrowserRootStore();

export class BrowserFleet {
  private readonly followers: { follower: ChainFollower; snapshot?: ChainSnapshot; config: WatchConfig["chains"][number] }[];

  constructor(readonly config: WatchConfig) {
    this.followers = config.chains.map((chain) => ({
      config: chain,
      follower: new ChainFollower({
        chain,
        store: browserStore,
        history: new HeaderHistory(config.historyWindowMs),
        maxAgeMs: config.maxAgeMs,
        backfillCalls: 3,
      }),
    }));
  }

  static async load(url: string): Promise<BrowserFleet> {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`the config at ${url} answered HTTP ${res.status}`);
    return new BrowserFleet(parseWatchConfig(await res.json()));
  }

  async poll(): Promise<void> {
    await Promise.all(this.followers.map(async (f) => (f.snapshot = await f.follower.poll())));
  }

  rows(): FleetJson {
    return {
      generated_at: new Date().toISOString(),
      source: "page",
      chains: this.followers.map((f) =>
        fleetRow(
          f.snapshot ?? {
            name: f.config.name,
            chainId: f.config.chainId,
            at: Date.now(),
            status: "starting",
            witnesses: { without: f.config.withoutWitnesses, confirmed: [], faulty: [], unavailable: [] },
            proposals: [],
            history: { samples: 0, spanMs: 0, covered: false },
          },
          [],
          chainLink(f.config),
        ),
      ),
    };
  }
}
