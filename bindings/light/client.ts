/**
 * The light client (docs/spec/light-client.md §3–§4), CometBFT's light/client.go in skipping mode: from a trust
 * root, a header at any later height is verified by skipping straight to it when more than 1/3 of the trusted
 * validators signed it, else by bisection (a header 9/16 of the way first, as CometBFT picks it); every
 * verified header becomes a trust root for the next. Witnesses are then asked for the same header
 * (./detector.ts): at least one is required, as in CometBFT, unless the caller opts out explicitly. Unlike
 * CometBFT's client, a primary that serves an invalid header is not replaced by a witness: the failure is the
 * answer, and nothing is verified.
 */
import { type CommitTally, DEFAULT_TRUST_LEVEL, type TrustLevel, validateTrustLevel, verifyCommitLight } from "./commit.js";
import { type WitnessReport, compareFirstWithWitnesses, detectDivergence } from "./detector.js";
import {
  ChainIdMismatchError,
  HeaderOrderError,
  InvalidHeaderError,
  LastBlockIdMismatchError,
  NewValSetCantBeTrustedError,
  NoWitnessesError,
  ProviderError,
  TrustOptionsError,
  TrustedHashMismatchError,
} from "./errors.js";
import { headerHash, headerProblem } from "./header.js";
import { type LightProvider, fetchLightBlock } from "./provider.js";
import type { SignatureEngine } from "./signatures.js";
import { DEFAULT_MAX_BLOCK_LAG_MS, DEFAULT_MAX_CLOCK_DRIFT_NS, type TrustOptions, type TrustRoot, trustRoot } from "./trust.js";
import { type Header, type Timestamp, formatTimestamp, nowTimestamp, timestampNs } from "./types.js";
import { type LightBlock, type VerifyOptions, verify } from "./verifier.js";
import { equalBytes } from "../base/bytes.js";

export interface LightClientOptions {
  /** Default: the trusted header's own chain id (the trusted hash commits to it). */
  chainId?: string;
  trust: TrustOptions;
  /**
   * Other nodes asked for the same headers: at least one must have the same one, and a conflict fails
   * verification. At least one is required unless `withoutWitnesses` is set.
   */
  witnesses?: readonly LightProvider[];
  /**
   * Run without witnesses, on the primary's word alone: it can then present a fork of the chain as verified,
   * and nothing would tell. Outputs should say so (`LightClient.withoutWitnesses`).
   */
  withoutWitnesses?: boolean;
  /** Default 1/3 (CometBFT's DefaultTrustLevel). */
  trustLevel?: TrustLevel;
  /** Default 10 s. */
  maxClockDriftNs?: bigint;
  /** How long to wait for a witness that has not reached a height yet; default 10 s. */
  maxBlockLagMs?: number;
  /** The clock (default: this machine's). */
  now?: () => Timestamp;
  engine?: SignatureEngine;
  /** Called for each verification step, for progress and reports. */
  onStep?: (step: VerificationStep) => void;
}

/**
 * One step the client took. "witness": a witness confirmed the header; "witness-faulty": one answered something
 * malformed or unverifiable; "witness-unavailable": one could not answer (docs/spec/light-client.md §4.7).
 */
export interface VerificationStep {
  kind: "root" | "adjacent" | "skipping" | "witness" | "witness-faulty" | "witness-unavailable";
  /** The trusted height the step started from (the root's own height for "root"). */
  from: bigint;
  height: bigint;
  hash: Uint8Array;
  /** Signatures verified and the power they carry (not for the witness kinds). */
  tally?: CommitTally;
  /** For the witness kinds: the witness. */
  witness?: string;
  /** For "witness-faulty" and "witness-unavailable": why. */
  reason?: string;
}

/** A header verified backwards (by the hash chain of last block ids), without its validator set. */
export interface VerifiedHeaderRecord {
  header: Header;
  hash: Uint8Array;
  height: bigint;
}

/** `blockchain` answers at most 20 headers at a time. */
const BATCH = 20n;

/** CometBFT's verifySkippingNumerator / Denominator: where bisection picks the header in between. */
const PIVOT = { numerator: 9n, denominator: 16n };
/** Trusted light blocks kept in memory (CometBFT's default pruning size). */
const KEEP = 1000;

export class LightClient {
  readonly chainId: string;
  readonly root: TrustRoot;
  private readonly trusted = new Map<bigint, LightBlock>();
  private readonly below = new Map<bigint, VerifiedHeaderRecord>();
  /** What the witnesses said of each verified height that was compared with them. */
  private readonly reports = new Map<bigint, WitnessReport>();
  private latest: LightBlock;
  private readonly o: Required<Omit<LightClientOptions, "chainId" | "trust" | "engine" | "onStep">> & Pick<LightClientOptions, "engine" | "onStep">;

  private constructor(
    readonly primary: LightProvider,
    options: LightClientOptions,
    root: TrustRoot,
    rootBlock: LightBlock,
  ) {
    this.chainId = rootBlock.signedHeader.header.chainId;
    this.root = root;
    this.o = {
      witnesses: options.witnesses ?? [],
      withoutWitnesses: options.withoutWitnesses ?? false,
      trustLevel: options.trustLevel ?? DEFAULT_TRUST_LEVEL,
      maxClockDriftNs: options.maxClockDriftNs ?? DEFAULT_MAX_CLOCK_DRIFT_NS,
      maxBlockLagMs: options.maxBlockLagMs ?? DEFAULT_MAX_BLOCK_LAG_MS,
      now: options.now ?? nowTimestamp,
      engine: options.engine,
      onStep: options.onStep,
    };
    this.latest = rootBlock;
    this.trusted.set(rootBlock.height, rootBlock);
  }

  /**
   * Starts from the trust root (initializeWithTrustOptions): the primary's header at the trusted height must
   * hash to the trusted hash and carry more than 2/3 of its validators' signatures; a witness with another
   * header at that height fails it. Whether the root is still within the trusting period is checked, as
   * CometBFT does, by each verification that starts from it.
   */
  static async create(primary: LightProvider, options: LightClientOptions): Promise<LightClient> {
    const root = trustRoot(options.trust);
    if (options.trustLevel) validateTrustLevel(options.trustLevel);
    const witnesses = options.witnesses?.length ?? 0;
    if (options.withoutWitnesses && witnesses > 0) {
      throw new TrustOptionsError(`withoutWitnesses is set, but ${witnesses} witness${witnesses === 1 ? " was" : "es were"} given: drop one or the other`);
    }
    if (!options.withoutWitnesses && witnesses === 0) throw new NoWitnessesError();
    const block = await fetchLightBlock(primary, root.height, options.chainId);
    if (!equalBytes(block.hash, root.hash)) throw new TrustedHashMismatchError(root.hash, block.hash, root.height);
    const client = new LightClient(primary, options, root, block);
    const { commit } = block.signedHeader;
    const tally = await verifyCommitLight(client.chainId, block.validatorSet, commit.blockId, block.height, commit, options.engine);
    options.onStep?.({ kind: "root", from: block.height, height: block.height, hash: block.hash, tally });
    client.record(block, await compareFirstWithWitnesses(block, client.o.witnesses, client.chainId));
    return client;
  }

  /** Whether the client runs on the primary's word alone (LightClientOptions.withoutWitnesses). */
  get withoutWitnesses(): boolean {
    return this.o.withoutWitnesses;
  }

  /** The witnesses' labels. */
  get witnesses(): string[] {
    return this.o.witnesses.map((w) => w.label);
  }

  /**
   * What the witnesses said of a verified header: which confirmed it, which were faulty or unavailable, and why.
   * Undefined for a height that was not compared with them (a header in between, or none without witnesses).
   */
  witnessReport(height: bigint): WitnessReport | undefined {
    return this.reports.get(height);
  }

  private record(block: LightBlock, report: WitnessReport): void {
    if (this.o.witnesses.length === 0) return;
    this.reports.set(block.height, report);
    const step = { from: block.height, height: block.height, hash: block.hash };
    for (const witness of report.confirmed) this.o.onStep?.({ ...step, kind: "witness", witness });
    for (const f of report.faulty) this.o.onStep?.({ ...step, kind: "witness-faulty", witness: f.witness, reason: f.reason });
    for (const f of report.unavailable) this.o.onStep?.({ ...step, kind: "witness-unavailable", witness: f.witness, reason: f.reason });
  }

  /** The highest verified light block: the trust root for what comes next. */
  get latestTrusted(): LightBlock {
    return this.latest;
  }

  /** A verified light block at exactly this height, if the client has one. */
  trustedAt(height: bigint): LightBlock | undefined {
    return this.trusted.get(height);
  }

  private verifyOptions(): VerifyOptions {
    return {
      trustingPeriodNs: this.root.periodNs,
      maxClockDriftNs: this.o.maxClockDriftNs,
      now: this.o.now(),
      trustLevel: this.o.trustLevel,
      engine: this.o.engine,
    };
  }

  /** The primary's latest header, verified. */
  async verifyLatest(): Promise<LightBlock> {
    const status = await this.primary.status();
    return this.verifyAtHeight(status.latestHeight);
  }

  /** The primary's header at `height`, verified from the closest trusted header below it (VerifyLightBlockAtHeight). */
  async verifyAtHeight(height: bigint): Promise<LightBlock> {
    const known = this.trusted.get(height);
    if (known) return known;
    if (height < this.root.height) throw new HeaderOrderError(`the header is below the trust root at height ${this.root.height}`, height);
    let from = this.root.height;
    for (const h of this.trusted.keys()) if (h < height && h > from) from = h;
    const trusted = this.trusted.get(from)!;
    const target = await fetchLightBlock(this.primary, height, this.chainId);
    const o = this.verifyOptions();
    const trace = await this.verifySkipping(this.primary, trusted, target, o, true);
    const report = await detectDivergence(trace, this.o.witnesses, {
      chainId: this.chainId,
      maxBlockLagMs: this.o.maxBlockLagMs,
      primary: this.primary,
      verifySkipping: (source, from, to) => this.verifySkipping(source, from, to, o, false),
    });
    this.record(target, report);
    for (const b of trace.slice(1)) this.keep(b);
    return target;
  }

  /**
   * A header below a verified one, verified backwards (CometBFT's VerifyBackwards): each header down from the
   * lowest verified header above `height` must be well formed, of the chain, older, and hash to the last block
   * id the header above it names — no signatures needed. At most `limit` headers down.
   */
  async verifyBackwards(height: bigint, limit = 10_000n): Promise<VerifiedHeaderRecord> {
    if (height < 1n) throw new HeaderOrderError("heights start at 1", height);
    const record = (b: LightBlock): VerifiedHeaderRecord => ({ header: b.signedHeader.header, hash: b.hash, height: b.height });
    const known = this.trusted.get(height) ?? this.below.get(height);
    if (known) return "signedHeader" in known ? record(known) : known;
    let anchor: VerifiedHeaderRecord | undefined;
    for (const b of this.trusted.values()) if (b.height > height && (!anchor || b.height < anchor.height)) anchor = record(b);
    for (const r of this.below.values()) if (r.height > height && (!anchor || r.height < anchor.height)) anchor = r;
    if (!anchor) throw new HeaderOrderError(`the header is above every verified header (the latest is ${this.latest.height}): verify forward instead`, height);
    if (anchor.height - height > limit)
      throw new HeaderOrderError(`the header is ${anchor.height - height} blocks below the nearest verified one (at most ${limit} are followed back)`, height);
    let cur = anchor;
    while (cur.height > height) {
      const from = cur.height - BATCH > height ? cur.height - BATCH : height;
      const batch = new Map((await this.primary.headers(from, cur.height - 1n)).map((h) => [h.height, h]));
      for (let h = cur.height - 1n; h >= from; h--) {
        const header = batch.get(h);
        if (!header)
          throw new ProviderError(this.primary.label, `blockchain ${from}–${cur.height - 1n} did not return the header at height ${h}`, "garbage", h);
        const problem = headerProblem(header);
        if (problem) throw new InvalidHeaderError(`malformed header: ${problem}`, h);
        if (header.chainId !== this.chainId) throw new ChainIdMismatchError(this.chainId, header.chainId, h);
        if (timestampNs(header.time) >= timestampNs(cur.header.time)) {
          throw new HeaderOrderError(
            `the header's time ${formatTimestamp(header.time)} is not before the verified header's above it (${formatTimestamp(cur.header.time)})`,
            h,
          );
        }
        const hash = headerHash(header) ?? new Uint8Array(0);
        if (!equalBytes(hash, cur.header.lastBlockId.hash)) throw new LastBlockIdMismatchError(hash, cur.header.lastBlockId.hash, h);
        cur = { header, hash, height: h };
        this.below.set(h, cur);
      }
    }
    if (this.below.size > 10 * KEEP) this.below.clear();
    return cur;
  }

  private keep(b: LightBlock): void {
    this.trusted.set(b.height, b);
    if (b.height > this.latest.height) this.latest = b;
    if (this.trusted.size > KEEP) {
      const oldest = [...this.trusted.keys()].filter((h) => h !== this.root.height).sort((a, b) => (a < b ? -1 : 1))[0];
      this.trusted.delete(oldest);
      this.reports.delete(oldest);
    }
  }

  /**
   * verifySkipping: the trace of light blocks from `trusted` to `target`, each verified from the one before.
   * When the trusted validators signed too little of a header, a header 9/16 of the way is verified first.
   */
  private async verifySkipping(source: LightProvider, trusted: LightBlock, target: LightBlock, o: VerifyOptions, report: boolean): Promise<LightBlock[]> {
    const cache: LightBlock[] = [target];
    let depth = 0;
    let verified = trusted;
    const trace = [trusted];
    for (;;) {
      const candidate = cache[depth];
      try {
        const tally = await verify(verified, candidate, o);
        if (report) {
          const kind = candidate.height === verified.height + 1n ? "adjacent" : "skipping";
          this.o.onStep?.({ kind, from: verified.height, height: candidate.height, hash: candidate.hash, tally });
        }
        if (depth === 0) {
          trace.push(target);
          return trace;
        }
        verified = candidate;
        cache.length = depth;
        depth = 0;
        trace.push(verified);
      } catch (e) {
        if (!(e instanceof NewValSetCantBeTrustedError)) throw e;
        if (depth === cache.length - 1) {
          const pivot = verified.height + ((candidate.height - verified.height) * PIVOT.numerator) / PIVOT.denominator;
          let interim: LightBlock;
          try {
            interim = await fetchLightBlock(source, pivot, this.chainId);
          } catch (pe) {
            // A node that does not have (or does not give) the header in between leaves the skip unverifiable:
            // the trust-level failure stands. Anything else it sent is its own failure.
            if (pe instanceof ProviderError && pe.failure !== "garbage" && pe.failure !== "rpc") throw e;
            throw pe;
          }
          cache.push(interim);
        }
        depth++;
      }
    }
  }
}
