/**
 * Where a light client's trust root comes from (docs/spec/light-client.md §2.1) — one policy for the CLI and the
 * status page. In order:
 *
 * 1. a root the user gives: the CLI's --trust-height/--trust-hash (confirmed: the user typed it), or a page link's
 *    `trust_height`/`trust_hash` (unconfirmed until the user confirms it; a link never replaces a root the user
 *    confirmed for that chain — it is set aside, and the caller warns);
 * 2. else the root saved for the chain (a RootStore: the CLI's trust file, the page's localStorage) — the newest
 *    header verified last time, with where trust began and whether it was ever confirmed;
 * 3. else nothing: `NoTrustRootError` says how to get one — unless the user asked for trust on first use, which
 *    takes the node's own latest header unverified and stays *unconfirmed*, in the saved root and in every output,
 *    until the user gives a root.
 *
 * The chain id used to find a saved root is the node's word (status, or the header at a given height): it only
 * picks which root to load; the root's hash then decides which chain is verified.
 */
import { toHex } from "@cosmjs/encoding";
import { messageOf } from "../base/errors.js";
import { MS } from "../go/duration.js";
import { parseDurationOption } from "../go/option.js";
import { TrustOptionsError } from "./errors.js";
import { headerHash } from "./header.js";
import type { LightProvider } from "./provider.js";
import { trustRoot, type TrustOptions } from "./trust.js";

/** How old the latest header may be unless told otherwise (the CLI's --max-age, the page's &max_age=): a Go duration. */
export const DEFAULT_MAX_AGE = "10m";

/** A freshness bound given as a Go duration ("10m", "1h30m"; "0": no bound), in milliseconds. */
export function maxAgeMs(text: string): number {
  try {
    return Number(parseDurationOption(text, "margin") / MS);
  } catch (e) {
    throw new TrustOptionsError(`invalid maximum age ${JSON.stringify(text)}: ${messageOf(e)}`);
  }
}

/** How trust began: a root the user gave (flags), one that came in a page link, or the node's own word. */
export type RootOrigin = "given" | "link" | "first-use";

/** Where the root of this run came from. */
export type RootSource = RootOrigin | "saved";

/** Where trust began, kept with every saved root. */
export interface TrustOrigin {
  how: RootOrigin;
  /** The node the root was first used with. */
  node: string;
  height: bigint;
  /** Upper-case hex. */
  hash: string;
  /** When (ISO 8601). */
  at: string;
}

/** What a RootStore keeps per chain: the newest verified header, where trust began, and whether it was confirmed. */
export interface SavedRoot {
  chainId: string;
  height: bigint;
  /** Upper-case hex. */
  hash: string;
  /** The header's time (RFC 3339). */
  time: string;
  origin: TrustOrigin;
  /** False while trust rests on a root nobody confirmed (first use, an unconfirmed link). */
  confirmed: boolean;
  updatedAt: string;
}

/** Where saved roots live: a file per chain (the CLI), localStorage (the page). */
export interface RootStore {
  load(chainId: string): Promise<SavedRoot | undefined>;
  save(root: SavedRoot): Promise<void>;
}

export interface RootRequest {
  /** The node's label (its URL), recorded with a new root. */
  node: string;
  /** A root the user gave; `confirmed` for one they typed, not for one that arrived in a link. */
  given?: { height: bigint; hash: string; how: "given" | "link"; confirmed: boolean };
  /** The chain whose saved root to use (default: the node's status, or the given header's chain id). */
  chainId?: string;
  /** Take the node's latest header unverified when there is no root at all — only when the user asked for it. */
  firstUse?: boolean;
  period?: TrustOptions["period"];
  now?: () => Date;
}

/** The root a run starts from, and everything an output must say about it. */
export interface ResolvedRoot {
  /** The chain the root was looked up for (the node's word until verification). */
  chainId: string;
  trust: TrustOptions;
  source: RootSource;
  confirmed: boolean;
  origin: TrustOrigin;
  /** A linked root that was set aside because the user confirmed another root for the chain: warn loudly. */
  setAside?: { height: bigint; hash: string };
}

/** No root was given or saved, and trust on first use was not asked for. */
export class NoTrustRootError extends TrustOptionsError {
  override name = "NoTrustRootError";
  constructor(
    readonly chainId: string,
    readonly node: string,
  ) {
    super(
      `no trust root for chain ${JSON.stringify(chainId)}: give the height and hash of a recent block of the chain from a source you trust ` +
        "(your own node's /commit, a validator, an explorer), or ask to trust this node's own latest header unverified (trust on first use) — " +
        "then every answer says so until you confirm a root",
    );
  }
}

const upper = (b: Uint8Array) => toHex(b).toUpperCase();

/** The root for this run (§2.1). Saves nothing: `rememberVerified` does, once a header is verified. */
export async function resolveTrustRoot(provider: LightProvider, store: RootStore, req: RootRequest): Promise<ResolvedRoot> {
  const at = (req.now?.() ?? new Date()).toISOString();
  if (req.given) {
    const g = req.given;
    const checked = trustRoot({ height: g.height, hash: g.hash, period: req.period });
    const hash = upper(checked.hash);
    // The chain a linked root claims (the node's word): only to find a root the user confirmed for it.
    const chainId = req.chainId ?? (g.how === "link" ? (await provider.signedHeader(checked.height)).header.chainId : "");
    const saved = chainId && !g.confirmed ? await store.load(chainId) : undefined;
    if (saved?.confirmed) {
      // A link naming the confirmed root itself (where trust began, or the header saved) is that root, still confirmed.
      const same = (saved.origin.height === checked.height && saved.origin.hash === hash) || (saved.height === checked.height && saved.hash === hash);
      return same ? fromSaved(saved, req) : { ...fromSaved(saved, req), setAside: { height: checked.height, hash } };
    }
    const origin: TrustOrigin = { how: g.how, node: req.node, height: checked.height, hash, at };
    return { chainId, trust: { height: checked.height, hash, period: req.period }, source: g.how, confirmed: g.confirmed, origin };
  }
  const chainId = req.chainId ?? (await provider.status()).chainId;
  const saved = await store.load(chainId);
  if (saved) return fromSaved(saved, req);
  if (!req.firstUse) throw new NoTrustRootError(chainId, req.node);
  const sh = await provider.signedHeader();
  const hash = headerHash(sh.header);
  if (!hash) throw new TrustOptionsError(`node ${provider.label}: its latest header has no validators hash, so it cannot be a trust root`);
  const origin: TrustOrigin = { how: "first-use", node: req.node, height: sh.header.height, hash: upper(hash), at };
  return {
    chainId: sh.header.chainId,
    trust: { height: sh.header.height, hash: origin.hash, period: req.period },
    source: "first-use",
    confirmed: false,
    origin,
  };
}

function fromSaved(saved: SavedRoot, req: RootRequest): ResolvedRoot {
  return {
    chainId: saved.chainId,
    trust: { height: saved.height, hash: saved.hash, period: req.period },
    source: "saved",
    confirmed: saved.confirmed,
    origin: saved.origin,
  };
}

/** The newest verified header becomes the saved root for next time, keeping where trust began and whether it was confirmed. */
export async function rememberVerified(
  store: RootStore,
  root: ResolvedRoot,
  newest: { chainId: string; height: bigint; hash: Uint8Array; time: string },
  now: () => Date = () => new Date(),
): Promise<SavedRoot> {
  const saved: SavedRoot = {
    chainId: newest.chainId,
    height: newest.height,
    hash: upper(newest.hash),
    time: newest.time,
    origin: root.origin,
    confirmed: root.confirmed,
    updatedAt: now().toISOString(),
  };
  await store.save(saved);
  return saved;
}

/** The plain words for where a root came from, for outputs. */
export function describeRoot(root: ResolvedRoot): string {
  const o = root.origin;
  const began = `height ${o.height}, hash ${o.hash}, with ${o.node} at ${o.at}`;
  switch (root.source) {
    case "given":
      return `the root you gave (${began})`;
    case "link":
      return `the root in the link, not yet confirmed by you (${began})`;
    case "first-use":
      return `this node's own latest header, taken unverified on first use (${began})`;
    case "saved":
      return (
        `the header verified last time, trusted since ${o.how === "first-use" ? "first use" : o.how === "link" ? "a link" : "the root you gave"} (${began})` +
        (root.confirmed ? "" : " — never confirmed")
      );
  }
}

/** Why a root is unconfirmed, and how to confirm it — said by every output while it is. */
export function unconfirmedWarning(root: ResolvedRoot): string | undefined {
  if (root.confirmed) return undefined;
  const o = root.origin;
  const what =
    o.how === "first-use"
      ? `trust began on first use: the node ${o.node}'s own header at height ${o.height} (${o.hash}) was taken unverified`
      : `trust began with a root from a link (height ${o.height}, ${o.hash}) that was never confirmed`;
  return `UNCONFIRMED TRUST ROOT: ${what}, so everything here is verified only against that node's word. Check that hash with a source you trust (your own node, a validator, an explorer) and give it as the root to confirm it`;
}
