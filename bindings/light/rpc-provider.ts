/**
 * A node's CometBFT JSON-RPC as a LightProvider (`commit`, `validators` page by page, `abci_query`, `status`),
 * through the client's CometRpc, and `broadcast_evidence` for the detector. Every field is read strictly — hashes as hex, signatures and keys as base64,
 * times as RFC 3339 with their nanoseconds — and anything else is a ProviderError naming the field.
 */
import { fromBase64, fromHex, toHex } from "@cosmjs/encoding";
import { ClientError } from "../client/errors.js";
import { CometRpc, RpcError, isObject } from "../client/rpc.js";
import { browserTransport } from "../client/uri-transport.js";
import { parseRfc3339Nanos } from "../go/time.js";
import { evidenceJson } from "./cmtjson.js";
import { ProviderError } from "./errors.js";
import type { LightClientAttackEvidence } from "./evidence.js";
import type { AbciAnswer, AbciRequest, LightProvider, NodeStatus, ProofOp } from "./provider.js";
import type { BlockID, Commit, CommitSig, Header, SignedHeader, Timestamp, Validator } from "./types.js";
import { timestampFromNs } from "./types.js";

type Json = Record<string, unknown>;

/** CometBFT's messages for heights it does not keep or has not reached (light/provider/http). */
const MISSING_HEIGHT = /height \d+ is not available|is not available, lowest height is/;
const TOO_HIGH = /must be less than or equal to/;

/** CometBFT's `/validators` page size limit. */
const PER_PAGE = 100;
const MAX_PAGES = 100;

class Reader {
  constructor(
    private readonly provider: string,
    private readonly method: string,
    private readonly height: bigint | undefined,
  ) {}

  fail(path: string, what: string): ProviderError {
    return new ProviderError(this.provider, `invalid answer to ${this.method}: ${path} ${what}`, "garbage", this.height);
  }

  obj(o: Json, key: string, path: string): Json {
    const v = o[key];
    if (!isObject(v)) throw this.fail(`${path}.${key}`, "is not an object");
    return v;
  }

  str(o: Json, key: string, path: string): string {
    const v = o[key];
    if (typeof v !== "string") throw this.fail(`${path}.${key}`, "is not a string");
    return v;
  }

  /** An int64 as a decimal string, or (as CometBFT writes some fields) a JSON number. */
  int(o: Json, key: string, path: string): bigint {
    const v = o[key];
    if (typeof v === "string" && /^-?\d{1,19}$/.test(v)) return BigInt(v);
    if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
    throw this.fail(`${path}.${key}`, "is not an integer");
  }

  small(o: Json, key: string, path: string, min: number, max: number): number {
    const v = this.int(o, key, path);
    if (v < BigInt(min) || v > BigInt(max)) throw this.fail(`${path}.${key}`, `is out of range (${v})`);
    return Number(v);
  }

  hex(o: Json, key: string, path: string): Uint8Array {
    const v = this.str(o, key, path);
    if (!/^([0-9A-Fa-f]{2})*$/.test(v)) throw this.fail(`${path}.${key}`, "is not hex");
    return fromHex(v);
  }

  b64(o: Json, key: string, path: string, nullable = false): Uint8Array {
    const v = o[key];
    if (nullable && (v === null || v === undefined)) return new Uint8Array(0);
    if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) throw this.fail(`${path}.${key}`, "is not base64");
    return fromBase64(v);
  }

  time(o: Json, key: string, path: string): Timestamp {
    const ns = parseRfc3339Nanos(this.str(o, key, path));
    if (ns === undefined) throw this.fail(`${path}.${key}`, "is not an RFC 3339 time");
    return timestampFromNs(ns);
  }

  blockId(o: Json, key: string, path: string): BlockID {
    const id = this.obj(o, key, path);
    const p = `${path}.${key}`;
    const parts = this.obj(id, "parts", p);
    return {
      hash: this.hex(id, "hash", p),
      partSetHeader: { total: this.small(parts, "total", `${p}.parts`, 0, 0xffffffff), hash: this.hex(parts, "hash", `${p}.parts`) },
    };
  }

  header(o: Json, path: string): Header {
    const version = this.obj(o, "version", path);
    return {
      version: { block: this.int(version, "block", `${path}.version`), app: version.app === undefined ? 0n : this.int(version, "app", `${path}.version`) },
      chainId: this.str(o, "chain_id", path),
      height: this.int(o, "height", path),
      time: this.time(o, "time", path),
      lastBlockId: this.blockId(o, "last_block_id", path),
      lastCommitHash: this.hex(o, "last_commit_hash", path),
      dataHash: this.hex(o, "data_hash", path),
      validatorsHash: this.hex(o, "validators_hash", path),
      nextValidatorsHash: this.hex(o, "next_validators_hash", path),
      consensusHash: this.hex(o, "consensus_hash", path),
      appHash: this.hex(o, "app_hash", path),
      lastResultsHash: this.hex(o, "last_results_hash", path),
      evidenceHash: this.hex(o, "evidence_hash", path),
      proposerAddress: this.hex(o, "proposer_address", path),
    };
  }

  commit(o: Json, path: string): Commit {
    const sigs = o.signatures;
    if (!Array.isArray(sigs)) throw this.fail(`${path}.signatures`, "is not an array");
    return {
      height: this.int(o, "height", path),
      round: this.small(o, "round", path, -(2 ** 31), 2 ** 31 - 1),
      blockId: this.blockId(o, "block_id", path),
      signatures: sigs.map((s, i): CommitSig => {
        const p = `${path}.signatures[${i}]`;
        if (!isObject(s)) throw this.fail(p, "is not an object");
        return {
          blockIdFlag: this.small(s, "block_id_flag", p, 0, 2 ** 31 - 1),
          validatorAddress: this.hex(s, "validator_address", p),
          timestamp: this.time(s, "timestamp", p),
          signature: this.b64(s, "signature", p, true),
        };
      }),
    };
  }

  validator(o: unknown, path: string): Validator {
    if (!isObject(o)) throw this.fail(path, "is not an object");
    const pk = this.obj(o, "pub_key", path);
    const type = this.str(pk, "type", `${path}.pub_key`);
    const value = this.b64(pk, "value", `${path}.pub_key`);
    let pubKey: Validator["pubKey"];
    if (type === "tendermint/PubKeyEd25519") pubKey = { ed25519: value };
    else if (type === "tendermint/PubKeySecp256k1") pubKey = { secp256k1: value };
    else throw this.fail(`${path}.pub_key.type`, `is an unsupported key type ${JSON.stringify(type)}`);
    return {
      address: this.hex(o, "address", path),
      pubKey,
      votingPower: this.int(o, "voting_power", path),
      proposerPriority: this.int(o, "proposer_priority", path),
    };
  }
}

/**
 * A signed header in CometBFT's JSON wherever it appears (a block's evidence, a saved light block), read as
 * strictly as a `commit` answer; `source` names it in errors.
 */
export function readSignedHeaderJson(json: unknown, source = "the JSON"): SignedHeader {
  const r = new Reader(source, "a signed header", undefined);
  if (!isObject(json)) throw r.fail("it", "is not an object");
  return { header: r.header(r.obj(json, "header", "it"), "it.header"), commit: r.commit(r.obj(json, "commit", "it"), "it.commit") };
}

export class RpcProvider implements LightProvider {
  readonly label: string;

  constructor(readonly rpc: CometRpc) {
    this.label = rpc.label;
  }

  /** An endpoint (`http(s)://…`, `tcp://…`; in a browser page asked in CometBFT's URI form, without CORS preflights) or a CometRpc. */
  static of(node: string | CometRpc, timeoutMs?: number): RpcProvider {
    return new RpcProvider(typeof node === "string" ? new CometRpc(node, timeoutMs, browserTransport) : node);
  }

  private async call(method: string, params: Record<string, unknown>, height?: bigint): Promise<Json> {
    try {
      return await this.rpc.call(method, params);
    } catch (e) {
      if (e instanceof RpcError) {
        const detail = e.data || e.rpcMessage;
        const failure = MISSING_HEIGHT.test(detail) ? "not-found" : TOO_HIGH.test(detail) ? "too-high" : "rpc";
        throw new ProviderError(this.label, `${method}: ${detail}`, failure, height);
      }
      const unreachable = e instanceof ClientError && /^cannot (reach|read)/.test(e.message);
      throw new ProviderError(this.label, (e as Error).message.replace(`node ${this.label}`, "the node"), unreachable ? "unreachable" : "garbage", height);
    }
  }

  async status(): Promise<NodeStatus> {
    const r = new Reader(this.label, "status", undefined);
    const res = await this.call("status", {});
    const nodeInfo = r.obj(res, "node_info", "result");
    const sync = r.obj(res, "sync_info", "result");
    return { chainId: r.str(nodeInfo, "network", "result.node_info"), latestHeight: r.int(sync, "latest_block_height", "result.sync_info") };
  }

  async signedHeader(height?: bigint): Promise<SignedHeader> {
    const r = new Reader(this.label, "commit", height);
    const res = await this.call("commit", height === undefined ? {} : { height: height.toString() }, height);
    const sh = r.obj(res, "signed_header", "result");
    return {
      header: r.header(r.obj(sh, "header", "result.signed_header"), "result.signed_header.header"),
      commit: r.commit(r.obj(sh, "commit", "result.signed_header"), "result.signed_header.commit"),
    };
  }

  /** Every page of `/validators` at `height` (light/provider/http's validatorSet). */
  async validators(height: bigint): Promise<Validator[]> {
    const r = new Reader(this.label, "validators", height);
    const out: Validator[] = [];
    let total = -1n;
    for (let page = 1; BigInt(out.length) !== total; page++) {
      if (page > MAX_PAGES) throw r.fail("result", `has more than ${MAX_PAGES} pages`);
      const res = await this.call("validators", { height: height.toString(), page: String(page), per_page: String(PER_PAGE) }, height);
      const vals = res.validators;
      if (!Array.isArray(vals) || vals.length === 0) throw r.fail(`result.validators (page ${page})`, "is empty");
      total = r.int(res, "total", "result");
      if (total <= 0n) throw r.fail("result.total", `is ${total}`);
      vals.forEach((v, i) => out.push(r.validator(v, `result.validators[${i}] (page ${page})`)));
      if (BigInt(out.length) > total) throw r.fail("result", `lists more validators (${out.length}) than its total ${total}`);
    }
    return out;
  }

  async headers(minHeight: bigint, maxHeight: bigint): Promise<Header[]> {
    const r = new Reader(this.label, "blockchain", maxHeight);
    const res = await this.call("blockchain", { minHeight: minHeight.toString(), maxHeight: maxHeight.toString() }, maxHeight);
    const metas = res.block_metas;
    if (!Array.isArray(metas)) throw r.fail("result.block_metas", "is not an array");
    return metas.map((m, i) => {
      if (!isObject(m)) throw r.fail(`result.block_metas[${i}]`, "is not an object");
      return r.header(r.obj(m, "header", `result.block_metas[${i}]`), `result.block_metas[${i}].header`);
    });
  }

  /** `broadcast_evidence`: the node checks the evidence against its own chain; its answer is the evidence's hash. */
  async reportEvidence(evidence: LightClientAttackEvidence): Promise<Uint8Array> {
    const r = new Reader(this.label, "broadcast_evidence", undefined);
    const res = await this.call("broadcast_evidence", { evidence: evidenceJson(evidence) });
    return r.b64(res, "hash", "result");
  }

  async abciQuery(q: AbciRequest): Promise<AbciAnswer> {
    const r = new Reader(this.label, "abci_query", q.height);
    const res = await this.call("abci_query", { path: q.path, data: toHex(q.data), height: q.height.toString(), prove: q.prove }, q.height);
    const a = r.obj(res, "response", "result");
    let proofOps: ProofOp[] | undefined;
    const po = a.proofOps;
    if (po !== null && po !== undefined) {
      if (!isObject(po) || !Array.isArray(po.ops)) throw r.fail("result.response.proofOps", "is not {ops: [...]}");
      proofOps = po.ops.map((op, i) => {
        const p = `result.response.proofOps.ops[${i}]`;
        if (!isObject(op)) throw r.fail(p, "is not an object");
        return { type: r.str(op, "type", p), key: r.b64(op, "key", p, true), data: r.b64(op, "data", p, true) };
      });
    }
    return {
      code: a.code === undefined ? 0 : r.small(a, "code", "result.response", 0, 2 ** 32 - 1),
      codespace: typeof a.codespace === "string" ? a.codespace : "",
      log: typeof a.log === "string" ? a.log : "",
      key: r.b64(a, "key", "result.response", true),
      value: r.b64(a, "value", "result.response", true),
      height: a.height === undefined ? 0n : r.int(a, "height", "result.response"),
      proofOps,
    };
  }
}
