/** The RPC methods the devnet answers, with CometBFT 0.38's result shapes (status, blocks, txs, abci_query, broadcast). */
import type { BlockRecord, TxResultJson } from "../../chain/blocks.js";
import { base64, hexUpper } from "../../shared/util.js";
import { internal, invalidParams, type Args, type Method, type RpcServerOptions } from "./types.js";

export const COMET_VERSION = "0.38.17";

export function rpcMethods(o: RpcServerOptions, rpcAddress: () => string): Map<string, Method> {
  const { chain } = o;
  const latestHeight = () => chain.height;
  const mustBlock = (h: bigint): BlockRecord => {
    const rec = chain.getBlock(h);
    if (!rec) throw internal(`height ${h} is not available`);
    return rec;
  };
  const resolveHeight = (h: bigint | undefined): bigint => {
    const latest = latestHeight();
    if (h === undefined || h === 0n) return latest;
    if (h < 0n) throw internal(`height must be greater than 0, but got ${h}`);
    if (h > latest) throw internal(`height ${h} must be less than or equal to the current blockchain height ${latest}`);
    return h;
  };
  const self = chain.validators[0];
  const txResponse = (hash: Uint8Array, height: bigint, index: number) => {
    const rec = mustBlock(height);
    return { hash: hexUpper(hash), height: height.toString(), index, tx_result: rec.results[index], tx: rec.txs[index] };
  };

  const m = new Map<string, Method>();
  m.set("health", { args: [], run: () => ({}) });
  m.set("status", {
    args: [],
    run: () => {
      const latest = chain.latest;
      if (!latest) throw internal("no blocks yet");
      const first = chain.getBlock(1n) ?? latest;
      return {
        node_info: {
          protocol_version: { p2p: "8", block: "11", app: chain.appVersion.toString() },
          id: o.nodeId,
          listen_addr: "tcp://0.0.0.0:26656",
          network: chain.chainId,
          version: COMET_VERSION,
          channels: "40202122233038606100",
          moniker: o.moniker,
          other: { tx_index: "on", rpc_address: `tcp://${rpcAddress()}` },
        },
        sync_info: {
          latest_block_hash: latest.meta.block_id.hash,
          latest_app_hash: latest.meta.header.app_hash, // CometBFT reports the latest header's app hash
          latest_block_height: latest.meta.header.height,
          latest_block_time: latest.meta.header.time,
          earliest_block_hash: first.meta.block_id.hash,
          earliest_app_hash: first.meta.header.app_hash,
          earliest_block_height: first.meta.header.height,
          earliest_block_time: first.meta.header.time,
          catching_up: false,
        },
        validator_info: {
          address: self.addressHex,
          pub_key: { type: "tendermint/PubKeyEd25519", value: base64(self.key.publicKey) },
          voting_power: self.power.toString(),
        },
      };
    },
  });
  m.set("abci_info", {
    args: [],
    run: () => ({
      response: {
        data: o.appName,
        version: o.appVersionText,
        app_version: chain.appVersion.toString(),
        last_block_height: chain.height.toString(),
        last_block_app_hash: base64(chain.appHash()),
      },
    }),
  });
  m.set("abci_query", {
    args: [
      ["path", "string"],
      ["data", "hexbytes"],
      ["height", "int"],
      ["prove", "bool"],
    ],
    run: (a) => {
      const r = o.abci.query(
        (a.path as string | undefined) ?? "",
        (a.data as Uint8Array | undefined) ?? new Uint8Array(0),
        (a.height as bigint | undefined) ?? 0n,
        (a.prove as boolean | undefined) ?? false,
      );
      return {
        response: {
          code: r.code,
          log: r.log,
          info: r.info,
          index: r.index.toString(),
          key: r.key.length ? base64(r.key) : null,
          value: r.value.length ? base64(r.value) : null,
          proofOps: r.proofOps ? { ops: r.proofOps.map((op) => ({ type: op.type, key: base64(op.key), data: base64(op.data) })) } : null,
          height: r.height.toString(),
          codespace: r.codespace,
        },
      };
    },
  });
  m.set("blockchain", {
    args: [
      ["minHeight", "int"],
      ["maxHeight", "int"],
    ],
    run: (a) => {
      const latest = latestHeight();
      let min = (a.minHeight as bigint | undefined) ?? 0n;
      let max = (a.maxHeight as bigint | undefined) ?? 0n;
      if (min < 0n || max < 0n) throw internal("heights must be non-negative");
      if (min === 0n) min = 1n;
      if (max === 0n) max = latest;
      if (max > latest) max = latest;
      if (min < max - 19n) min = max - 19n;
      if (min > max) throw internal(`min height ${min} can't be greater than max height ${max}`);
      const metas: BlockRecord["meta"][] = [];
      for (let h = max; h >= min; h--) metas.push(mustBlock(h).meta);
      return { last_height: latest.toString(), block_metas: metas };
    },
  });
  m.set("block", {
    args: [["height", "int"]],
    run: (a) => {
      const rec = mustBlock(resolveHeight(a.height as bigint | undefined));
      return {
        block_id: rec.meta.block_id,
        block: { header: rec.meta.header, data: { txs: rec.txs }, evidence: { evidence: [] }, last_commit: rec.last_commit },
      };
    },
  });
  m.set("block_results", {
    args: [["height", "int"]],
    run: (a) => {
      const h = resolveHeight(a.height as bigint | undefined);
      const rec = mustBlock(h);
      return {
        height: h.toString(),
        txs_results: rec.results.length ? rec.results : null,
        finalize_block_events: rec.events,
        validator_updates: null,
        consensus_param_updates: null,
        app_hash: Buffer.from(rec.app_hash_after, "hex").toString("base64"),
      };
    },
  });
  m.set("commit", {
    args: [["height", "int"]],
    run: (a) => {
      const rec = mustBlock(resolveHeight(a.height as bigint | undefined));
      return { signed_header: { header: rec.meta.header, commit: rec.commit }, canonical: true };
    },
  });
  m.set("validators", {
    args: [
      ["height", "int"],
      ["page", "int"],
      ["per_page", "int"],
    ],
    run: (a) => {
      const h = resolveHeight(a.height as bigint | undefined);
      const vals = chain.validators.map((v) => ({
        address: v.addressHex,
        pub_key: { type: "tendermint/PubKeyEd25519", value: base64(v.key.publicKey) },
        voting_power: v.power.toString(),
        proposer_priority: "0",
      }));
      return { block_height: h.toString(), validators: vals, count: String(vals.length), total: String(vals.length) };
    },
  });
  m.set("net_info", { args: [], run: () => ({ listening: true, listeners: ["Listener(@)"], n_peers: "0", peers: [] }) });
  m.set("num_unconfirmed_txs", {
    args: [],
    run: () => ({
      n_txs: String(chain.mempool.length),
      total: String(chain.mempool.length),
      total_bytes: String(chain.mempool.reduce((n, t) => n + t.bytes.length, 0)),
      txs: null,
    }),
  });
  m.set("unconfirmed_txs", {
    args: [["limit", "int"]],
    run: (a) => {
      const limit = Number((a.limit as bigint | undefined) ?? 30n);
      const txs = chain.mempool.slice(0, Math.max(1, Math.min(limit, 100)));
      return {
        n_txs: String(txs.length),
        total: String(chain.mempool.length),
        total_bytes: String(chain.mempool.reduce((n, t) => n + t.bytes.length, 0)),
        txs: txs.map((t) => base64(t.bytes)),
      };
    },
  });
  const broadcast = (a: Args) => {
    const tx = a.tx as Uint8Array | undefined;
    if (!tx) throw invalidParams("tx is required");
    const r = chain.checkTx(tx);
    if (r.code !== 0) o.logger.info("tx rejected by CheckTx", { module: "mempool", tx: r.hash, code: r.code, codespace: r.codespace, log: r.log });
    return { code: r.code, data: "", log: r.log, codespace: r.codespace, hash: r.hash };
  };
  m.set("broadcast_tx_sync", { args: [["tx", "bytes"]], run: broadcast });
  m.set("broadcast_tx_async", {
    args: [["tx", "bytes"]],
    run: (a) => {
      const r = broadcast(a);
      return { ...r, code: 0, log: "", codespace: "" };
    },
  });
  m.set("broadcast_tx_commit", {
    args: [["tx", "bytes"]],
    run: async (a) => {
      const r = broadcast(a);
      const checkTx = { code: r.code, data: null, log: r.log, info: "", gas_wanted: "0", gas_used: "0", events: [], codespace: r.codespace };
      if (r.code !== 0)
        return {
          check_tx: checkTx,
          tx_result: { code: 0, data: null, log: "", info: "", gas_wanted: "0", gas_used: "0", events: [], codespace: "" },
          hash: r.hash,
          height: "0",
        };
      const hash = Buffer.from(r.hash, "hex");
      const found = await new Promise<{ height: bigint; index: number } | undefined>((resolve) => {
        const timer = setTimeout(() => {
          off();
          resolve(undefined);
        }, 10_000);
        const off = chain.onCommit(() => {
          const f = chain.findTx(hash);
          if (f) {
            clearTimeout(timer);
            off();
            resolve(f);
          }
        });
      });
      if (!found) throw internal("timed out waiting for tx to be included in a block");
      const t = txResponse(hash, found.height, found.index);
      return { check_tx: checkTx, tx_result: t.tx_result, hash: r.hash, height: t.height };
    },
  });
  m.set("tx", {
    args: [
      ["hash", "bytes"],
      ["prove", "bool"],
    ],
    run: (a) => {
      const hash = a.hash as Uint8Array | undefined;
      if (!hash || hash.length !== 32) throw invalidParams("hash must be 32 bytes");
      const f = chain.findTx(hash);
      if (!f) throw internal(`tx (${hexUpper(hash)}) not found`);
      return txResponse(hash, f.height, f.index);
    },
  });
  m.set("tx_search", {
    args: [
      ["query", "string"],
      ["prove", "bool"],
      ["page", "int"],
      ["per_page", "int"],
      ["order_by", "string"],
    ],
    run: (a) => {
      const conditions = parseQuery((a.query as string | undefined) ?? "");
      const matches: ReturnType<typeof txResponse>[] = [];
      for (const t of chain.allTxs()) {
        const r = txResponse(t.hash, t.height, t.index);
        if (conditions.every((c) => c(r))) matches.push(r);
      }
      matches.sort((x, y) => Number(BigInt(x.height) - BigInt(y.height)) || x.index - y.index);
      if (a.order_by === "desc") matches.reverse();
      const perPage = Math.min(100, Math.max(1, Number((a.per_page as bigint | undefined) ?? 30n)));
      const page = Math.max(1, Number((a.page as bigint | undefined) ?? 1n));
      const pages = Math.max(1, Math.ceil(matches.length / perPage));
      if (page > pages) throw internal(`page should be within [1, ${pages}] range, given ${page}`);
      return { txs: matches.slice((page - 1) * perPage, page * perPage), total_count: String(matches.length) };
    },
  });
  return m;
}

type TxResponse = { hash: string; height: string; index: number; tx_result: TxResultJson };

/** `tx.hash='…' AND tx.height=5 AND message.sender='cosmos1…'` (=, <, <=, >, >= on tx.height; = on events). */
function parseQuery(q: string): ((r: TxResponse) => boolean)[] {
  if (q.trim() === "") throw internal("query cannot be empty");
  return q.split(/\s+AND\s+/i).map((part) => {
    const m = /^\s*([\w.]+)\s*(<=|>=|=|<|>)\s*(?:'([^']*)'|"([^"]*)"|([0-9]+))\s*$/.exec(part);
    if (!m) throw internal(`invalid query: ${part}`);
    const [, key, op, s1, s2, num] = m;
    const value = s1 ?? s2 ?? num;
    if (key === "tx.hash") return (r) => r.hash === value.toUpperCase();
    if (key === "tx.height") {
      const v = BigInt(value);
      return (r) => {
        const h = BigInt(r.height);
        return op === "=" ? h === v : op === "<" ? h < v : op === "<=" ? h <= v : op === ">" ? h > v : h >= v;
      };
    }
    const dot = key.lastIndexOf(".");
    const type = key.slice(0, dot);
    const attr = key.slice(dot + 1);
    return (r) => r.tx_result.events.some((e) => e.type === type && e.attributes.some((x) => x.key === attr && x.value === value));
  });
}
