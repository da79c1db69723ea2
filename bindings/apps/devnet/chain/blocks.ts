/**
 * Block records in CometBFT 0.38 JSON shapes (docs/spec/interfaces.md §5, §6): header, block id, commit
 * signatures. Hashes are SHA-256 over deterministic serialisations (a documented simplification of
 * CometBFT's Merkle hashing: clients check shapes, not proofs); commit signatures are real ed25519
 * signatures of the simulated validators.
 */
import { signEd25519, type ConsensusKey } from "./keys.js";
import { base64, hexUpper, sha256, utf8, EMPTY } from "../shared/util.js";
import { formatRfc3339NanoNs } from "../../../go/time.js";
import { concatBytes } from "../../../base/bytes.js";

export interface BlockIdJson {
  hash: string;
  parts: { total: number; hash: string };
}

export interface HeaderJson {
  version: { block: string; app?: string };
  chain_id: string;
  height: string;
  time: string;
  last_block_id: BlockIdJson;
  last_commit_hash: string;
  data_hash: string;
  validators_hash: string;
  next_validators_hash: string;
  consensus_hash: string;
  app_hash: string;
  last_results_hash: string;
  evidence_hash: string;
  proposer_address: string;
}

/** The docs/spec/interfaces.md §6 block record / CometBFT BlockMeta, keys in CometBFT order. */
export interface BlockMetaJson {
  block_id: BlockIdJson;
  block_size: string;
  header: HeaderJson;
  num_txs: string;
}

export interface CommitSigJson {
  block_id_flag: number;
  validator_address: string;
  timestamp: string;
  signature: string | null;
}

export interface CommitJson {
  height: string;
  round: number;
  block_id: BlockIdJson;
  signatures: CommitSigJson[];
}

export interface TxResultJson {
  code: number;
  data: string | null;
  log: string;
  info: string;
  gas_wanted: string;
  gas_used: string;
  events: { type: string; attributes: { key: string; value: string; index: boolean }[] }[];
  codespace: string;
}

/** Everything the devnet keeps about a committed block. */
export interface BlockRecord {
  meta: BlockMetaJson;
  /** base64 TxRaw bytes. */
  txs: string[];
  /** Commit of the previous block (CometBFT's `block.last_commit`). */
  last_commit: CommitJson;
  /** The validators' commit of this block (the next block's last_commit). */
  commit: CommitJson;
  results: TxResultJson[];
  /** FinalizeBlock events (begin/end block: gov tallies, upgrades). */
  events: TxResultJson["events"];
  /** The app hash after this block (uppercase hex; the next header's app_hash). */
  app_hash_after: string;
  /** Block time in ns since the epoch, as a decimal string. */
  time_ns: string;
}

export const EMPTY_BLOCK_ID: BlockIdJson = { hash: "", parts: { total: 0, hash: "" } };
const EMPTY_HASH = hexUpper(sha256(EMPTY)); // E3B0C442…: CometBFT's hash of an empty list

export interface ValidatorInfo {
  name: string;
  account: string;
  key: ConsensusKey;
  power: bigint;
  tokens: bigint;
  /** Uppercase hex of the 20-byte consensus address. */
  addressHex: string;
}

/** sha256 of the concatenated leaf hashes, or the empty hash for no leaves. */
function listHash(leaves: Uint8Array[]): string {
  if (leaves.length === 0) return EMPTY_HASH;
  return hexUpper(sha256(...leaves.map((l) => sha256(l))));
}

export function validatorsHash(vals: readonly ValidatorInfo[]): string {
  return listHash(vals.map((v) => concatBytes(v.key.address, utf8(`:${v.power}`))));
}

export interface BuildBlockInput {
  chainId: string;
  height: bigint;
  timeNs: bigint;
  appVersion: bigint;
  lastBlockId: BlockIdJson;
  lastCommit: CommitJson;
  /** App hash after the previous block (hex). */
  appHash: string;
  /** Results of the previous block, for last_results_hash. */
  lastResults: TxResultJson[];
  txs: Uint8Array[];
  validators: readonly ValidatorInfo[];
  proposer: ValidatorInfo;
  consensusHash: string;
}

export interface BuiltBlock {
  meta: BlockMetaJson;
  txs: string[];
  blockId: BlockIdJson;
}

/** Builds the header, block id and size of a block. */
export function buildBlock(input: BuildBlockInput): BuiltBlock {
  const valsHash = validatorsHash(input.validators);
  const header: HeaderJson = {
    version: input.appVersion === 0n ? { block: "11" } : { block: "11", app: input.appVersion.toString() },
    chain_id: input.chainId,
    height: input.height.toString(),
    time: formatRfc3339NanoNs(input.timeNs),
    last_block_id: input.lastBlockId,
    last_commit_hash: input.height === 1n ? EMPTY_HASH : listHash(input.lastCommit.signatures.map((s) => utf8(JSON.stringify(s)))),
    data_hash: listHash(input.txs),
    validators_hash: valsHash,
    next_validators_hash: valsHash,
    consensus_hash: input.consensusHash,
    app_hash: input.appHash,
    last_results_hash: listHash(input.lastResults.map((r) => utf8(`${r.code}|${r.data ?? ""}|${r.gas_wanted}|${r.gas_used}`))),
    evidence_hash: EMPTY_HASH,
    proposer_address: input.proposer.addressHex,
  };
  const txs = input.txs.map((t) => base64(t));
  const headerBytes = utf8(JSON.stringify(header));
  const body = utf8(JSON.stringify({ header, data: { txs }, evidence: { evidence: [] }, last_commit: input.lastCommit }));
  const blockId: BlockIdJson = { hash: hexUpper(sha256(headerBytes)), parts: { total: 1, hash: hexUpper(sha256(body)) } };
  return {
    meta: { block_id: blockId, block_size: body.length.toString(), header, num_txs: txs.length.toString() },
    txs,
    blockId,
  };
}

/** Every validator precommits the block: ed25519 over the canonical vote (JSON; a simplification). */
export function signCommit(chainId: string, height: bigint, blockId: BlockIdJson, timeNs: bigint, validators: readonly ValidatorInfo[]): CommitJson {
  const signatures = validators.map((v, i) => {
    const timestamp = formatRfc3339NanoNs(timeNs + BigInt(i + 1) * 1_000_000n);
    const vote = JSON.stringify({
      "@chain_id": chainId,
      "@type": "/tendermint.types.CanonicalVote",
      block_id: blockId,
      height: height.toString(),
      round: 0,
      timestamp,
      type: 2,
    });
    return { block_id_flag: 2, validator_address: v.addressHex, timestamp, signature: base64(signEd25519(v.key, utf8(vote))) };
  });
  return { height: height.toString(), round: 0, block_id: blockId, signatures };
}

export const EMPTY_COMMIT: CommitJson = { height: "0", round: 0, block_id: EMPTY_BLOCK_ID, signatures: [] };

/** What the REST block route needs of a block: a record of this engine, or CometBFT's `block` answer. */
export interface GatewayBlock {
  block_id: BlockIdJson;
  header: HeaderJson;
  /** base64 txs. */
  txs: string[];
  last_commit: CommitJson;
}

/** The parts of a block record the REST block route shows. */
export function gatewayBlockOf(rec: BlockRecord): GatewayBlock {
  return { block_id: rec.meta.block_id, header: rec.meta.header, txs: rec.txs, last_commit: rec.last_commit };
}

const BLOCK_ID_FLAGS = ["BLOCK_ID_FLAG_UNKNOWN", "BLOCK_ID_FLAG_ABSENT", "BLOCK_ID_FLAG_COMMIT", "BLOCK_ID_FLAG_NIL"];

/** The header and block in the JSON of `/cosmos/base/tendermint/v1beta1/blocks/{height}` (grpc-gateway: bytes base64). */
export function gatewayBlockJson(rec: GatewayBlock, valconsAddress: (hex: string) => string): string {
  const b64 = (hex: string) => (hex === "" ? "" : Buffer.from(hex, "hex").toString("base64"));
  const bid = (id: BlockIdJson) => ({ hash: b64(id.hash), part_set_header: { total: id.parts.total, hash: b64(id.parts.hash) } });
  const h = rec.header;
  const header = (proposer: string) => ({
    version: { block: h.version.block, app: h.version.app ?? "0" },
    chain_id: h.chain_id,
    height: h.height,
    time: h.time,
    last_block_id: bid(h.last_block_id),
    last_commit_hash: b64(h.last_commit_hash),
    data_hash: b64(h.data_hash),
    validators_hash: b64(h.validators_hash),
    next_validators_hash: b64(h.next_validators_hash),
    consensus_hash: b64(h.consensus_hash),
    app_hash: b64(h.app_hash),
    last_results_hash: b64(h.last_results_hash),
    evidence_hash: b64(h.evidence_hash),
    proposer_address: proposer,
  });
  const lastCommit = {
    height: rec.last_commit.height,
    round: rec.last_commit.round,
    block_id: bid(rec.last_commit.block_id),
    signatures: rec.last_commit.signatures.map((s) => ({
      block_id_flag: BLOCK_ID_FLAGS[s.block_id_flag] ?? "BLOCK_ID_FLAG_UNKNOWN",
      validator_address: b64(s.validator_address),
      timestamp: s.timestamp,
      signature: s.signature ?? "",
    })),
  };
  const block = (proposer: string) => ({ header: header(proposer), data: { txs: rec.txs }, evidence: { evidence: [] }, last_commit: lastCommit });
  return JSON.stringify({
    block_id: bid(rec.block_id),
    block: block(b64(h.proposer_address)),
    sdk_block: block(valconsAddress(h.proposer_address)),
  });
}
