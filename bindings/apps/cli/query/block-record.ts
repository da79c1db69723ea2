/**
 * The block record of `query upgrade applied` (docs/spec/interfaces.md §6): a CometBFT BlockMeta re-emitted with
 * the seed's keys in order, hashes upper-case hex, `parts.total` a number, int64 values as strings and
 * the time in RFC3339Nano; `header.version.app` only when non-zero.
 */
import type { CometRpc } from "../../../client/rpc.js";
import { isObject } from "../../../client/rpc.js";
import { normalizeRfc3339 } from "../../../go/time.js";
import type { JsonValue } from "../yaml.js";

const HEADER_HASHES = [
  "last_commit_hash",
  "data_hash",
  "validators_hash",
  "next_validators_hash",
  "consensus_hash",
  "app_hash",
  "last_results_hash",
  "evidence_hash",
  "proposer_address",
] as const;

export function blockRecord(rpc: CometRpc, meta: unknown): JsonValue {
  const bad = (what: string) => rpc.garbage("blockchain", `block meta: ${what}`);
  const o = (v: unknown, what: string): Record<string, unknown> => {
    if (!isObject(v)) throw bad(`${what} is not an object`);
    return v;
  };
  const hex = (v: unknown, what: string): string => {
    if (typeof v !== "string" || !/^[0-9a-fA-F]*$/.test(v)) throw bad(`${what} is not hex`);
    return v.toUpperCase();
  };
  const int = (v: unknown, what: string): string => {
    if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
    if (typeof v !== "string" || !/^-?[0-9]+$/.test(v)) throw bad(`${what} is not an integer`);
    return BigInt(v).toString();
  };
  const blockId = (v: unknown, what: string): JsonValue => {
    const id = o(v, what);
    const parts = o(id.parts, `${what}.parts`);
    const total = typeof parts.total === "number" ? parts.total : Number(int(parts.total, `${what}.parts.total`));
    return { hash: hex(id.hash, `${what}.hash`), parts: { total, hash: hex(parts.hash, `${what}.parts.hash`) } };
  };

  const m = o(meta, "block meta");
  const h = o(m.header, "header");
  const v = o(h.version, "header.version");
  const version: Record<string, JsonValue> = { block: int(v.block, "header.version.block") };
  if (v.app !== undefined && v.app !== null && int(v.app, "header.version.app") !== "0") version.app = int(v.app, "header.version.app");
  if (typeof h.chain_id !== "string") throw bad("header.chain_id is not a string");
  const time = typeof h.time === "string" ? normalizeRfc3339(h.time) : undefined;
  if (time === undefined) throw bad("header.time is not an RFC 3339 time");
  const header: Record<string, JsonValue> = {
    version,
    chain_id: h.chain_id,
    height: int(h.height, "header.height"),
    time,
    last_block_id: blockId(h.last_block_id, "header.last_block_id"),
  };
  for (const k of HEADER_HASHES) header[k] = hex(h[k], `header.${k}`);
  return {
    block_id: blockId(m.block_id, "block_id"),
    block_size: int(m.block_size, "block_size"),
    header,
    num_txs: int(m.num_txs, "num_txs"),
  };
}
