/**
 * The client's broadcast across an upgrade halt (bindings/client/broadcast.ts), against a scripted node: a
 * chain that makes a block at every `status`, halts at the plan's height, goes down while its binary is
 * switched, and comes back (losing its mempool as a Go node does, or keeping it as the devnet does). Each
 * place a transaction can stand at the halt ends in its own UpgradeHaltError without --wait-upgrade; with it,
 * the client waits and the transaction is committed exactly once (the same bytes rebroadcast); a rebroadcast
 * whose sequence another transaction used is told so. No timing is asserted: the node's state moves with the
 * client's own calls.
 */
import { sha256 } from "@cosmjs/crypto";
import { QueryCurrentPlanResponse } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { Plan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import { describe, expect, it } from "vitest";
import { broadcastTx, type BroadcastProgress } from "../../bindings/client/broadcast.js";
import { CometRpc, type RpcTransport } from "../../bindings/client/rpc.js";
import { InclusionTimeoutError, TxRefusedError, TxSupersededError, UpgradeHaltError } from "../../bindings/client/tx-errors.js";
import { HALTED_TX, haltedTxLog } from "../../bindings/client/upgrade-halt.js";

const TX = Uint8Array.from([1, 2, 3, 4]);
const B64 = Buffer.from(TX).toString("base64");
const HASH = Buffer.from(sha256(TX)).toString("hex").toUpperCase();
const PLAN = { name: "v2", height: 20n };

/** A scripted CometBFT RPC (see the module comment); `on(method, n, action)` runs `action` at the n-th call of `method`. */
class FakeNode {
  height = 17n;
  plan: typeof PLAN | undefined = PLAN;
  halted = false;
  down = false;
  /** An xupgrade node refuses transactions while halted; a Go node takes them. */
  refuseWhileHalted = true;
  /** What block H holds when the chain halts: the mempool's transactions, or none. */
  haltBlockTakesMempool = false;
  /** Whether the chain includes the mempool in its next block while running. */
  includes = true;
  mempool: string[] = [];
  /** height → transactions (base64), for every block made. */
  blocks = new Map<bigint, string[]>();
  /** Executed (indexed) transactions: base64 → height. */
  index = new Map<string, bigint>();
  /** Sequences used by another transaction of the same account (a rebroadcast then fails with sdk 32). */
  sequenceUsed = false;
  broadcasts: string[] = [];
  private calls = new Map<string, number>();
  private actions: { method: string; n: number; run: () => void }[] = [];

  on(method: string, n: number, run: () => void): this {
    this.actions.push({ method, n, run });
    return this;
  }

  /** The chain switches binaries: down now; back at H, block H executed (replayed), its plan applied; the mempool kept or lost. */
  switchBinaries(o: { keepMempool: boolean; downFor: number }): void {
    this.down = true;
    this.halted = false;
    const kept = o.keepMempool ? this.mempool : [];
    this.mempool = [];
    for (const tx of this.blocks.get(PLAN.height) ?? []) this.index.set(tx, PLAN.height);
    this.plan = undefined;
    this.on("down", o.downFor, () => {
      this.down = false;
      this.mempool = kept;
    });
  }

  private step(): void {
    if (this.halted || this.down) return;
    const next = this.height + 1n;
    if (this.plan && next === this.plan.height) {
      this.blocks.set(next, this.haltBlockTakesMempool ? this.mempool.splice(0) : []);
      this.height = next;
      this.halted = true;
      return;
    }
    const txs = this.includes ? this.mempool.splice(0) : [];
    this.blocks.set(next, txs);
    for (const tx of txs) this.index.set(tx, next);
    this.height = next;
  }

  private count(method: string): void {
    const n = (this.calls.get(method) ?? 0) + 1;
    this.calls.set(method, n);
    for (const a of this.actions.filter((x) => x.method === method && x.n === n)) a.run();
  }

  readonly transport: RpcTransport = async (_url, body) => {
    const { method, params } = JSON.parse(body) as { method: string; params: Record<string, string> };
    if (this.down) {
      this.count("down");
      throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    }
    this.count(method);
    const reply = (result: unknown) => ({ ok: true, status: 200, text: async () => JSON.stringify({ jsonrpc: "2.0", id: 1, result }) });
    const error = (code: number, data: string) => ({
      ok: true,
      status: 200,
      text: async () => JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code, message: "Internal error", data } }),
    });
    switch (method) {
      case "status":
        this.step();
        return reply({ node_info: { network: "test" }, sync_info: { latest_block_height: String(this.height) } });
      case "abci_query": {
        const value = this.plan
          ? QueryCurrentPlanResponse.encode({ plan: Plan.fromPartial({ name: this.plan.name, height: this.plan.height }) }).finish()
          : new Uint8Array(0);
        return reply({ response: { code: 0, value: Buffer.from(value).toString("base64"), height: String(this.height) } });
      }
      case "broadcast_tx_sync": {
        this.broadcasts.push(params.tx);
        if (this.halted && this.refuseWhileHalted) return reply({ code: HALTED_TX.code, codespace: HALTED_TX.codespace, log: haltedTxLog(PLAN), hash: HASH });
        if (this.index.has(params.tx) || this.sequenceUsed)
          return reply({ code: 32, codespace: "sdk", log: "account sequence mismatch, expected 8, got 7: incorrect account sequence", hash: HASH });
        if (this.mempool.includes(params.tx)) return error(-32603, "tx already exists in cache");
        this.mempool.push(params.tx);
        return reply({ code: 0, codespace: "", log: "", hash: HASH });
      }
      case "tx": {
        const h = this.index.get(B64);
        if (h === undefined) return error(-32603, `tx (${HASH}) not found`);
        return reply({ hash: HASH, height: String(h), tx_result: { code: 0, log: "" } });
      }
      case "block":
        return reply({ block: { data: { txs: this.blocks.get(BigInt(params.height)) ?? [] } } });
      default:
        return error(-32601, `method ${method} not found`);
    }
  };

  rpc(): CometRpc {
    return new CometRpc("http://node.test:26657", 1000, this.transport);
  }

  /** Blocks that hold the transaction. */
  inclusions(): bigint[] {
    return [...this.blocks].filter(([, txs]) => txs.includes(B64)).map(([h]) => h);
  }
}

const FAST = { pollMs: 0, haltPollMs: 0 };

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a failure");
}

describe("broadcasting across an upgrade halt", () => {
  it("a running chain: accepted, then in a block; a refusal and a timeout say what they are", async () => {
    const node = new FakeNode();
    const events: BroadcastProgress[] = [];
    const r = await broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, ...FAST, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ txhash: HASH, result: { code: 0 } });
    expect(node.inclusions()).toEqual([r.height]);
    expect(events).toEqual([{ kind: "accepted", txhash: HASH }]);

    const poor = new FakeNode();
    poor.sequenceUsed = true;
    const refused = await failure(broadcastTx(poor.rpc(), TX, { timeoutMs: 60_000, ...FAST }));
    expect(refused).toBeInstanceOf(TxRefusedError);
    expect((refused as Error).message).toBe(
      "broadcast failed (codespace sdk code 32): account sequence mismatch, expected 8, got 7: incorrect account sequence",
    );

    const stuck = new FakeNode();
    stuck.plan = undefined;
    stuck.includes = false;
    const late = await failure(broadcastTx(stuck.rpc(), TX, { timeoutMs: 50, ...FAST }));
    expect(late).toBeInstanceOf(InclusionTimeoutError);
    expect((late as Error).message).toBe(`timed out waiting for tx ${HASH} to be included in a block`);
  });

  it("a chain already halted: nothing is broadcast, and the client says why (a Go node would have taken it into a mempool it loses)", async () => {
    const node = new FakeNode();
    node.height = 20n;
    node.halted = true;
    node.refuseWhileHalted = false;
    const e = await failure(broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, ...FAST }));
    expect(e).toBeInstanceOf(UpgradeHaltError);
    expect(e).toMatchObject({ stage: "not-sent", plan: PLAN });
    expect((e as Error).message).toBe(
      `the chain halted at height 20 for upgrade "v2": tx ${HASH} was not broadcast; the chain takes transactions again once validators run a binary with the "v2" upgrade handler`,
    );
    expect(node.broadcasts).toEqual([]);
  });

  it("a node that refuses it for the halt (the devnet's CheckTx) is a halt too; waiting, the client broadcasts after the switch", async () => {
    const node = new FakeNode();
    node.height = 18n;
    // The pre-check sees height 19; the chain halts at 20 as the transaction arrives: the refusal says it.
    node.on("broadcast_tx_sync", 1, () => {
      node.height = 20n;
      node.halted = true;
    });
    const told = await failure(broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, ...FAST }));
    expect(told).toMatchObject({ stage: "not-sent", plan: PLAN });

    const waiting = new FakeNode();
    waiting.height = 18n;
    waiting.on("broadcast_tx_sync", 1, () => {
      waiting.height = 20n;
      waiting.halted = true;
    });
    waiting.on("status", 4, () => waiting.switchBinaries({ keepMempool: false, downFor: 3 }));
    const events: string[] = [];
    const r = await broadcastTx(waiting.rpc(), TX, { timeoutMs: 60_000, waitUpgradeMs: 600_000, ...FAST, onProgress: (e) => events.push(e.kind) });
    expect(r.height).toBeGreaterThan(20n);
    expect(waiting.inclusions()).toEqual([r.height]);
    expect(events).toEqual(["halted", "node-down", "resumed", "accepted"]);
  });

  it("accepted, then the chain halts without it: told it waits in mempools; waiting, the same bytes go again after the switch and are committed once", async () => {
    const script = (node: FakeNode) => {
      node.height = 18n;
      node.includes = false; // the proposer of 19 leaves it out
    };
    const node = new FakeNode();
    script(node);
    const told = await failure(broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, ...FAST }));
    expect(told).toMatchObject({ stage: "mempool", plan: PLAN });
    expect((told as Error).message).toBe(
      `tx ${HASH} was accepted, but the chain halted at height 20 for upgrade "v2" before including it: it waits in the halted nodes' mempools, which a node may drop when it restarts on the new binary, so whether it is committed after the switch is not known`,
    );

    // A Go node: the mempool is lost at the switch; the client's rebroadcast of the same bytes gets it committed.
    const go = new FakeNode();
    script(go);
    go.on("status", 6, () => {
      go.includes = true;
      go.switchBinaries({ keepMempool: false, downFor: 2 });
    });
    const events: string[] = [];
    const r = await broadcastTx(go.rpc(), TX, {
      timeoutMs: 60_000,
      waitUpgradeMs: 600_000,
      ...FAST,
      onProgress: (e) => events.push(e.kind === "rebroadcast" ? `rebroadcast:${e.outcome}` : e.kind),
    });
    expect(r.height).toBeGreaterThan(20n);
    expect(go.inclusions()).toEqual([r.height]);
    expect(go.broadcasts).toEqual([B64, B64]);
    expect(events).toEqual(["accepted", "halted", "node-down", "resumed", "accepted", "rebroadcast:accepted"]);

    // The devnet keeps its mempool: the rebroadcast finds it there already; still one block holds it.
    const devnet = new FakeNode();
    script(devnet);
    devnet.on("status", 6, () => {
      devnet.includes = true;
      devnet.switchBinaries({ keepMempool: true, downFor: 2 });
    });
    const kept = await broadcastTx(devnet.rpc(), TX, { timeoutMs: 60_000, waitUpgradeMs: 600_000, ...FAST });
    expect(devnet.inclusions()).toEqual([kept.height]);
  });

  it("in block H itself: told it runs when the chain resumes; waiting, it is found at H after the switch, never rebroadcast", async () => {
    const setup = (node: FakeNode) => {
      node.height = 18n;
      node.includes = false;
      node.haltBlockTakesMempool = true;
    };
    const node = new FakeNode();
    setup(node);
    const told = await failure(broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, ...FAST }));
    expect(told).toMatchObject({ stage: "halt-block" });
    expect((told as Error).message).toBe(
      `tx ${HASH} is in block 20, where the chain halted for upgrade "v2": the chain executes it, and its result is known, once validators run a binary with the "v2" upgrade handler`,
    );

    const waiting = new FakeNode();
    setup(waiting);
    waiting.on("status", 5, () => waiting.switchBinaries({ keepMempool: false, downFor: 2 }));
    const r = await broadcastTx(waiting.rpc(), TX, { timeoutMs: 60_000, waitUpgradeMs: 600_000, ...FAST });
    expect(r.height).toBe(20n);
    expect(waiting.broadcasts).toHaveLength(1);
  });

  it("the node goes down at the upgrade height: told so; waiting, rebroadcast after the switch", async () => {
    const setup = (node: FakeNode) => {
      node.height = 18n;
      node.includes = false;
      node.refuseWhileHalted = false;
      // Down right as it reaches H, before the client saw it halted.
      node.on("status", 3, () => node.switchBinaries({ keepMempool: false, downFor: 4 }));
    };
    const node = new FakeNode();
    setup(node);
    node.on("status", 3, () => (node.plan = PLAN)); // still at H-1 for the client, the plan still pending
    const told = await failure(broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, ...FAST }));
    expect(told).toMatchObject({ stage: "node-down" });
    expect((told as Error).message).toBe(
      `the node stopped answering near the upgrade height 20 of "v2" (its binary being switched), before tx ${HASH} was seen in a block: whether it is committed after the switch is not known`,
    );

    const waiting = new FakeNode();
    setup(waiting);
    waiting.on("down", 4, () => (waiting.includes = true));
    const r = await broadcastTx(waiting.rpc(), TX, { timeoutMs: 60_000, waitUpgradeMs: 600_000, ...FAST });
    expect(waiting.inclusions()).toEqual([r.height]);
  });

  it("a rebroadcast refused for its sequence: found if it was committed, else told another transaction used the sequence", async () => {
    const node = new FakeNode();
    node.height = 18n;
    node.includes = false;
    node.on("status", 6, () => {
      node.switchBinaries({ keepMempool: false, downFor: 2 });
      node.sequenceUsed = true; // another transaction of the account got the sequence meanwhile
      node.includes = true;
    });
    const e = await failure(broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, waitUpgradeMs: 600_000, ...FAST }));
    expect(e).toBeInstanceOf(TxSupersededError);
    expect((e as Error).message).toBe(
      `tx ${HASH} was not committed: rebroadcast after the upgrade, it was refused (incorrect account sequence) and no block holds it, so another transaction of its account with the same sequence was committed`,
    );
    expect(node.inclusions()).toEqual([]);
  });

  it("waiting runs out: the chain still halted after --wait-upgrade says so", async () => {
    const node = new FakeNode();
    node.height = 20n;
    node.halted = true;
    const e = await failure(broadcastTx(node.rpc(), TX, { timeoutMs: 60_000, waitUpgradeMs: 30, pollMs: 0, haltPollMs: 5 }));
    expect(e).toBeInstanceOf(UpgradeHaltError);
    expect((e as Error).message).toMatch(/^still halted after waiting \d+s: the chain halted at height 20 for upgrade "v2": tx [0-9A-F]{64} was not broadcast/);
  });

  it("a node that does not answer at the start: `cannot reach node`; waiting through an upgrade, it is waited for", async () => {
    const down = new FakeNode();
    down.down = true;
    const e = await failure(broadcastTx(down.rpc(), TX, { timeoutMs: 60_000, ...FAST }));
    expect((e as Error).message).toBe("cannot reach node http://node.test:26657: connection refused (is the node running?)");
    expect(e).not.toBeInstanceOf(UpgradeHaltError);

    const back = new FakeNode();
    back.down = true;
    back.plan = undefined; // switched already: the plan applied
    back.on("down", 4, () => (back.down = false));
    const events: string[] = [];
    const r = await broadcastTx(back.rpc(), TX, { timeoutMs: 60_000, waitUpgradeMs: 600_000, ...FAST, onProgress: (x) => events.push(x.kind) });
    expect(back.inclusions()).toEqual([r.height]);
    expect(events).toEqual(["node-down", "accepted"]);
  });
});
