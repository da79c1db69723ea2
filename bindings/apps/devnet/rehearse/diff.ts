/**
 * The state before and after the rehearsed block, store by store, and what changed: keys added, changed and
 * deleted (docs/spec/rehearse.md §4). Host stores (names starting with `_`: block records, the tx index, the
 * node's bookkeeping) are left out: they are the engine's, not the upgrade's, and never enter the app hash.
 *
 * Both states are committed versions of the copy's multistore, so the difference is read off the trees
 * (docs/spec/store.md §1): a node saved at or before the earlier version and still in the later tree is in
 * both (nodes are never reused once replaced), so only the nodes made since are walked — what the upgrade
 * touched, not the whole state.
 */
import type { Node } from "../../../store/iavl/node.js";
import type { TreeReader } from "../../../store/iavl/tree.js";
import type { CommitMultiStore, VersionView } from "../../../store/rootmulti/store.js";
import { isHostStore } from "../chain/app-hash.js";
import { StoreQueryError } from "../../../store/errors.js";

/** Every app store's number of keys at a committed height. */
export type StoreSizes = Map<string, number>;

export function storeSizes(ms: CommitMultiStore, height: bigint): StoreSizes {
  const view = ms.at(height);
  if (!view) throw new StoreQueryError(`height ${height} is not retained`);
  return new Map(appStores(view).map((name) => [name, view.tree(name).size]));
}

const appStores = (view: VersionView) => view.stores().filter((n) => !isHostStore(n));

export interface KeyChange {
  key: Uint8Array;
  before?: Uint8Array;
  after?: Uint8Array;
}

export interface StoreChange {
  name: string;
  /** `added`/`deleted`: the store itself appeared or disappeared; `changed`: some keys did; else `unchanged`. */
  status: "added" | "deleted" | "changed" | "unchanged";
  keysBefore: number;
  keysAfter: number;
  added: KeyChange[];
  changed: KeyChange[];
  deleted: KeyChange[];
}

const id = (n: Node) => `${n.version}.${n.nonce}`;
const latin1 = (k: Uint8Array) => Buffer.from(k.buffer, k.byteOffset, k.length).toString("latin1");
const equal = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

/**
 * The leaves under `tree`'s root that are not in `skip(node)` subtrees, by key: the walk stops at a node
 * `skip` says is shared, and descends into the rest.
 */
function leavesOutside(tree: TreeReader, skip: (n: Node) => boolean): Map<string, [Uint8Array, Uint8Array]> {
  const out = new Map<string, [Uint8Array, Uint8Array]>();
  const todo: Node[] = tree.root ? [tree.root] : [];
  while (todo.length > 0) {
    const n = todo.pop()!;
    if (skip(n)) continue;
    if (n.isLeaf) out.set(latin1(n.key), [n.key, n.value!]);
    else todo.push(tree.right(n), tree.left(n));
  }
  return out;
}

/** What changed in every app store of `ms` from height `before` to height `after` (both retained). */
export function diffHeights(ms: CommitMultiStore, before: bigint, after: bigint): StoreChange[] {
  const a = ms.at(before);
  const b = ms.at(after);
  if (!a || !b) throw new StoreQueryError(`heights ${before} and ${after} must both be retained`);
  const names = [...new Set([...appStores(a), ...appStores(b)])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const since = Number(before);
  return names.map((name) => {
    const ta = a.has(name) ? a.tree(name) : undefined;
    const tb = b.has(name) ? b.tree(name) : undefined;
    // Nodes of the later tree saved at or before `before` are the earlier tree's: shared, not walked.
    const shared = new Set<string>();
    const fresh = tb ? leavesOutside(tb, (n) => n.version <= since && ta !== undefined && (shared.add(id(n)), true)) : new Map();
    const gone = ta ? leavesOutside(ta, (n) => shared.has(id(n))) : new Map();
    const added: KeyChange[] = [];
    const changed: KeyChange[] = [];
    const deleted: KeyChange[] = [];
    for (const [k, [key, value]] of fresh) {
      const old = gone.get(k);
      if (old === undefined) added.push({ key, after: value });
      else if (!equal(old[1], value)) changed.push({ key, before: old[1], after: value });
    }
    for (const [k, [key, value]] of gone) if (!fresh.has(k)) deleted.push({ key, before: value });
    const byKey = (x: KeyChange, y: KeyChange) => Buffer.compare(x.key, y.key);
    added.sort(byKey);
    changed.sort(byKey);
    deleted.sort(byKey);
    const status = !ta ? "added" : !tb ? "deleted" : added.length + changed.length + deleted.length > 0 ? "changed" : "unchanged";
    return { name, status, keysBefore: ta?.size ?? 0, keysAfter: tb?.size ?? 0, added, changed, deleted };
  });
}
