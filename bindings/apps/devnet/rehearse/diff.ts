/**
 * The state before and after the rehearsed block, store by store, and what changed: keys added, changed and
 * deleted (docs/spec/rehearse.md §4). Host stores (names starting with `_`: block records, the tx index, the
 * node's bookkeeping) are left out: they are the engine's, not the upgrade's, and never enter the app hash.
 */
import type { CommitMultiStore } from "../../../store/rootmulti/store.js";
import { isHostStore } from "../chain/app-hash.js";

const EMPTY = new Uint8Array(0);

/** Every app store's committed contents, in key order. */
export type StoreContents = Map<string, [Uint8Array, Uint8Array][]>;

/** The contents of every app store of `ms` at its last commit. */
export function readContents(ms: CommitMultiStore): StoreContents {
  const out: StoreContents = new Map();
  const view = ms.at(ms.lastCommittedHeight);
  for (const name of view?.stores() ?? []) {
    if (isHostStore(name)) continue;
    out.set(name, [...view!.store(name).iterate(EMPTY, undefined)].map(([k, v]) => [k.slice(), v.slice()]));
  }
  return out;
}

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

const hexKey = (k: Uint8Array) => Buffer.from(k.buffer, k.byteOffset, k.length).toString("latin1");
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

/** Store by store (names sorted), what differs between `before` and `after`. */
export function diffContents(before: StoreContents, after: StoreContents): StoreChange[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.map((name) => {
    const b = before.get(name);
    const a = after.get(name);
    const prev = new Map((b ?? []).map(([k, v]) => [hexKey(k), v]));
    const added: KeyChange[] = [];
    const changed: KeyChange[] = [];
    const deleted: KeyChange[] = [];
    const seen = new Set<string>();
    for (const [k, v] of a ?? []) {
      const id = hexKey(k);
      seen.add(id);
      const old = prev.get(id);
      if (old === undefined) added.push({ key: k, after: v });
      else if (!equal(old, v)) changed.push({ key: k, before: old, after: v });
    }
    for (const [k, v] of b ?? []) if (!seen.has(hexKey(k))) deleted.push({ key: k, before: v });
    const status = b === undefined ? "added" : a === undefined ? "deleted" : added.length + changed.length + deleted.length > 0 ? "changed" : "unchanged";
    return { name, status, keysBefore: b?.length ?? 0, keysAfter: a?.length ?? 0, added, changed, deleted };
  });
}
