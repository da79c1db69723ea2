/**
 * The page's saved trust roots (docs/spec/light-client.md §9.3): a `RootStore` of `xupgrade/light` in this browser's
 * localStorage, one key per chain id, holding the newest verified header, where trust began and whether the user
 * ever confirmed it. A damaged entry is forgotten (the page then asks for a root again, never guesses one). Where
 * localStorage cannot be used (private mode, storage disabled or full), roots last as long as the page.
 */
import { savedRootFromJson, savedRootToJson, type RootStore, type SavedRoot } from "xupgrade/light";

const PREFIX = "xupgrade-light-client:trust:";

/**
 * An entry: the saved root's JSON form (the CLI's trust file's, light/saved-root-json.ts). Entries this page wrote
 * before that form — camelCase, a link root called "address" — are still read; one without `confirmed` as unconfirmed.
 */
function parse(text: string, chainId: string): SavedRoot | undefined {
  const v = JSON.parse(text) as Record<string, unknown> | null;
  if (v && typeof v === "object" && "chainId" in v) {
    const o = (v.origin ?? {}) as Record<string, unknown>;
    return parse(
      JSON.stringify({
        chain_id: v.chainId,
        height: v.height,
        hash: v.hash,
        time: v.time,
        confirmed: v.confirmed === true,
        origin: { ...o, how: o.how === "address" ? "link" : o.how },
        updated_at: v.updatedAt,
      }),
      chainId,
    );
  }
  const saved = savedRootFromJson(v);
  return saved.chainId === chainId ? saved : undefined;
}

export class BrowserRootStore implements RootStore {
  /** Roots saved this page's lifetime: what is read when localStorage cannot be. */
  private readonly memory = new Map<string, SavedRoot>();

  constructor(private readonly storage: () => Storage = () => localStorage) {}

  async load(chainId: string): Promise<SavedRoot | undefined> {
    let text: string | null;
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
      this.storage().setItem(PREFIX + root.chainId, JSON.stringify(savedRootToJson(root)));
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
