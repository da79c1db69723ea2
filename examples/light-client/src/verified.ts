/**
 * Verified mode (docs/spec/light-client.md §9.3): the upgrade's state read through `xupgrade/light` — headers
 * verified from a trust root as CometBFT's light client verifies them, every value proven against their app
 * hash. The trust root comes from the page address (`trust_height`, `trust_hash`), else from what this browser
 * verified last time for the chain (localStorage), else — trust on first use — from the node's own latest
 * header, said so. Each verified refresh makes the newest verified header the next root.
 */
import { loadCore, type Core } from "xupgrade";
import {
  RpcProvider,
  UNPROVABLE,
  VerificationError,
  VerifiedUpgradeClient,
  trustOnFirstUse,
  type ProposedUpgrade,
  type Proven,
  type VerificationStep,
  type VerifiedHeader,
} from "xupgrade/light";
import type { ReadinessTally } from "xupgrade";
import type { AppliedView, PlanView, VersionView } from "./model.js";
import type { BlockMeta } from "./rpc.js";

/** Where the trust root came from, as the page says it. */
export interface RootInfo {
  chainId: string;
  height: bigint;
  hash: string;
  how: "address" | "first-use";
  /** The RPC it was first taken from, and when (ISO). */
  node: string;
  at: string;
  /** The newest verified header the page started this refresh from (height), when it advanced. */
  advancedTo?: bigint;
}

export interface VerifiedFacts {
  kind: "verified";
  root: RootInfo;
  header: VerifiedHeader;
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
  witnesses: string[];
  proofs: number;
  /** Signatures verified this refresh. */
  signatures: number;
  refreshMs: number;
}

export interface VerificationFailure {
  kind: "failed";
  root: RootInfo | undefined;
  check: string;
  height: bigint | undefined;
  message: string;
}

export interface Unprovable {
  kind: "unprovable";
  reason: string;
}

export type VerifiedState = VerifiedFacts | VerificationFailure | Unprovable;

interface StoredRoot {
  chainId: string;
  height: string;
  hash: string;
  origin: { how: "address" | "first-use"; node: string; at: string; height: string; hash: string };
}

const storageKey = (chainId: string) => `xupgrade-light-client:trust:${chainId}`;

function loadRoot(chainId: string): StoredRoot | undefined {
  try {
    const v = JSON.parse(localStorage.getItem(storageKey(chainId)) ?? "null") as StoredRoot | null;
    if (v && v.chainId === chainId && /^[0-9]{1,19}$/.test(v.height) && /^[0-9A-F]{64}$/.test(v.hash) && v.origin) return v;
  } catch {
    /* a damaged entry is forgotten */
  }
  return undefined;
}

function saveRoot(r: StoredRoot): void {
  try {
    localStorage.setItem(storageKey(r.chainId), JSON.stringify(r));
  } catch {
    /* private mode: the root lasts as long as the page */
  }
}

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("").toUpperCase();
const ms = (t: { seconds: bigint; nanos: number }) => Number(t.seconds) * 1000 + t.nanos / 1e6;

export interface VerifiedOptions {
  rpc: string;
  /** From the page address. */
  trustHeight?: string;
  trustHash?: string;
  trustingPeriod?: string;
  witnesses: string[];
  /** `xupgrade-devnet` (served by a devnet, or `?chain=`): said unprovable. */
  chain?: string;
}

/** One verified session: a client per trust root and RPC, kept across polls. */
export class VerifiedReader {
  private client: VerifiedUpgradeClient | undefined;
  private root: RootInfo | undefined;
  private core: Core | undefined;
  private steps: VerificationStep[] = [];
  /** The witnesses that confirmed each verified height. */
  private readonly confirmed = new Map<bigint, Set<string>>();

  constructor(private readonly o: VerifiedOptions) {}

  async read(): Promise<VerifiedState> {
    if (this.o.chain && UNPROVABLE[this.o.chain]) return { kind: "unprovable", reason: UNPROVABLE[this.o.chain] };
    const started = performance.now();
    try {
      this.core ??= await loadCore("wasm");
      this.steps = [];
      if (!this.client) await this.connect();
      const client = this.client!;
      const from = client.header.height;
      const header = await client.sync();
      for (const s of this.steps) if (s.kind === "witness") (this.confirmed.get(s.height) ?? this.confirmed.set(s.height, new Set()).get(s.height)!).add(s.witness!);
      if (header.height > from) this.root = { ...this.root!, advancedTo: from };
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
        const rec = await client.light.verifyBackwards(u.height).catch((e: unknown) => {
          if (e instanceof VerificationError && (e.check === "provider" || e.check === "header-order")) return undefined;
          throw e;
        });
        if (!rec) continue;
        const hd = rec.header;
        appliedHeaders.set(u.height, {
          height: u.height,
          hash: hex(rec.hash),
          time: new Date(ms(hd.time)).toISOString(),
          appHash: hex(hd.appHash),
          proposer: hex(hd.proposerAddress),
          numTxs: "—",
          blockSize: "—",
          appVersion: hd.version.app.toString(),
          raw: { verified: "by the hash chain of last block ids, down from the verified header", height: u.height.toString(), hash: hex(rec.hash), app_hash: hex(hd.appHash) },
        });
      }
      const r = client.trustRoot();
      saveRoot({
        chainId: r.chainId,
        height: r.height.toString(),
        hash: hex(r.hash),
        origin: { how: this.root!.how, node: this.root!.node, at: this.root!.at, height: this.root!.height.toString(), hash: this.root!.hash },
      });
      const all: Proven<unknown>[] = [plan, pv, versions, applied, proposals];
      return {
        kind: "verified",
        root: this.root!,
        header,
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
        witnesses: [...(this.confirmed.get(header.height) ?? [])],
        proofs: all.reduce((n, p) => n + p.proofs, 0) + (readiness && "tally" in readiness ? 2 : 0),
        signatures: this.steps.reduce((n, s) => n + (s.tally?.signaturesVerified ?? 0), 0),
        refreshMs: performance.now() - started,
      };
    } catch (e) {
      if (!(e instanceof VerificationError)) throw e;
      return { kind: "failed", root: this.root, check: e.check, height: e.height, message: e.detail };
    }
  }

  private async connect(): Promise<void> {
    const { rpc } = this.o;
    const now = new Date().toISOString();
    let trust: { height: bigint; hash: string };
    if (this.o.trustHeight !== undefined && this.o.trustHash !== undefined) {
      trust = { height: BigInt(/^[0-9]+$/.test(this.o.trustHeight) ? this.o.trustHeight : "0"), hash: this.o.trustHash };
      this.root ??= { chainId: "", height: trust.height, hash: this.o.trustHash.toUpperCase(), how: "address", node: rpc, at: now };
    } else {
      const status = await RpcProvider.of(rpc).status();
      const stored = loadRoot(status.chainId);
      if (stored) {
        trust = { height: BigInt(stored.height), hash: stored.hash };
        this.root ??= { chainId: stored.chainId, height: BigInt(stored.origin.height), hash: stored.origin.hash, how: stored.origin.how, node: stored.origin.node, at: stored.origin.at };
      } else {
        const first = await trustOnFirstUse(rpc);
        trust = { height: first.height, hash: hex(first.hash) };
        this.root = { chainId: first.chainId, height: first.height, hash: hex(first.hash), how: "first-use", node: rpc, at: now };
      }
    }
    this.client = await VerifiedUpgradeClient.connect(rpc, {
      trust: { ...trust, period: this.o.trustingPeriod },
      witnesses: this.o.witnesses,
      core: this.core,
      onStep: (s) => this.steps.push(s),
    });
    this.root = { ...this.root!, chainId: this.client.chainId };
  }
}
