/**
 * A cosmjs CometClient (`connectComet(url)`, a Comet38Client or Tendermint37Client) as a LightProvider, so a
 * cosmjs application can hand the light client the client it already has. Only its decoded answers are used
 * (the interface below is the part of cosmjs' types read here; cosmjs itself is not a dependency). Times keep
 * their nanoseconds (cosmjs' DateWithNanoseconds). cosmjs has no `broadcast_evidence` call, so this provider
 * cannot report evidence of an attack; the detector says so (give the node as an RPC URL to report to it).
 */
import { ProviderError, type ProviderFailure } from "./errors.js";
import type { AbciAnswer, AbciRequest, LightProvider, NodeStatus } from "./provider.js";
import type { BlockID, Header, SignedHeader, Timestamp, Validator } from "./types.js";
import { timestampFromNs } from "./types.js";

interface CjDate {
  getTime(): number;
  readonly nanoseconds?: number;
}
interface CjBlockId {
  readonly hash: Uint8Array;
  readonly parts: { readonly total: number; readonly hash: Uint8Array };
}
interface CjHeader {
  readonly version: { readonly block: number; readonly app: number };
  readonly chainId: string;
  readonly height: number;
  readonly time: CjDate;
  readonly lastBlockId: CjBlockId | null;
  readonly lastCommitHash: Uint8Array;
  readonly dataHash: Uint8Array;
  readonly validatorsHash: Uint8Array;
  readonly nextValidatorsHash: Uint8Array;
  readonly consensusHash: Uint8Array;
  readonly appHash: Uint8Array;
  readonly lastResultsHash: Uint8Array;
  readonly evidenceHash: Uint8Array;
  readonly proposerAddress: Uint8Array;
}
interface CjCommit {
  readonly blockId: CjBlockId;
  readonly height: number;
  readonly round: number;
  readonly signatures: readonly {
    readonly blockIdFlag: number;
    readonly validatorAddress?: Uint8Array;
    readonly timestamp?: CjDate;
    readonly signature?: Uint8Array;
  }[];
}
interface CjValidator {
  readonly address: Uint8Array;
  readonly pubkey?: { readonly algorithm: string; readonly data: Uint8Array };
  readonly votingPower: bigint;
  readonly proposerPriority?: number;
}

/** The part of a cosmjs CometClient the light client uses (Comet38Client and Tendermint37Client have it). */
export interface CometClientLike {
  status(): Promise<{ readonly nodeInfo: { readonly network: string }; readonly syncInfo: { readonly latestBlockHeight: number } }>;
  commit(height?: number): Promise<{ readonly header: CjHeader; readonly commit: CjCommit }>;
  validators(params: { height?: number; page?: number; per_page?: number }): Promise<{ readonly validators: readonly CjValidator[]; readonly total: number }>;
  blockchain(minHeight?: number, maxHeight?: number): Promise<{ readonly blockMetas: readonly { readonly header: CjHeader }[] }>;
  abciQuery(params: { path: string; data: Uint8Array; height?: number; prove?: boolean }): Promise<{
    readonly key: Uint8Array;
    readonly value: Uint8Array;
    readonly proof?: { readonly ops: readonly { readonly type: string; readonly key: Uint8Array; readonly data: Uint8Array }[] };
    readonly height?: number;
    readonly code?: number;
    readonly codespace?: string;
    readonly log?: string;
  }>;
}

const PER_PAGE = 100;

/**
 * What a cosmjs error says about the node: an error it answered (cosmjs throws the JSON-RPC error object as its
 * message), no answer at all, or — anything else, cosmjs failing to read what it got — an unreadable answer.
 */
function failureOf(msg: string): ProviderFailure {
  if (/is not available/.test(msg)) return "not-found";
  if (/must be less than or equal to/.test(msg)) return "too-high";
  if (/ECONNREFUSED|ECONNRESET|fetch failed|socket|network|timeout|timed out|aborted|Bad status on response/i.test(msg)) return "unreachable";
  if (/^\{"code":/.test(msg)) return "rpc";
  return "garbage";
}
const EMPTY = new Uint8Array(0);

const time = (d: CjDate): Timestamp => timestampFromNs(BigInt(d.getTime()) * 1_000_000n + BigInt(d.nanoseconds ?? 0));
/** Go's zero time, what an absent signature carries (cosmjs drops it). */
const GO_ZERO: Timestamp = { seconds: -62135596800n, nanos: 0 };

const blockId = (b: CjBlockId | null): BlockID =>
  b ? { hash: b.hash, partSetHeader: { total: b.parts.total, hash: b.parts.hash } } : { hash: EMPTY, partSetHeader: { total: 0, hash: EMPTY } };

const header = (h: CjHeader): Header => ({
  version: { block: BigInt(h.version.block), app: BigInt(h.version.app) },
  chainId: h.chainId,
  height: BigInt(h.height),
  time: time(h.time),
  lastBlockId: blockId(h.lastBlockId),
  lastCommitHash: h.lastCommitHash,
  dataHash: h.dataHash,
  validatorsHash: h.validatorsHash,
  nextValidatorsHash: h.nextValidatorsHash,
  consensusHash: h.consensusHash,
  appHash: h.appHash,
  lastResultsHash: h.lastResultsHash,
  evidenceHash: h.evidenceHash,
  proposerAddress: h.proposerAddress,
});

export class CometClientProvider implements LightProvider {
  constructor(
    readonly client: CometClientLike,
    readonly label = "the CometClient's node",
  ) {}

  private async ask<T>(what: string, height: bigint | undefined, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      throw new ProviderError(this.label, `${what}: ${msg}`, failureOf(msg), height);
    }
  }

  /** cosmjs' CometClient has no `broadcast_evidence`: always refused, and said so. */
  reportEvidence(): Promise<Uint8Array> {
    return Promise.reject(
      new ProviderError(
        this.label,
        "cannot report evidence: a cosmjs CometClient has no broadcast_evidence call (give this node as an RPC URL to report to it)",
        "rpc",
      ),
    );
  }

  async status(): Promise<NodeStatus> {
    const s = await this.ask("status", undefined, () => this.client.status());
    return { chainId: s.nodeInfo.network, latestHeight: BigInt(s.syncInfo.latestBlockHeight) };
  }

  async signedHeader(height?: bigint): Promise<SignedHeader> {
    const r = await this.ask("commit", height, () => this.client.commit(height === undefined ? undefined : Number(height)));
    const c = r.commit;
    return {
      header: header(r.header),
      commit: {
        height: BigInt(c.height),
        round: c.round,
        blockId: blockId(c.blockId),
        signatures: c.signatures.map((s) => ({
          blockIdFlag: s.blockIdFlag,
          validatorAddress: s.validatorAddress ?? EMPTY,
          timestamp: s.timestamp ? time(s.timestamp) : GO_ZERO,
          signature: s.signature ?? EMPTY,
        })),
      },
    };
  }

  async validators(height: bigint): Promise<Validator[]> {
    const out: Validator[] = [];
    for (let page = 1; ; page++) {
      const r = await this.ask("validators", height, () => this.client.validators({ height: Number(height), page, per_page: PER_PAGE }));
      for (const v of r.validators) {
        const pk = v.pubkey;
        out.push({
          address: v.address,
          pubKey: pk?.algorithm === "ed25519" ? { ed25519: pk.data } : pk?.algorithm === "secp256k1" ? { secp256k1: pk.data } : {},
          votingPower: v.votingPower,
          proposerPriority: BigInt(v.proposerPriority ?? 0),
        });
      }
      if (r.validators.length === 0 || out.length >= r.total || page >= 100) return out;
    }
  }

  async headers(minHeight: bigint, maxHeight: bigint): Promise<Header[]> {
    const r = await this.ask("blockchain", maxHeight, () => this.client.blockchain(Number(minHeight), Number(maxHeight)));
    return r.blockMetas.map((m) => header(m.header));
  }

  async abciQuery(q: AbciRequest): Promise<AbciAnswer> {
    const r = await this.ask("abci_query", q.height, () => this.client.abciQuery({ path: q.path, data: q.data, height: Number(q.height), prove: q.prove }));
    return {
      code: r.code ?? 0,
      codespace: r.codespace ?? "",
      log: r.log ?? "",
      key: r.key,
      value: r.value,
      height: BigInt(r.height ?? 0),
      proofOps: r.proof?.ops.map((op) => ({ type: op.type, key: op.key, data: op.data })),
    };
  }
}
