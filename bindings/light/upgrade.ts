/**
 * x/upgrade's state, verified (docs/spec/light-client.md §7): the scheduled plan (0x00, its absence proven when
 * none is scheduled), the protocol version (0x03), every module version (the 0x02 range, proven complete) and
 * every applied upgrade (the 0x01 range, proven complete, in either Done layout), each against the app hash
 * of a header the light client verified. The client a cosmjs user would reach for: connect to an RPC URL or
 * hand over a CometClient, give a trust root, read.
 */
import type { Backend, Core } from "../core/contract.js";
import { loadCore } from "../core/index.js";
import { ProtoReader, WireType } from "../core/proto-wire.js";
import type { DoneEntries, ModuleVersion, Plan } from "../core/types.js";
import { type StateSpec, stateSpec } from "./chains.js";
import { LightClient, type LightClientOptions } from "./client.js";
import { CometClientProvider, type CometClientLike } from "./comet-provider.js";
import { ProviderError, StaleHeaderError } from "./errors.js";
import { PROPOSAL_STATUS_VOTING_PERIOD, decodeProposal, decodeSoftwareUpgradePlan } from "./gov.js";
import { headerHash } from "./header.js";
import { type ProofRoot, type ProvenKey, proveKey, proveRange } from "./proofs.js";
import {
  DEFAULT_READINESS_PARAMS,
  READINESS_STORE,
  decodeParams,
  decodeTally,
  tallyKey,
  type ReadinessParams,
  type ReadinessTally,
} from "../module/readiness/index.js";
import type { LightProvider } from "./provider.js";
import { RpcProvider } from "./rpc-provider.js";
import { type Timestamp, formatTimestamp, timestampNs } from "./types.js";
import type { LightBlock } from "./verifier.js";

/** A node: an RPC endpoint (`http(s)://…`, `tcp://…`), a cosmjs CometClient, or any LightProvider. */
export type Node = string | CometClientLike | LightProvider;

export function providerOf(node: Node, timeoutMs?: number): LightProvider {
  if (typeof node === "string") return RpcProvider.of(node, timeoutMs);
  if ("signedHeader" in node && typeof node.signedHeader === "function") return node;
  return new CometClientProvider(node as CometClientLike);
}

/** A header the light client verified. */
export interface VerifiedHeader {
  chainId: string;
  height: bigint;
  hash: Uint8Array;
  time: Timestamp;
  appHash: Uint8Array;
}

/** A value proven against a verified header. */
export interface Proven<T> {
  value: T;
  /** The state height the value is from (the header's height − 1). */
  height: bigint;
  /** The verified header whose app hash commits to that state. */
  header: VerifiedHeader;
  /** The store proofs it took. */
  proofs: number;
}

/**
 * How fresh the verified header is against this machine's clock (docs/spec/light-client.md §2.2), and — when it
 * is old — whether the verified state explains why: the chain halted at this height for a scheduled upgrade.
 */
export interface Freshness {
  height: bigint;
  time: Timestamp;
  /** How long ago the header's time was, by the local clock (0 when the header is a little ahead). */
  ageMs: number;
  /** The verified plan is for this header's height: no block comes after it until the upgrade's binary runs. */
  halted?: { height: bigint; upgrade: string };
}

/** An upgrade a gov proposal in its voting period would schedule. */
export interface ProposedUpgrade {
  proposalId: bigint;
  plan: Plan;
  votingEndTime: Timestamp | undefined;
  title: string;
}

const MSG_SOFTWARE_UPGRADE = "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade";

export interface VerifiedUpgradeOptions extends Omit<LightClientOptions, "chainId" | "witnesses"> {
  /** Default: the trusted header's own chain id (its hash commits to it). */
  chainId?: string;
  witnesses?: readonly Node[];
  /** How the chain's state is proven (chains.ts); default the Cosmos SDK's. */
  chain?: string | StateSpec;
  /** The core that checks proofs and decodes values: "wasm" (default), "js", or a loaded Core. */
  core?: Backend | Core;
  /** Per RPC call (default 15 s). */
  timeoutMs?: number;
}

const verified = (lb: LightBlock): VerifiedHeader => {
  const h = lb.signedHeader.header;
  return { chainId: h.chainId, height: lb.height, hash: lb.hash, time: h.time, appHash: h.appHash };
};

/** The node's unproven listing of a prefix (`/store/<store>/subspace`): only a hint of which proofs to ask for at once. */
async function listing(provider: LightProvider, spec: StateSpec, height: bigint, prefix: Uint8Array): Promise<Uint8Array[]> {
  try {
    const a = await provider.abciQuery({ path: `/store/${spec.storeKey}/subspace`, data: prefix, height, prove: false });
    if (a.code !== 0) return [];
    const keys: Uint8Array[] = [];
    // KVPairs{repeated KVPair pairs = 1}, KVPair{bytes key = 1, bytes value = 2}: only the keys.
    const r = new ProtoReader(a.value);
    while (!r.done) {
      if (r.tag() !== 1 || r.wire !== WireType.Len) {
        r.skip();
        continue;
      }
      const pair = new ProtoReader(r.bytes());
      while (!pair.done) {
        if (pair.tag() === 1 && pair.wire === WireType.Len) keys.push(pair.bytes());
        else pair.skip();
      }
    }
    return keys;
  } catch {
    return [];
  }
}

export class VerifiedUpgradeClient {
  private head: LightBlock;

  private constructor(
    readonly light: LightClient,
    readonly provider: LightProvider,
    readonly spec: StateSpec,
    readonly core: Core,
  ) {
    this.head = light.latestTrusted;
  }

  /**
   * Connects to `node` from a trust root: the node's header at the trusted height must be the trusted one
   * (docs/spec/light-client.md §4.1). Reads then prove the state just before the latest header verified
   * (`sync()`; the trust root's until then).
   */
  static async connect(node: Node, options: VerifiedUpgradeOptions): Promise<VerifiedUpgradeClient> {
    const spec = stateSpec(options.chain);
    const core = typeof options.core === "object" ? options.core : await loadCore(options.core ?? "wasm");
    const provider = providerOf(node, options.timeoutMs);
    const light = await LightClient.create(provider, {
      ...options,
      chainId: options.chainId,
      witnesses: (options.witnesses ?? []).map((w) => providerOf(w, options.timeoutMs)),
    });
    return new VerifiedUpgradeClient(light, provider, spec, core);
  }

  get chainId(): string {
    return this.light.chainId;
  }

  /** The verified header reads are proven against. */
  get header(): VerifiedHeader {
    return verified(this.head);
  }

  /** Verifies the node's latest header (or `height`'s); later reads prove the state just before it. */
  async sync(height?: bigint): Promise<VerifiedHeader> {
    this.head = height === undefined ? await this.light.verifyLatest() : await this.light.verifyAtHeight(height);
    return verified(this.head);
  }

  /**
   * The verified header's age, refused as stale beyond `maxAgeMs` (0 or undefined: no bound) — unless the state it
   * proves shows the chain halted there for an upgrade (the plan's height is the header's: PreBlock of that block
   * stops every node running the old binary), which is a legitimate state and said so, not hidden.
   */
  async freshness(o: { maxAgeMs?: number; nowMs?: number } = {}): Promise<Freshness> {
    const h = this.head.signedHeader.header;
    const ageMs = Math.max(0, (o.nowMs ?? Date.now()) - Number(timestampNs(h.time) / 1_000_000n));
    const fresh: Freshness = { height: h.height, time: h.time, ageMs };
    if (!o.maxAgeMs || ageMs <= o.maxAgeMs) return fresh;
    const plan = await this.currentPlan();
    if (plan.value && plan.value.height === h.height) return { ...fresh, halted: { height: h.height, upgrade: plan.value.name } };
    throw new StaleHeaderError(formatTimestamp(h.time), ageMs, o.maxAgeMs, h.height);
  }

  private root(): ProofRoot {
    const h = this.head.signedHeader.header;
    if (h.height < 2n) throw new ProviderError(this.provider.label, "the verified header is height 1: no state before it to prove", "not-found", h.height);
    return { height: h.height - 1n, appHash: h.appHash };
  }

  /** The root of an earlier state: the header after it, verified backwards when it is below the verified ones. */
  private async rootAt(stateHeight: bigint | undefined): Promise<{ root: ProofRoot; header: VerifiedHeader }> {
    if (stateHeight === undefined || stateHeight === this.head.height - 1n) return { root: this.root(), header: verified(this.head) };
    const trusted = this.light.trustedAt(stateHeight + 1n);
    const rec = trusted ? { header: trusted.signedHeader.header, hash: trusted.hash } : await this.light.verifyBackwards(stateHeight + 1n);
    const h = rec.header;
    return {
      root: { height: stateHeight, appHash: h.appHash },
      header: { chainId: h.chainId, height: h.height, hash: rec.hash, time: h.time, appHash: h.appHash },
    };
  }

  private proven<T>(value: T, root: ProofRoot, proofs: number): Proven<T> {
    return { value, height: root.height, header: verified(this.head), proofs };
  }

  private key(key: Uint8Array, root: ProofRoot): Promise<ProvenKey> {
    return proveKey(this.provider, this.core, this.spec, root, key);
  }

  /** The scheduled plan, or undefined — its absence proven. */
  async currentPlan(): Promise<Proven<Plan | undefined>> {
    const root = this.root();
    const p = await this.key(this.core.planKey(), root);
    return this.proven(p.value === undefined ? undefined : this.core.decodePlan(p.value), root, 1);
  }

  /**
   * The readiness tally of a plan (xupgrade's extension, docs/spec/readiness.md §5): the value under its key in
   * the `readiness` store, proven present, or absent (no tally yet), and the store's params (key 0x00). A chain
   * without that store cannot prove it.
   */
  async readiness(plan: { name: string; height: bigint }): Promise<Proven<{ tally: ReadinessTally | undefined; params: ReadinessParams }>> {
    const root = this.root();
    const spec = { ...this.spec, storeKey: READINESS_STORE };
    const [t, p] = await Promise.all([
      proveKey(this.provider, this.core, spec, root, tallyKey(plan.name, plan.height)),
      proveKey(this.provider, this.core, spec, root, Uint8Array.of(0x00)),
    ]);
    const params = p.value === undefined ? { ...DEFAULT_READINESS_PARAMS } : decodeParams(p.value);
    return this.proven({ tally: t.value === undefined ? undefined : decodeTally(t.value), params }, root, 2);
  }

  /** The protocol version (0 when never set, its absence proven). */
  async protocolVersion(): Promise<Proven<bigint>> {
    const root = this.root();
    const p = await this.key(this.core.protocolVersionKey(), root);
    return this.proven(p.value === undefined ? 0n : this.core.decodeUint64BE(p.value), root, 1);
  }

  /**
   * Every module's consensus version, proven complete (no module can be left out); `at`: of an earlier state
   * height (e.g. just before an upgrade), if the node still keeps it.
   */
  async moduleVersions(at?: bigint): Promise<Proven<ModuleVersion[]>> {
    const { root, header } = await this.rootAt(at);
    const prefix = Uint8Array.of(0x02);
    const r = await proveRange(this.provider, this.core, this.spec, root, prefix, await listing(this.provider, this.spec, root.height, prefix));
    const versions = this.core.decodeModuleVersionEntries(
      r.entries.map((e) => e.key),
      r.entries.map((e) => e.value),
    );
    return { value: versions, height: root.height, header, proofs: r.proofs };
  }

  /** One module's version (undefined when the store has none), proven by its own key. */
  async moduleVersion(name: string): Promise<Proven<bigint | undefined>> {
    const root = this.root();
    const p = await this.key(this.core.moduleVersionKey(name), root);
    return this.proven(p.value === undefined ? undefined : this.core.decodeUint64BE(p.value), root, 1);
  }

  /** Every applied upgrade, proven complete, in whichever Done layout the store keeps (the seed's or the SDK's). */
  async appliedUpgrades(): Promise<Proven<DoneEntries>> {
    const root = this.root();
    const prefix = Uint8Array.of(0x01);
    const r = await proveRange(this.provider, this.core, this.spec, root, prefix, await listing(this.provider, this.spec, root.height, prefix));
    const done = this.core.decodeDoneEntriesAnyLayout(
      r.entries.map((e) => e.key),
      r.entries.map((e) => e.value),
    );
    return this.proven(done, root, r.proofs);
  }

  /** The height `name` was applied at, 0n when it was not — both proven (the whole Done range is). */
  async appliedPlan(name: string): Promise<Proven<bigint>> {
    const all = await this.appliedUpgrades();
    const hit = all.value.entries.filter((e) => e.name === name).at(-1);
    return { ...all, value: hit?.height ?? 0n };
  }

  /**
   * One Done record by its key: the seed's `01 ‖ name` (its value is the height; absence proven) when `height` is
   * undefined, the SDK's `01 ‖ BE64(height) ‖ name` (present or absent) when it is given.
   */
  async doneRecord(name: string, height?: bigint): Promise<Proven<bigint>> {
    const root = this.root();
    const seedKey = this.core.doneKey(name);
    if (height === undefined) {
      const p = await this.key(seedKey, root);
      return this.proven(p.value === undefined ? 0n : this.core.decodeInt64BE(p.value), root, 1);
    }
    const key = Uint8Array.of(0x01, ...this.core.encodeInt64BE(height), ...seedKey.subarray(1));
    const p = await this.key(key, root);
    return this.proven(p.value === undefined ? 0n : height, root, 1);
  }

  /**
   * The `count` headers up to the verified one (or fewer near genesis), oldest first, each verified backwards by
   * the hash chain of last block ids: their times are verified block times (for an ETA and its error band).
   */
  async recentHeaders(count = 20): Promise<{ height: bigint; time: Timestamp }[]> {
    const top = this.head.height;
    const from = top - BigInt(count) + 1n > 1n ? top - BigInt(count) + 1n : 1n;
    const out: { height: bigint; time: Timestamp }[] = [];
    if (from < top) await this.light.verifyBackwards(from);
    for (let h = from; h < top; h++) out.push({ height: h, time: (await this.light.verifyBackwards(h)).header.time });
    out.push({ height: top, time: this.head.signedHeader.header.time });
    return out;
  }

  /**
   * Upgrades proposed by gov proposals now in their voting period (`MsgSoftwareUpgrade`), proven from the gov
   * store: the ids in their voting period as a complete range (04), then each proposal (00 ‖ id) with its
   * messages and voting end time. Empty when the chain's spec has no gov store.
   */
  async proposedUpgrades(): Promise<Proven<ProposedUpgrade[]>> {
    const root = this.root();
    if (!this.spec.govStoreKey) return this.proven([], root, 0);
    const gov: StateSpec = { ...this.spec, storeKey: this.spec.govStoreKey };
    const prefix = Uint8Array.of(0x04);
    const voting = await proveRange(this.provider, this.core, gov, root, prefix, await listing(this.provider, gov, root.height, prefix));
    let proofs = voting.proofs;
    const out: ProposedUpgrade[] = [];
    for (const { key } of voting.entries) {
      if (key.length !== 9) continue;
      const id = this.core.decodeUint64BE(key.subarray(1));
      const p = await proveKey(this.provider, this.core, gov, root, Uint8Array.of(0x00, ...key.subarray(1)));
      proofs++;
      if (p.value === undefined) continue;
      const proposal = decodeProposal(p.value);
      if (proposal.status !== PROPOSAL_STATUS_VOTING_PERIOD) continue;
      for (const m of proposal.messages) {
        if (m.typeUrl !== MSG_SOFTWARE_UPGRADE) continue;
        out.push({ proposalId: id, plan: decodeSoftwareUpgradePlan(m.value), votingEndTime: proposal.votingEndTime, title: proposal.title });
      }
    }
    return this.proven(out, root, proofs);
  }

  /** The latest verified header as a trust root for next time (each verified header becomes one). */
  trustRoot(): { chainId: string; height: bigint; hash: Uint8Array; time: string } {
    const lb = this.light.latestTrusted;
    return { chainId: this.chainId, height: lb.height, hash: lb.hash, time: formatTimestamp(lb.signedHeader.header.time) };
  }
}

/**
 * Trust on first use: the node's current header, taken as it is (nothing is verified). Whoever uses this must
 * say so: the chain is then whatever that node said it was at that moment.
 */
export async function trustOnFirstUse(node: Node, timeoutMs?: number): Promise<{ chainId: string; height: bigint; hash: Uint8Array; time: string }> {
  const provider = providerOf(node, timeoutMs);
  const sh = await provider.signedHeader();
  const hash = headerHash(sh.header);
  if (!hash) throw new ProviderError(provider.label, "its latest header has no validators hash", "garbage", sh.header.height);
  return { chainId: sh.header.chainId, height: sh.header.height, hash, time: formatTimestamp(sh.header.time) };
}
