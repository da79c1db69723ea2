/**
 * The page's saved trust roots (docs/spec/light-client.md §9.3): a `RootStore` of `xupgrade/light` in this browser's
 * localStorage, one key per chain id, holding the newest verified header, where trust began and whether the user
 * ever confirmed it. A damaged entry is forgotten (the page then asks for a root again, never guesses one). Where
 * localStorage cannot be used (private mode, storage disabled or full), roots last as long as the page.
 */
import type { RootOrigin, RootStore, SavedRoot } from "xupgrade/light";

const PREFIX = "xupgrade-light-client:trust:";
const HEX64 = /^[0-9A-F]{64}$/;
const INT = /^[0-9]{1,19}$/;

/** What is stored: heights as decimal strings. */
interface StoredRoot {
  chainId: string;
  height: string;
  hash: string;
  time?: string;
  /** Absent in entries older than confirmation: those were never confirmed. */
  confirmed?: boolean;
  origin: { how: RootOrigin | "address"; node: string; height: string; hash: string; at: string };
  updatedAt?: string;
}

function parse(text: string, chainId: string): SavedRoot | undefined {
  const v = JSON.parse(text) as StoredRoot | null;
  const o = v?.origin;
  if (!v || v.chainId !== chainId || !INT.test(String(v.height)) || !HEX64.test(String(v.hash)) || typeof o !== "object" || o === null) return undefined;
  if (!INT.test(String(o.height)) || !HEX64.test(String(o.hash))) return undefined;
  // "address": a root from the page address, as entries written before links had a name of their own call it.
  const how = o.how === "address" ? "link" : o.how;
  if (how !== "given" && how !== "link" && how !== "first-use") return undefined;
  return {
    chainId,
    height: BigInt(v.height),
    hash: v.hash,
    time: String(v.time ?? ""),
    origin: { how, node: String(o.node ?? ""), height: BigInt(o.height), hash: o.hash, at: String(o.at ?? "") },
    confirmed: v.confirmed === true,
    updatedAt: String(v.updatedAt ?? ""),
  };
}

function format(r: SavedRoot): string {
  const o = r.origin;
  const v: StoredRoot = {
    chainId: r.chainId,
    height: r.height.toString(),
    hash: r.hash,
    time: r.time,
    confirmed: r.confirmed,
    origin: { how: o.how, node: o.node, height: o.height.toString(), hash: o.hash, at: o.at },
    updatedAt: r.updatedAt,
  };
  return JSON.stringify(v);
}

export class BrowserRootStore implements RootStore {
  /** Roots saved this page's lifetime: what is read when localStorage cannot be. */
  private readonly memory = new Map<string, SavedRoot>();

  constructor(private readonly storage: () => Storage = () => localStorage) {}

  async load(chainId: string): Promise<SavedRoot | undefined> {
    let text: string | null = null;
    try {
      text = this.storage().getItem(PREFIX + chainId);
    } catch {
      return this.memory.get(chainId); // storage that cannot be read: this page's own roots
    }
    if (text === null) return this.memory.get(chainId);
    let saved: SavedRoot | undefined;
    try {
      saved = parse(text, chainId);
    } catch {
      saved = undefined;
    }
    if (!saved) this.forget(chainId);
    return saved;
  }

  async save(root: SavedRoot): Promise<void> {
    this.memory.set(root.chainId, root);
    try {
      this.storage().setItem(PREFIX + root.chainId, format(root));
    } catch {
      /* private mode or full: the root lasts as long as the page */
    }
  }

  private forget(chainId: string): void {
    this.memory.delete(chainId);
    try {
      this.storage().removeItem(PREFIX + chainId);
    } catch {
      /* nothing to forget where nothing can be stored */
    }
  }
}
