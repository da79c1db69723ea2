/**
 * Transactions across the upgrade (`npm run test:faults -- --net tx`): four validators under `xupgrade visor`s,
 * no hand on the upgrade, and a load of signed transactions — bank sends from 16 accounts and gov votes from 4
 * more, each account bound to one node, so every node is sent to — from H−20 to H+20. Half the clients wait
 * through the halt and rebroadcast the same bytes after the switch; the other half are told where their
 * transaction stands at the halt and go on from the chain's word after it. Then every transaction is
 * accounted for against the blocks (tx-accounting.ts): committed exactly once, or its client told plainly;
 * none silently lost, none duplicated, no client told a wrong height — the run fails otherwise.
 *
 * The votes go to a second proposal submitted at H−25, whose voting period (45 s) outlasts the window and
 * the halt. Nodes keep their mempool across the switch (the devnet's kept mempool), which the figures show
 * as transactions told at the halt and committed after it.
 */
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import type { Any } from "cosmjs-types/google/protobuf/any";
import { clients, signTx, submitProposalAny, voteAny } from "../../../apps/devnet/helpers.js";
import { GOV } from "../../../apps/devnet/helpers.js";
import { rng } from "../../../support/random.js";
import { runLoad, type Sender } from "../../../support/tx-load.js";
import { waitUntil } from "../../../support/wait.js";
import { statSync } from "node:fs";
import { join } from "node:path";
import { check } from "./checks.js";
import type { FaultNet, Proc } from "./net.js";
import type { HaltCase } from "./scenarios.js";
import { PRESTART, underSidecars } from "./sidecars.js";
import { accountTxs, blockTxs } from "./tx-accounting.js";

const USERS = Array.from({ length: 16 }, (_, i) => `user${i}`);
const VOTERS = Array.from({ length: 4 }, (_, i) => `voter${i}`);
/** The window around H the load covers, in blocks. */
const WINDOW = 20;
/** The voting period: the second proposal, submitted at H−25, is still open at H+20 after a halt of up to ~25 s. */
const VOTING_S = 45;
/** Blocks between the upgrade's vote and H: room for the second proposal before the window. */
const MARGIN_S = 20;
const CHAIN_ID = "xupgrade-devnet-1";

const sendAny = (from: string, to: string): Any => ({
  typeUrl: "/cosmos.bank.v1beta1.MsgSend",
  value: MsgSend.encode({ fromAddress: from, toAddress: to, amount: [{ denom: "stake", amount: "1" }] }).finish(),
});

/** The highest height any node reports (those down answer nothing). */
async function top(net: FaultNet): Promise<number> {
  const hs = await Promise.all(net.all.map((i) => net.status(i)));
  return Math.max(0, ...hs.map((s) => s?.height ?? 0));
}

/** The second proposal, from bob through node 0: something to vote on across the window (a gov send nobody with power votes for). */
async function openSecondProposal(net: FaultNet): Promise<bigint> {
  const bob = net.key("bob");
  const tx = await signTx(
    undefined as never,
    bob,
    [submitProposalAny(bob.address, [sendAny(GOV, bob.address)], "10000000", "Across the window", "votes across the upgrade")],
    {
      chainId: CHAIN_ID,
      accountNumber: BigInt(bob.account_number),
      sequence: 0n,
    },
  );
  const c = await clients(net.nodes[0].rpc);
  try {
    const sent = await c.comet.broadcastTxSync({ tx });
    check(sent.code === 0, `the second proposal was refused: ${sent.log}`);
    const included = await waitUntil(() => c.comet.tx({ hash: sent.hash }).catch(() => undefined), 60_000, "the second proposal to be included");
    check(included.result.code === 0, `the second proposal failed: ${included.result.log}`);
  } finally {
    c.comet.disconnect();
  }
  return 2n; // the upgrade's is 1 on a fresh chain
}

async function acrossTheUpgrade(net: FaultNet, H: number, procs: Proc[]): Promise<Record<string, number>> {
  await waitUntil(async () => (await top(net)) >= H - 25, 180_000, `height ${H - 25}`);
  const startHeight = await top(net);
  const proposal = await openSecondProposal(net);
  await waitUntil(async () => (await top(net)) >= H - WINDOW, 120_000, `height ${H - WINDOW}`);
  let height = await top(net);
  const watching = setInterval(() => void top(net).then((h) => (height = Math.max(height, h))), 500);
  const random = rng(H);
  const senders: Sender[] = [
    ...USERS.map((name, i): Sender => ({
      key: net.key(name),
      node: i % net.nodes.length,
      client: i % 2 === 0 ? "wait" : "tell",
      msgs: () => [sendAny(net.key(name).address, net.key(USERS[(i + 1 + Math.floor(random() * (USERS.length - 1))) % USERS.length]).address)],
    })),
    ...VOTERS.map((name, i): Sender => ({
      key: net.key(name),
      node: i % net.nodes.length,
      client: i % 2 === 0 ? "wait" : "tell",
      msgs: (n) => [voteAny(proposal, net.key(name).address, n % 2 === 0 ? 1 : 3)],
    })),
  ];
  let sent;
  try {
    sent = await runLoad({
      chainId: CHAIN_ID,
      rpcs: net.nodes.map((n) => n.rpc),
      senders,
      waitUpgradeMs: 180_000,
      timeoutMs: 60_000,
      keepGoing: () => height < H + WINDOW,
      pauseMs: () => 200 + Math.floor(random() * 600),
    });
  } finally {
    clearInterval(watching);
  }
  // Everything settled: a few blocks past the last height a client was told, and past what the kept mempools put back.
  const told = Math.max(H + WINDOW, ...sent.flatMap((t) => (t.told.kind === "included" ? [t.told.height] : [])));
  await net.allAt(net.all, told + 5, 120_000);
  const blocks = await blockTxs(net.nodes[0].rpc, startHeight, told + 5);
  // The first halt: the first upgrade-info.json a keeper wrote (a sidecar may stop a node before it logs the halt).
  const haltAt = Math.min(...procs.map((p) => statSync(join(p.node.home, "data", "upgrade-info.json")).mtimeMs));
  const { lost, ...figures } = accountTxs(sent, blocks, haltAt);
  const byClient = (c: "wait" | "tell") =>
    accountTxs(
      sent.filter((t) => t.client === c),
      blocks,
      haltAt,
    );
  const [wait, tell] = [byClient("wait"), byClient("tell")];
  check(figures.silently_lost === 0 && figures.wrong_height === 0, `silently lost or told a wrong height: ${JSON.stringify(lost.slice(0, 5))}`);
  check(figures.duplicated === 0, `${figures.duplicated} transactions in more than one block`);
  check(figures.sent > 0 && figures.committed > 0, `the load sent ${figures.sent} and committed ${figures.committed}`);
  const { lost: _w, ...w } = wait;
  const { lost: _t, ...t } = tell;
  return {
    ...figures,
    wait_sent: w.sent,
    wait_committed: w.committed,
    wait_dropped_and_told: w.dropped_and_told,
    wait_across_halt: w.across_halt,
    wait_across_halt_p50_ms: w.across_halt_p50_ms,
    wait_across_halt_p99_ms: w.across_halt_p99_ms,
    tell_sent: t.sent,
    tell_committed: t.committed,
    tell_dropped_and_told: t.dropped_and_told,
    tell_told_then_committed: t.told_then_committed,
  };
}

export const TX_CASES: HaltCase[] = [
  {
    name: "txs-across",
    net: "tx",
    title: "bank sends from 16 accounts and gov votes from 4, to every node, from H−20 to H+20, four `xupgrade visor`s",
    options: { votingS: VOTING_S, accounts: ["alice", "bob", ...USERS, ...VOTERS] },
    run: (net) => underSidecars(net, { sidecar: "visor", env: PRESTART, propose: (n) => n.proposeUpgrade("v2", MARGIN_S), during: acrossTheUpgrade }),
  },
];
