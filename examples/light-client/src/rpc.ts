/**
 * The CometBFT-compatible RPC, in its URI form over GET (`/status`, `/blockchain?…`, `/abci_query?…`):
 * simple cross-origin requests, no preflight. Results are checked field by field.
 */
import type { ChainView } from "./model.js";
import { Problem, field, getJson, httpProblem, int, originOf } from "./net.js";

/** One block's metadata (docs/spec/interfaces.md §6), as the page shows it. */
export interface BlockMeta {
  height: bigint;
  hash: string;
  time: string;
  appHash: string;
  proposer: string;
  numTxs: string;
  blockSize: string;
  /** header.version.app, "0" when omitted */
  appVersion: string;
  /** The record as the node sent it (legacy-amino JSON); none for a verified header. */
  raw: unknown;
  /** A header verified backwards by the hash chain (verified mode): whether its transaction count is proven. */
  verified?: { txsProven: boolean };
}

export interface AbciAnswer {
  value: Uint8Array;
  height: bigint;
}

export class RpcClient {
  constructor(readonly base: string) {}

  /** `GET <base>/<method>?<args>`: the result, or a Problem worded from the JSON-RPC error. */
  async call(method: string, args: Record<string, string> = {}): Promise<unknown> {
    const query = Object.entries(args)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join("&");
    const what = `RPC ${method}`;
    const url = `${this.base}/${method}${query ? `?${query}` : ""}`;
    const { json, status } = await getJson(url, what, { acceptErrorStatus: true });
    if (json === null || typeof json !== "object" || (json as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      if (status >= 400) throw httpProblem(what, originOf(url), status, json);
      throw new Problem(
        "garbage",
        `${originOf(url)} answered JSON that is not a JSON-RPC 2.0 response. Is this the node's RPC address (port 26657 by default)?`,
        what,
      );
    }
    const { result, error } = json as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (error !== undefined) {
      const data = typeof error?.data === "string" && error.data ? `: ${error.data}` : "";
      throw new Problem("rpc", `${what} failed: ${String(error?.message ?? "error")} (${String(error?.code ?? "?")})${data}.`);
    }
    if (result === undefined || result === null) throw new Problem("garbage", `the answer has neither a result nor an error.`, what);
    return result;
  }

  async status(): Promise<Omit<ChainView, "recentBlockTimes">> {
    const r = await this.call("status");
    const what = "RPC status";
    return {
      chainId: field(r, "node_info.network", what),
      height: int(field(r, "sync_info.latest_block_height", what), what, "the latest height"),
      latestBlockTime: field(r, "sync_info.latest_block_time", what),
      appVersion: field(r, "node_info.protocol_version.app", what),
      chainKey: `${field(r, "node_info.network", what)}/${field(r, "sync_info.earliest_block_hash", what)}`,
      nodeVersion: field(r, "node_info.version", what),
      moniker: field(r, "node_info.moniker", what),
    };
  }

  /** Block metas of [min, max], newest first (at most 20 per call, as CometBFT). */
  async blockMetas(min: bigint, max: bigint): Promise<BlockMeta[]> {
    const r = await this.call("blockchain", { minHeight: min.toString(), maxHeight: max.toString() });
    const metas = field(r, "block_metas", "RPC blockchain", "array");
    return metas.map((m) => blockMeta(m));
  }

  /**
   * The transactions of the block at `height` (`block`'s data.txs), as the node gives them: proven only by the
   * caller, against a verified header's data_hash.
   */
  async blockTxs(height: bigint): Promise<Uint8Array[]> {
    const what = `RPC block ${height}`;
    const r = await this.call("block", { height: height.toString() });
    const txs = (field(r, "block.data", what, "object") as { txs?: unknown }).txs ?? [];
    if (!Array.isArray(txs) || !txs.every((t): t is string => typeof t === "string"))
      throw new Problem("garbage", "block.data.txs is not a list of base64 strings.", what);
    return txs.map((t) => base64(t, what));
  }

  /** `abci_query` with hex data (no `0x`); an empty or null value is an empty array. */
  async abciQuery(path: string, hex: string, height?: bigint): Promise<AbciAnswer> {
    const args: Record<string, string> = { path: JSON.stringify(path), data: `0x${hex}` };
    if (height !== undefined) args.height = height.toString();
    const r = await this.call("abci_query", args);
    const what = `RPC abci_query ${path} ${hex}`;
    const code = field(r, "response.code", what, "number");
    if (code !== 0) {
      const codespace = (r as { response: { codespace?: unknown } }).response.codespace;
      const log = (r as { response: { log?: unknown } }).response.log;
      throw new Problem("abci", `${what} failed with code ${code}${codespace ? ` (${String(codespace)})` : ""}: ${String(log ?? "")}`);
    }
    const value = (r as { response: { value?: unknown } }).response.value;
    if (value !== null && value !== undefined && typeof value !== "string") throw new Problem("garbage", `response.value is not base64 text.`, what);
    return { value: value ? base64(value, what) : new Uint8Array(0), height: int(field(r, "response.height", what), what, "the height") };
  }
}

function blockMeta(m: unknown): BlockMeta {
  const what = "RPC blockchain";
  const header = field(m, "header", what, "object");
  return {
    height: int(field(header, "height", what), what, "header.height"),
    hash: field(m, "block_id.hash", what),
    time: field(header, "time", what),
    appHash: field(header, "app_hash", what),
    proposer: field(header, "proposer_address", what),
    numTxs: String((m as { num_txs?: unknown }).num_txs ?? "0"),
    blockSize: String((m as { block_size?: unknown }).block_size ?? "?"),
    appVersion: String((header as { version?: { app?: unknown } }).version?.app ?? "0"),
    raw: m,
  };
}

function base64(text: string, what: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(text);
  } catch {
    throw new Problem("garbage", `response.value is not valid base64.`, what);
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
