/**
 * The block record of `query upgrade applied --verify` (docs/spec/light-client.md §9.2): the shape of the plain
 * query's record (block-record.ts), every field taken from the header the light client verified — the header's own
 * fields, its hash, its part-set header as the verified header above it names it — and `num_txs` counted from the
 * block's transactions once they hash to the verified `data_hash`. The node's `block_size` is proven by nothing, so
 * it is not in the record: the caller prints it apart, labelled unverified.
 */
import { toHex } from "@cosmjs/encoding";
import { formatRfc3339Nano } from "../../../go/time.js";
import type { BlockID, Header } from "../../../light/types.js";
import type { JsonValue } from "../yaml.js";

const upper = (b: Uint8Array | undefined) => toHex(b ?? new Uint8Array(0)).toUpperCase();

function blockIdJson(id: BlockID | undefined): JsonValue {
  return { hash: upper(id?.hash), parts: { total: id?.partSetHeader?.total ?? 0, hash: upper(id?.partSetHeader?.hash) } };
}

/** `blockId`: the block's id as the verified header above it names it (its hash is `hash`). */
export function verifiedBlockRecord(header: Header, blockId: BlockID, numTxs: number): JsonValue {
  const v = header.version;
  const version: Record<string, JsonValue> = { block: (v?.block ?? 0n).toString() };
  if (v && v.app !== 0n) version.app = v.app.toString();
  const t = header.time;
  return {
    block_id: blockIdJson(blockId),
    header: {
      version,
      chain_id: header.chainId,
      height: header.height.toString(),
      time: formatRfc3339Nano(t.seconds, t.nanos),
      last_block_id: blockIdJson(header.lastBlockId),
      last_commit_hash: upper(header.lastCommitHash),
      data_hash: upper(header.dataHash),
      validators_hash: upper(header.validatorsHash),
      next_validators_hash: upper(header.nextValidatorsHash),
      consensus_hash: upper(header.consensusHash),
      app_hash: upper(header.appHash),
      last_results_hash: upper(header.lastResultsHash),
      evidence_hash: upper(header.evidenceHash),
      proposer_address: upper(header.proposerAddress),
    },
    num_txs: String(numTxs),
  };
}
