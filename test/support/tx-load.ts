/**
 * A load generator of signed transactions for the CometBFT fault suite: one sender per account, each bound to
 * one node's RPC (so every node is sent to), each signing its next transaction (its own sequence) as soon as
 * the last one is settled, through the client's broadcast (bindings/client/broadcast.ts) — the same code the
 * CLI uses. Two kinds of client:
 *
 * - `wait`: waits through an upgrade halt and rebroadcasts the same bytes after the switch (`--wait-upgrade`);
 * - `tell`: stops at the halt with the client's plain UpgradeHaltError, then — as a careful user would — waits
 *   for the chain to run again, reads its account's sequence from the chain, and goes on.
 *
 * Every transaction sent is recorded with what its client was told; `accountTxs` (tx-accounting.ts) then
 * checks each against the blocks. It lives in test/support, not scripts/: it is a test instrument — its
 * records are the suite's evidence, and it signs with the genesis keys of throw-away testnets.
 */
import type { Any } from "cosmjs-types/google/protobuf/any";
import { broadcastTx } from "../../bindings/client/broadcast.js";
import { CometRpc } from "../../bindings/client/rpc.js";
import { TxRefusedError, TxSupersededError, UpgradeHaltError } from "../../bindings/client/tx-errors.js";
import { isHaltedTx } from "../../bindings/client/upgrade-halt.js";
import { queryAccount } from "../../bindings/apps/cli/tx/flow.js";
import { sha256 } from "@cosmjs/crypto";
import { signTx } from "../apps/devnet/helpers.js";
import type { GenesisKey } from "../../bindings/apps/devnet/index.js";

export type ClientKind = "wait" | "tell";

/** What the client was told about one transaction. */
export type Told =
  | { kind: "included"; height: number; code: number }
  | { kind: "refused"; code: number; codespace: string; log: string; halt: boolean }
  | { kind: "halt"; stage: string; waited: boolean }
  | { kind: "superseded" }
  | { kind: "error"; message: string };

export interface SentTx {
  sender: string;
  client: ClientKind;
  node: number;
  sequence: number;
  txhash: string;
  /** CheckTx took it (from the client's progress). */
  accepted: boolean;
  sentAt: number;
  doneAt: number;
  told: Told;
}

export interface Sender {
  key: GenesisKey;
  node: number;
  client: ClientKind;
  /** The messages of its transaction number `n` (0, 1, …). */
  msgs(n: number): Any[];
}

export interface LoadOptions {
  chainId: string;
  /** Each node's CometBFT RPC URL. */
  rpcs: string[];
  senders: Sender[];
  /** How long a `wait` client waits through a halt (ms). */
  waitUpgradeMs: number;
  /** How long a client waits for inclusion while the chain runs (ms). */
  timeoutMs: number;
  /** Called before each new transaction: false ends that sender. */
  keepGoing(): boolean;
  /** A pause between one sender's transactions (ms), drawn each time. */
  pauseMs(): number;
}

const hexUpper = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs every sender until `keepGoing()` says stop and its last transaction is settled; resolves with every transaction sent. */
export async function runLoad(o: LoadOptions): Promise<SentTx[]> {
  const sent: SentTx[] = [];
  await Promise.all(o.senders.map((s) => runSender(o, s, sent)));
  return sent;
}

async function runSender(o: LoadOptions, s: Sender, out: SentTx[]): Promise<void> {
  const rpc = new CometRpc(o.rpcs[s.node], 5000);
  let sequence = await accountSequence(rpc, s.key.address);
  for (let n = 0; o.keepGoing(); n++) {
    const tx = await signTx(undefined as never, s.key, s.msgs(n), {
      chainId: o.chainId,
      accountNumber: BigInt(s.key.account_number),
      sequence: BigInt(sequence),
    });
    const rec: SentTx = {
      sender: s.key.name,
      client: s.client,
      node: s.node,
      sequence,
      txhash: hexUpper(sha256(tx)),
      accepted: false,
      sentAt: Date.now(),
      doneAt: 0,
      told: { kind: "error", message: "" },
    };
    out.push(rec);
    try {
      const r = await broadcastTx(rpc, tx, {
        timeoutMs: o.timeoutMs,
        waitUpgradeMs: s.client === "wait" ? o.waitUpgradeMs : 0,
        pollMs: 500,
        onProgress: (e) => {
          if (e.kind === "accepted") rec.accepted = true;
        },
      });
      const code = typeof r.result.code === "number" ? r.result.code : 0;
      rec.told = { kind: "included", height: Number(r.height), code };
      sequence++; // included (even when its messages failed): the sequence is used
    } catch (e) {
      rec.told = toldOf(e);
      // After anything but a plain refusal, where the account stands is the chain's word: wait for it to run, and ask.
      if (rec.told.kind !== "refused" || rec.told.halt) sequence = await settledSequence(rpc, s.key.address, o);
    }
    rec.doneAt = Date.now();
    await sleep(o.pauseMs());
  }
}

function toldOf(e: unknown): Told {
  if (e instanceof UpgradeHaltError) return { kind: "halt", stage: e.stage, waited: e.waitedMs !== undefined };
  if (e instanceof TxRefusedError) return { kind: "refused", code: e.code, codespace: e.codespace, log: e.log, halt: isHaltedTx(e) };
  if (e instanceof TxSupersededError) return { kind: "superseded" };
  return { kind: "error", message: e instanceof Error ? e.message : String(e) };
}

async function accountSequence(rpc: CometRpc, address: string): Promise<number> {
  return Number((await queryAccount(rpc, address)).sequence);
}

/** Once the node answers and is not halted: the account's sequence in its committed state. */
async function settledSequence(rpc: CometRpc, address: string, o: LoadOptions): Promise<number> {
  const { haltView } = await import("../../bindings/client/upgrade-halt.js");
  const end = Date.now() + o.waitUpgradeMs + o.timeoutMs;
  for (;;) {
    try {
      const v = await haltView(rpc);
      if (!v.halted) {
        // A block or two for anything in flight to land before the sequence is read.
        await sleep(1500);
        return await accountSequence(rpc, address);
      }
    } catch {
      /* the node is down: switching binaries */
    }
    if (Date.now() > end) throw new Error(`${address}: the chain did not run again`);
    await sleep(1000);
  }
}
