/**
 * A synthetic CometBFT chain for the light client's tests and benchmarks: validators with keys made from a
 * seed (ed25519, or secp256k1), a validator-set schedule by height, headers hashed and commits signed the
 * way CometBFT does, served as a node's JSON-RPC (`status`, `commit`, `validators` paged). Headers and
 * commits are built on demand, so a chain of millions of heights costs only the heights asked for. The Go
 * oracle re-verifies what it serves, so the hashing and signing here are checked independently.
 */
import { toBase64, toHex } from "@cosmjs/encoding";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { commitJson, headerJson, validatorJson } from "../../../bindings/light/cmtjson.js";
import { voteSignBytes } from "../../../bindings/light/encoding.js";
import { headerHash } from "../../../bindings/light/header.js";
import { formatTimestamp, timestampFromNs, type Commit, type CommitSig, type Header, type Validator } from "../../../bindings/light/types.js";
import { ValidatorSet, keyAddress, type KeyType } from "../../../bindings/light/validators.js";
import type { TestServer } from "../http.js";
import { RpcFault, serveJsonRpc } from "./rpc-server.js";

const utf8 = new TextEncoder();
const H = (s: string) => sha256(utf8.encode(s));

export interface SyntheticKey {
  type: KeyType;
  secret: Uint8Array;
  pub: Uint8Array;
  address: Uint8Array;
}

/** The i-th key of a seed: deterministic, so the same chain comes out every run. */
export function syntheticKey(seed: string, i: number, type: KeyType = "ed25519"): SyntheticKey {
  const secret = H(`${seed}/validator/${i}`);
  const pub = type === "ed25519" ? ed25519.getPublicKey(secret) : secp256k1.getPublicKey(secret, true);
  return { type, secret, pub, address: keyAddress(type, pub) };
}

export interface Member {
  key: SyntheticKey;
  power: bigint;
}

export interface SyntheticOptions {
  chainId?: string;
  /** Validators at a height (called for h and h+1); default: `validators` at every height. */
  valsetAt?: (height: bigint) => Member[];
  /** The fixed set when `valsetAt` is not given: this many ed25519 validators of power 10. */
  validators?: number;
  /** Time of height 1 (default: now minus `blocks` × interval), and the block interval. */
  genesisNs?: bigint;
  intervalNs?: bigint;
  /** The latest height the node reports. */
  latest?: bigint;
  /** The app hash in the header of height h (default sha256("app/<h>")). */
  appHashAt?: (height: bigint) => Uint8Array;
  /** Which validators of a height sign (default all); the rest are absent. */
  signs?: (height: bigint, index: number) => boolean;
  /** A header that announces other next validators than the set of the height after it (a lie the signers made). */
  nextValidatorsHashAt?: (height: bigint) => Uint8Array | undefined;
  /** Heights the node keeps (default all from 1 to latest). */
  available?: (height: bigint) => boolean;
  /** The round of the commit of height h (default 0). */
  roundAt?: (height: bigint) => number;
  /** The time of height h (default: genesis + (h − 1) × interval). */
  timeAt?: (height: bigint) => bigint;
  /** `broadcast_evidence`: what the node answers (the evidence's hash), or throws an RpcFault; default: refused. */
  acceptEvidence?: (evidence: unknown) => Uint8Array | Promise<Uint8Array>;
}

export class SyntheticChain {
  readonly chainId: string;
  readonly intervalNs: bigint;
  readonly genesisNs: bigint;
  latest: bigint;
  private readonly o: SyntheticOptions;
  private readonly hashes = new Map<bigint, Uint8Array>();
  private readonly headers = new Map<bigint, Header>();
  private readonly commits = new Map<bigint, Commit>();
  private readonly sets = new Map<bigint, { members: Member[]; set: ValidatorSet }>();
  private readonly fixed: Member[];

  constructor(o: SyntheticOptions = {}) {
    this.o = o;
    this.chainId = o.chainId ?? "synthetic-1";
    this.intervalNs = o.intervalNs ?? 1_000_000_000n;
    this.latest = o.latest ?? 20n;
    this.genesisNs = o.genesisNs ?? BigInt(Date.now()) * 1_000_000n - this.latest * this.intervalNs - 5_000_000_000n;
    this.fixed = Array.from({ length: o.validators ?? 4 }, (_, i) => ({ key: syntheticKey(this.chainId, i), power: 10n }));
  }

  valset(height: bigint): { members: Member[]; set: ValidatorSet } {
    let s = this.sets.get(height);
    if (!s) {
      const members = this.o.valsetAt ? this.o.valsetAt(height) : this.fixed;
      const set = new ValidatorSet(members.map(toValidator));
      // Keep the members in the set's order, so member i signs as validator i.
      const byAddress = new Map(members.map((m) => [toHex(m.key.address), m]));
      s = { members: set.validators.map((v) => byAddress.get(toHex(v.address))!), set };
      this.sets.set(height, s);
    }
    return s;
  }

  timeNs(height: bigint): bigint {
    return this.o.timeAt?.(height) ?? this.genesisNs + (height - 1n) * this.intervalNs;
  }

  header(height: bigint): Header {
    let h = this.headers.get(height);
    if (!h) {
      const empty = sha256(new Uint8Array(0));
      const vals = this.valset(height);
      h = {
        version: { block: 11n, app: 0n },
        chainId: this.chainId,
        height,
        time: timestampFromNs(this.timeNs(height)),
        lastBlockId: height === 1n ? { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } } : this.blockId(height - 1n),
        lastCommitHash: height === 1n ? empty : H(`last-commit/${height}`),
        dataHash: empty,
        validatorsHash: vals.set.hash(),
        nextValidatorsHash: this.o.nextValidatorsHashAt?.(height) ?? this.valset(height + 1n).set.hash(),
        consensusHash: H("consensus"),
        appHash: this.o.appHashAt ? this.o.appHashAt(height) : H(`app/${height}`),
        lastResultsHash: empty,
        evidenceHash: empty,
        proposerAddress: vals.members[0].key.address,
      };
      this.headers.set(height, h);
    }
    return h;
  }

  hash(height: bigint): Uint8Array {
    let x = this.hashes.get(height);
    if (!x) {
      x = headerHash(this.header(height))!;
      this.hashes.set(height, x);
    }
    return x;
  }

  blockId(height: bigint) {
    return { hash: this.hash(height), partSetHeader: { total: 1, hash: H(`parts/${height}`) } };
  }

  commit(height: bigint): Commit {
    let c = this.commits.get(height);
    if (!c) {
      const { members } = this.valset(height);
      const base = this.timeNs(height) + this.intervalNs / 2n;
      const unsigned: Commit = {
        height,
        round: this.o.roundAt?.(height) ?? 0,
        blockId: this.blockId(height),
        signatures: members.map((m, i): CommitSig => {
          const signs = this.o.signs ? this.o.signs(height, i) : true;
          return signs
            ? { blockIdFlag: 2, validatorAddress: m.key.address, timestamp: timestampFromNs(base + BigInt(i) * 1_000_123n), signature: new Uint8Array(0) }
            : { blockIdFlag: 1, validatorAddress: new Uint8Array(0), timestamp: { seconds: -62135596800n, nanos: 0 }, signature: new Uint8Array(0) };
        }),
      };
      unsigned.signatures.forEach((s, i) => {
        if (s.blockIdFlag !== 2) return;
        const msg = voteSignBytes(this.chainId, unsigned, i);
        const k = members[i].key;
        s.signature = k.type === "ed25519" ? ed25519.sign(msg, k.secret) : secp256k1.sign(msg, k.secret, { prehash: true, lowS: true, format: "compact" });
      });
      c = unsigned;
      this.commits.set(height, c);
    }
    return c;
  }

  // ---- CometBFT's JSON ----

  commitJson(height: bigint): unknown {
    return { signed_header: { header: headerJson(this.header(height)), commit: commitJson(this.commit(height)) }, canonical: true };
  }

  validatorsJson(height: bigint, page: number, perPage: number): unknown {
    const all = this.valset(height).set.validators;
    const pages = Math.max(1, Math.ceil(all.length / perPage));
    if (page < 1 || page > pages) throw new RpcFault(`page should be within [1, ${pages}] range, given ${page}`);
    const slice = all.slice((page - 1) * perPage, page * perPage);
    return { block_height: height.toString(), validators: slice.map(validatorJson), count: String(slice.length), total: String(all.length) };
  }

  statusJson(): unknown {
    const h = this.header(this.latest);
    // Every field a cosmjs CometClient insists on, so one can be pointed at a synthetic node too.
    return {
      node_info: {
        id: "00".repeat(20),
        listen_addr: "tcp://127.0.0.1:26656",
        network: this.chainId,
        version: "0.38.26",
        channels: "",
        moniker: "synthetic",
        other: { tx_index: "off", rpc_address: "tcp://127.0.0.1:26657" },
        protocol_version: { p2p: "8", block: "11", app: "0" },
      },
      sync_info: {
        latest_block_hash: HEX(this.hash(this.latest)),
        latest_app_hash: HEX(h.appHash),
        latest_block_height: this.latest.toString(),
        latest_block_time: formatTimestamp(h.time),
        catching_up: false,
      },
      validator_info: { ...(validatorJson(this.valset(this.latest).set.validators[0]) as object), voting_power: "0" },
    };
  }

  /** The node's JSON-RPC: what a CometBFT node answers for these methods. */
  handle = (method: string, params: Record<string, unknown>): unknown => {
    const num = (v: unknown, d: bigint) => (v === undefined || v === null || v === "" ? d : BigInt(String(v)));
    switch (method) {
      case "status":
        return this.statusJson();
      case "commit": {
        const h = num(params.height, this.latest);
        this.available(h);
        return this.commitJson(h);
      }
      case "validators": {
        const h = num(params.height, this.latest);
        this.available(h);
        return this.validatorsJson(h, Number(num(params.page, 1n)), Math.min(100, Number(num(params.per_page, 30n))));
      }
      case "blockchain": {
        const max = num(params.maxHeight, this.latest);
        const min = num(params.minHeight, 1n);
        this.available(max);
        const metas = [];
        for (let h = max; h >= min && h > max - 20n; h--) {
          const id = this.blockId(h);
          metas.push({
            block_id: { hash: HEX(id.hash), parts: { total: id.partSetHeader.total, hash: HEX(id.partSetHeader.hash) } },
            block_size: "1000",
            header: headerJson(this.header(h)),
            num_txs: "0",
          });
        }
        return { last_height: this.latest.toString(), block_metas: metas };
      }
      case "broadcast_evidence": {
        if (!this.o.acceptEvidence) throw new RpcFault("a synthetic node keeps no evidence pool");
        return Promise.resolve(this.o.acceptEvidence(params.evidence)).then((hash) => ({ hash: toBase64(hash) }));
      }
      default:
        throw new RpcFault(`Method not found: ${method}`, -32601, "Method not found");
    }
  };

  private available(h: bigint): void {
    if (h > this.latest) throw new RpcFault(`height ${h} must be less than or equal to the current blockchain height ${this.latest}`);
    if (h < 1n || (this.o.available && !this.o.available(h))) throw new RpcFault(`height ${h} is not available, lowest height is 1`);
  }

  serve(): Promise<TestServer> {
    return serveJsonRpc(this.handle);
  }
}

function toValidator(m: Member): Validator {
  return {
    address: m.key.address,
    pubKey: m.key.type === "ed25519" ? { ed25519: m.key.pub } : { secp256k1: m.key.pub },
    votingPower: m.power,
    proposerPriority: 0n,
  };
}

const HEX = (b: Uint8Array) => toHex(b).toUpperCase();
