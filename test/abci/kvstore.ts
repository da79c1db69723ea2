/**
 * A tiny key/value ABCI++ application for the real-CometBFT smoke test. Transactions are `key=value`; the
 * app hash is the sha256 of the sorted state. `Disk` stands for what a real app keeps on disk: it survives
 * an app restart, and only Commit writes to it, so a crash inside FinalizeBlock(H) leaves it at H-1.
 */
import { createHash } from "node:crypto";
import { AbciConsensusHalt, AbciHalt, type AbciApplication, type RequestOf } from "../../bindings/abci/index.js";

export interface Disk {
  height: bigint;
  appHash: Uint8Array;
  state: Map<string, string>;
}

export const emptyDisk = (): Disk => ({ height: 0n, appHash: new Uint8Array(0), state: new Map() });

const text = new TextDecoder();
const bytes = (s: string) => new TextEncoder().encode(s);

function parseTx(tx: Uint8Array): [string, string] | undefined {
  const m = /^([^=]+)=(.*)$/s.exec(text.decode(tx));
  return m ? [m[1], m[2]] : undefined;
}

export function appHash(state: Map<string, string>): Uint8Array {
  const h = createHash("sha256");
  for (const k of [...state.keys()].sort()) h.update(`${k}=${state.get(k)}\n`);
  return new Uint8Array(h.digest());
}

export class KvStoreApp implements AbciApplication {
  /** Every call, in order, with the height where the request has one. */
  readonly calls: Array<{ method: string; height?: bigint }> = [];
  /** FinalizeBlock at this height throws an AbciHalt, as x/upgrade does at an upgrade height. */
  haltAt: bigint | undefined;
  /** FinalizeBlock at this height throws an AbciConsensusHalt: CometBFT's consensus stops there, nothing else. */
  consensusHaltAt: bigint | undefined;
  private pending: { height: bigint; state: Map<string, string>; appHash: Uint8Array } | undefined;

  constructor(readonly disk: Disk) {}

  /** The last RequestInfo, to check what CometBFT says about itself. */
  infoRequest: RequestOf<"info"> | undefined;

  info(req: RequestOf<"info">) {
    this.calls.push({ method: "info" });
    this.infoRequest = req;
    return { data: "kvstore", version: "1.0.0", appVersion: 1n, lastBlockHeight: this.disk.height, lastBlockAppHash: this.disk.appHash };
  }

  initChain(req: RequestOf<"initChain">) {
    this.calls.push({ method: "initChain", height: req.initialHeight });
    return {};
  }

  checkTx(req: RequestOf<"checkTx">) {
    this.calls.push({ method: "checkTx" });
    return parseTx(req.tx) ? { code: 0 } : { code: 1, log: "a transaction is key=value" };
  }

  prepareProposal(req: RequestOf<"prepareProposal">) {
    this.calls.push({ method: "prepareProposal", height: req.height });
    return { txs: req.txs.filter((tx) => parseTx(tx) !== undefined) };
  }

  processProposal(req: RequestOf<"processProposal">) {
    this.calls.push({ method: "processProposal", height: req.height });
    return { status: req.txs.every((tx) => parseTx(tx) !== undefined) ? 1 : 2 };
  }

  async finalizeBlock(req: RequestOf<"finalizeBlock">) {
    this.calls.push({ method: "finalizeBlock", height: req.height });
    if (this.haltAt !== undefined && req.height >= this.haltAt) throw new AbciHalt(`UPGRADE "v2" NEEDED at height: ${req.height}`, { exitCode: 20 });
    if (this.consensusHaltAt !== undefined && req.height >= this.consensusHaltAt)
      throw new AbciConsensusHalt(`UPGRADE "v3" NEEDED at height: ${req.height}`, { exitCode: 20 });
    const state = new Map(this.disk.state);
    const txResults = req.txs.map((tx) => {
      const kv = parseTx(tx);
      if (!kv) return { code: 1, log: "a transaction is key=value" };
      state.set(kv[0], kv[1]);
      return { code: 0, events: [{ type: "kv", attributes: [{ key: "key", value: kv[0], index: true }] }] };
    });
    const hash = appHash(state);
    this.pending = { height: req.height, state, appHash: hash };
    return { txResults, appHash: hash };
  }

  commit() {
    this.calls.push({ method: "commit", height: this.pending?.height });
    if (!this.pending) throw new Error("Commit without FinalizeBlock");
    this.disk.height = this.pending.height;
    this.disk.state = this.pending.state;
    this.disk.appHash = this.pending.appHash;
    this.pending = undefined;
    return {};
  }

  query(req: RequestOf<"query">) {
    this.calls.push({ method: "query" });
    const key = text.decode(req.data);
    const value = this.disk.state.get(key);
    return value === undefined
      ? { code: 0, key: req.data, log: "does not exist", height: this.disk.height }
      : { code: 0, key: req.data, value: bytes(value), log: "exists", height: this.disk.height };
  }
}
