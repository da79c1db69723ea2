/**
 * Verified mode (docs/spec/light-client.md §9.3): the upgrade's state read through `xupgrade/light` — headers
 * verified from a trust root as CometBFT's light client verifies them, every value proven against their app
 * hash. Where the root comes from is the library's policy (resolveTrustRoot), the CLI's too: a root the user
 * typed, else one from the page address (unconfirmed until the user confirms it; never replacing a root the user
 * confirmed for the chain), else the newest header this browser verified for the chain, else nothing — the page
 * then asks for a root, and takes the node's own latest header only when the user chooses that, unconfirmed.
 * Each verified refresh makes the newest verified header the next root, keeping whether it was ever confirmed.
 */
import { loadCore, type Core } from "xupgrade";
import {
  DEFAULT_MAX_AGE,
  NoTrustRootError,
  RpcProvider,
  UNPROVABLE,
  VerificationError,
  VerifiedUpgradeClient,
  maxAgeMs,
  proveTxs,
  rememberVerified,
  resolveTrustRoot,
  type Freshness,
  type ProposedUpgrade,
  type Proven,
  type ResolvedRoot,
  type VerificationStep,
  type VerifiedHeader,
  type VerifiedUpgradeOptions,
} from "xupgrade/light";
import type { ReadinessTally } from "xupgrade";
import type { AppliedView, PlanView, VersionView } from "./model.js";
import { Problem } from "./net.js";
import { BrowserRootStore } from "./root-store.js";
import { RpcClient, type BlockMeta } from "./rpc.js";

/** The trust a verified state rests on. */
export interface TrustView {
  root: ResolvedRoot;
  /** The chain the verified headers are of. */
  chainId: string;
  /** The user's source gave another hash than the link's for the height the link names: the pinned root stays. */
  replaceRefused?: { height: bigint; theirs: string };
}

export interface VerifiedFacts {
  kind: "verified";
  trust: TrustView;
  header: VerifiedHeader;
  /** The verified header's age by this machine's clock, and — when it is old — the upgrade the chain halted for. */
  fresh: Freshness;
  /** The freshness bound (0: none). */
  maxAgeMs: number;
  /** The state height every fact is proven at (header.height − 1). */
  provenAt: bigint;
  plan: PlanView | undefined;
  protocolVersion: bigint;
  versions: VersionView[];
  /** Versions proven just before the last upgrade (undefined when none, null when the node keeps no such state). */
  versionsBefore: VersionView[] | null | undefined;
  applied: AppliedView[];
  /** The header of each applied upgrade's height, verified backwards by the hash chain (absent if the node keeps no such block). */
  appliedHeaders: Map<bigint, BlockMeta>;
  doneLayout: "seed" | "sdk" | undefined;
  proposals: ProposedUpgrade[];
  /**
   * The scheduled plan's readiness tally (an xupgrade extension), proven present or absent at `provenAt`;
   * undefined without a plan; `problem` when it cannot be proven (a chain without the readiness store).
   */
  readiness: { tally: ReadinessTally | undefined } | { problem: string } | undefined;
  /** Verified (height, time in ms) of the last headers, oldest first. */
  blockTimes: { height: bigint; ms: number }[];
  /** The witnesses that confirmed the verified header; none when the link names none (`withoutWitnesses`). */
  witnesses: string[];
  withoutWitnesses: boolean;
  proofs: number;
  /** Signatures verified this refresh. */
  signatures: number;
  refreshMs: number;
}

export interface VerificationFailure {
  kind: "failed";
  trust: TrustView | undefined;
  check: string;
  height: bigint | undefined;
  message: string;
}

/** No root given, none saved for the chain, and trust on first use not chosen: nothing is verified. */
export interface NoRoot {
  kind: "no-root";
  /** The chain the node says it is on (only which root to look for). */
  chainId: string;
  node: string;
}

/** The user's source gave another hash for the root's height: this node's chain is not the one the source knows. */
export interface RootRefused {
  kind: "root-refused";
  trust: TrustView;
  height: bigint;
  /** What the user's source says (upper-case hex). */
  theirs: string;
}

export interface Unprovable {
  kind: "unprovable";
  reason: string;
}

export type VerifiedState = VerifiedFacts | VerificationFailure | NoRoot | RootRefused | Unprovable;

const hex = (b: Uint8Array) =>
  [...b]
    .map((x) => x.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
const ms = (t: { seconds: bigint; nanos: number }) => Number(t.seconds) * 1000 + t.nanos / 1e6;

/** One store for the page's lifetime: what private mode keeps lives in it. */
const store = new BrowserRootStore();

export interface VerifiedOptions {
  rpc: string;
  /** From the page address: a root that is not confirmed until the user confirms it. */
  trustHeight?: string;
  trustHash?: string;
  trustingPeriod?: string;
  /** A Go duration (default the CLI's 10m; "0": no bound). */
  maxAge?: string;
  witnesses: string[];
  /** `xupgrade-devnet` (served by a devnet, or `?chain=`): said unprovable. */
  chain?: string;
}

/** A session of verified mode: a client per trust root and RPC, kept across polls, and what the user chose about trust. */
export class VerifiedReader {
  private client: VerifiedUpgradeClient | undefined;
  private trust: TrustView | undefined;
  private core: Core | undefined;
  private steps: VerificationStep[] = [];
  /** The witnesses that confirmed each verified height. */
  private readonly confirmedBy = new Map<bigint, Set<string>>();
  /** A root the user typed (the root form, or a confirmed replacement of the pinned one). */
  private given: { height: bigint; hash: string } | undefined;
  /** The user chose to take the node's latest header, unverified. */
  private firstUse = false;
  /** The user's source contradicted the root: nothing is verified until another root is given. */
  private refused: { height: bigint; theirs: string } | undefined;
  /** Transactions proven per block hash (they never change). */
  private readonly txCounts = new Map<string, number>();

  constructor(private readonly o: VerifiedOptions) {}

  /** Starts over from a root the user typed: confirmed, since it came from their own source. */
  giveRoot(height: bigint, hash: string): void {
    this.given = { height, hash };
    this.firstUse = false;
    this.restart();
  }

  /** Takes the node's own latest header as the root, unverified and unconfirmed: the user asked for it. */
  trustFirstUse(): void {
    this.firstUse = true;
    this.restart();
  }

  /**
   * The user's source gave `theirs` as the hash of the block where trust began: the same hash confirms the root
   * (it becomes a root the user gave, saved confirmed); another refuses this node's chain.
   */
  async confirm(theirs: string): Promise<"confirmed" | "refused" | undefined> {
    const t = this.trust;
    if (!t) return undefined;
    const o = t.root.origin;
    if (theirs !== o.hash) {
      this.refused = { height: o.height, theirs };
      return "refused";
    }
    this.refused = undefined;
    t.root = { ...t.root, source: "given", confirmed: true, origin: { ...o, how: "given" } };
    if (this.client) await rememberVerified(store, t.root, this.client.trustRoot());
    return "confirmed";
  }

  /**
   * Replaces the pinned root with the one the link names, once the user's source gives the same hash for its
   * height; another hash keeps the pinned root and says so.
   */
  replaceWithLinked(theirs: string): "replaced" | "refused" | undefined {
    const t = this.trust;
    const aside = t?.root.setAside;
    if (!t || !aside) return undefined;
    if (theirs !== aside.hash) {
      t.replaceRefused = { height: aside.height, theirs };
      return "refused";
    }
    this.giveRoot(aside.height, aside.hash);
    return "replaced";
  }

  private restart(): void {
    this.client = undefined;
    this.trust = undefined;
    this.refused = undefined;
    this.confirmedBy.clear();
  }

  async read(): Promise<VerifiedState> {
    if (this.o.chain && UNPROVABLE[this.o.chain]) return { kind: "unprovable", reason: UNPROVABLE[this.o.chain] };
    if (this.refused && this.trust) return { kind: "root-refused", trust: this.trust, ...this.refused };
    const started = performance.now();
    try {
      const bound = maxAgeMs(this.o.maxAge ?? DEFAULT_MAX_AGE);
      this.core ??= await loadCore("wasm");
      this.steps = [];
      if (!this.client) {
        const none = await this.connect();
        if (none) return none;
      }
      // This refresh's client and trust: an action of the user starts another (main.ts discards this one's result).
      const client = this.client!;
      const trust = this.trust!;
      const header = await client.sync();
      for (const s of this.steps)
        if (s.kind === "witness" && s.witness) (this.confirmedBy.get(s.height) ?? this.confirmedBy.set(s.height, new Set()).get(s.height)!).add(s.witness);
      let fresh: Freshness;
      try {
        fresh = await client.freshness({ maxAgeMs: bound });
      } finally {
        await rememberVerified(store, trust.root, client.trustRoot()); // what was verified stays verified, also when too old to show
      }
      const [plan, pv, versions, applied, proposals, recent] = await Promise.all([
        client.currentPlan(),
        client.protocolVersion(),
        client.moduleVersions(),
        client.appliedUpgrades(),
        client.proposedUpgrades(),
        client.recentHeaders(20),
      ]);
      const readiness = plan.value
        ? await client.readiness(plan.value).then(
            (p) => ({ tally: p.value.tally }),
            // A node without the readiness store answers the query with an error: that chain keeps no tally. A
            // proof that does not hold is a lie, and fails the whole verification like any other.
            (e: unknown) => {
              if (e instanceof VerificationError && e.check === "provider") return { problem: e.detail };
              throw e;
            },
          )
        : undefined;
      const last = applied.value.entries.at(-1);
      let versionsBefore: VersionView[] | null | undefined;
      if (last && last.height > 1n) {
        versionsBefore = await client
          .moduleVersions(last.height - 1n)
          .then((p) => p.value)
          .catch((e: unknown) => {
            if (e instanceof VerificationError && e.check === "provider") return null; // the node keeps no such old state
            throw e;
          });
      }
      const appliedHeaders = new Map<bigint, BlockMeta>();
      for (const u of applied.value.entries) {
        const block = await this.appliedBlock(client, u.height);
        if (block) appliedHeaders.set(u.height, block);
      }
      const all: Proven<unknown>[] = [plan, pv, versions, applied, proposals];
      return {
        kind: "verified",
        trust,
        header,
        fresh,
        maxAgeMs: bound,
        provenAt: plan.height,
        plan: plan.value,
        protocolVersion: pv.value,
        versions: versions.value,
        versionsBefore,
        applied: applied.value.entries,
        appliedHeaders,
        doneLayout: applied.value.layout,
        proposals: proposals.value,
        readiness,
        blockTimes: recent.map((x) => ({ height: x.height, ms: ms(x.time) })),
        witnesses: [...(this.confirmedBy.get(header.height) ?? [])],
        withoutWitnesses: this.o.witnesses.length === 0,
        proofs: all.reduce((n, p) => n + p.proofs, 0) + (readiness && "tally" in readiness ? 2 : 0),
        signatures: this.steps.reduce((n, s) => n + (s.tally?.signaturesVerified ?? 0), 0),
        refreshMs: performance.now() - started,
      };
    } catch (e) {
      if (!(e instanceof VerificationError)) throw e;
      return { kind: "failed", trust: this.trust, check: e.check, height: e.height, message: e.detail };
    }
  }

  /** Resolves the root (the library's policy) and connects from it; `NoRoot` when there is none to start from. */
  private async connect(): Promise<NoRoot | undefined> {
    const { rpc } = this.o;
    const provider = RpcProvider.of(rpc);
    const link =
      this.o.trustHeight !== undefined && this.o.trustHash !== undefined
        ? { height: /^[0-9]{1,19}$/.test(this.o.trustHeight) ? BigInt(this.o.trustHeight) : 0n, hash: this.o.trustHash, how: "link" as const, confirmed: false }
        : undefined;
    const given = this.given ? { ...this.given, how: "given" as const, confirmed: true } : link;
    let root: ResolvedRoot;
    try {
      root = await resolveTrustRoot(provider, store, { node: rpc, given, firstUse: this.firstUse, period: this.o.trustingPeriod });
    } catch (e) {
      if (e instanceof NoTrustRootError) return { kind: "no-root", chainId: e.chainId, node: e.node };
      throw e;
    }
    // Witnesses are required unless none is named; then the page verifies against this node alone and says so.
    const options: VerifiedUpgradeOptions & { withoutWitnesses?: boolean } = {
      chainId: root.source === "saved" ? root.chainId : undefined,
      trust: root.trust,
      witnesses: this.o.witnesses,
      withoutWitnesses: this.o.witnesses.length === 0,
      core: this.core,
      onStep: (s) => this.steps.push(s),
    };
    // The root is shown (and confirmable) from here on, also when verifying from it fails.
    this.trust = { root, chainId: root.chainId };
    this.client = await VerifiedUpgradeClient.connect(rpc, options);
    this.trust.chainId = this.client.chainId;
    return undefined;
  }

  /**
   * The block record of an applied upgrade's height: its header, verified backwards by the hash chain of last
   * block ids; its transaction count only when the block's transactions hash to the header's data_hash (a node
   * whose transactions do not is lying, and fails verification). Undefined when the node keeps no such block.
   */
  private async appliedBlock(client: VerifiedUpgradeClient, height: bigint): Promise<BlockMeta | undefined> {
    const rec = await client.light.verifyBackwards(height).catch((e: unknown) => {
      if (e instanceof VerificationError && (e.check === "provider" || e.check === "header-order")) return undefined;
      throw e;
    });
    if (!rec) return undefined;
    const hd = rec.header;
    const hash = hex(rec.hash);
    let txs = this.txCounts.get(hash);
    if (txs === undefined) {
      const given = await new RpcClient(this.o.rpc).blockTxs(height).catch((e: unknown) => {
        if (e instanceof Problem) return undefined; // the node does not give the block: its size stays unknown
        throw e;
      });
      if (given) {
        txs = proveTxs(hd, given).length;
        this.txCounts.set(hash, txs);
      }
    }
    return {
      height,
      hash,
      time: new Date(ms(hd.time)).toISOString(),
      appHash: hex(hd.appHash),
      proposer: hex(hd.proposerAddress),
      numTxs: txs === undefined ? "—" : String(txs),
      blockSize: "—",
      appVersion: hd.version.app.toString(),
      raw: undefined,
      verified: { txsProven: txs !== undefined },
    };
  }
}
