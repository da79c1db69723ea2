/**
 * The watch's state directory (docs/spec/watch.md §3.3), Node only:
 *
 * - `state.json` — every alert and its deliveries (./ledger.ts), what the watch remembers of each chain
 *   (./alerts.ts), each calendar event's SEQUENCE (./ics.ts), and each chain's saved trust root (the newest
 *   verified header, where trust began, whether it was confirmed: a RootStore) — rewritten atomically (a
 *   temporary file, fsync, rename, fsync of the directory) after every change, one write at a time;
 * - `history/<chain>.json` — each chain's verified header times (./history.ts), rewritten atomically now and then.
 *
 * A state file that is not the watch's is refused (WatchStateError), never overwritten.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../base/file.js";
import { savedRootFromJson, savedRootToJson, type SavedRootJson } from "../../light/saved-root-json.js";
import type { RootStore, SavedRoot } from "../../light/trust-root.js";
import { emptyMemory, type ChainMemory } from "./alerts.js";
import type { HeaderTime } from "./eta.js";
import type { CalendarMemory } from "./ics.js";
import { WatchStateError } from "./errors.js";
import type { LedgerEntry } from "./ledger.js";

const FORMAT = "xupgrade-watch-state";

interface StateJson {
  format: typeof FORMAT;
  version: 1;
  chains: Record<string, { memory: ChainMemory; calendar: CalendarMemory }>;
  roots: Record<string, SavedRootJson>;
  alerts: LedgerEntry[];
}

export class WatchState implements RootStore {
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  private constructor(
    readonly dir: string,
    private readonly data: StateJson,
  ) {}

  static open(dir: string): WatchState {
    mkdirSync(join(dir, "history"), { recursive: true, mode: 0o700 });
    const path = join(dir, "state.json");
    let text: string | undefined;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new WatchStateError(`cannot read the watch's state ${path}: ${(e as Error).message}`);
    }
    if (text === undefined) return new WatchState(dir, { format: FORMAT, version: 1, chains: {}, roots: {}, alerts: [] });
    let data: StateJson;
    try {
      data = JSON.parse(text) as StateJson;
    } catch (e) {
      throw new WatchStateError(`${path} is not the watch's state (${(e as Error).message}); move it away to start afresh (every alert would be made again)`);
    }
    if (data?.format !== FORMAT || data.version !== 1 || typeof data.chains !== "object" || !Array.isArray(data.alerts)) {
      throw new WatchStateError(
        `${path} is not the watch's state (format ${JSON.stringify(data?.format)}); move it away to start afresh (every alert would be made again)`,
      );
    }
    data.roots ??= {};
    return new WatchState(dir, data);
  }

  get alerts(): LedgerEntry[] {
    return this.data.alerts;
  }

  set alerts(entries: LedgerEntry[]) {
    this.data.alerts = entries;
  }

  memory(chain: string): ChainMemory {
    return this.data.chains[chain]?.memory ?? emptyMemory();
  }

  calendar(chain: string): CalendarMemory {
    return this.data.chains[chain]?.calendar ?? {};
  }

  setChain(chain: string, memory: ChainMemory, calendar: CalendarMemory): void {
    this.data.chains[chain] = { memory, calendar };
  }

  async load(chainId: string): Promise<SavedRoot | undefined> {
    const j = this.data.roots[chainId];
    if (!j) return undefined;
    try {
      return savedRootFromJson(j);
    } catch (e) {
      throw new WatchStateError(
        `the trust root saved for chain ${JSON.stringify(chainId)} in ${join(this.dir, "state.json")} does not read (${(e as Error).message}); remove it from "roots" and give the chain a root in the config`,
      );
    }
  }

  async save(root: SavedRoot): Promise<void> {
    this.data.roots[root.chainId] = savedRootToJson(root);
    await this.flush();
  }

  /** Writes the state now (after the write in progress); concurrent calls share one write. */
  flush(): Promise<void> {
    this.dirty = true;
    const next = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      await writeFileAtomic(join(this.dir, "state.json"), JSON.stringify(this.data, null, 1) + "\n", { mode: 0o600 });
    });
    this.writing = next.catch(() => undefined);
    return next;
  }

  history(chain: string): HeaderTime[] {
    try {
      const rows = JSON.parse(readFileSync(join(this.dir, "history", `${chain}.json`), "utf8")) as { headers: [number, number][] };
      return rows.headers.map(([height, ms]) => ({ height, ms }));
    } catch {
      return []; // missing or unreadable: the history is gathered again
    }
  }

  async saveHistory(chain: string, samples: readonly HeaderTime[]): Promise<void> {
    await writeFileAtomic(join(this.dir, "history", `${chain}.json`), JSON.stringify({ headers: samples.map((s) => [s.height, s.ms]) }) + "\n");
  }
}
