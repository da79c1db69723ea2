/**
 * The halt under faults, on a real CometBFT network (docs/spec/keeper.md §6.2): each case schedules `v2` at
 * height H on a fresh testnet (net.ts), does its fault, and checks what must hold in every interleaving
 * (checks.ts) — every validator halts at H with the same block H, the same committed app hash and the same
 * upgrade-info.json; the faulty one, back, halts at H too; on v2 the chain resumes with identical blocks and
 * app hashes and the upgrade applied once per node. A case throws on the first broken promise; it returns
 * what it measured.
 *
 * Two nets: `four` equal validators, and `seven` with unequal power (seven.ts says which and why).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitUntil } from "../../../support/wait.js";
import { check, halting, haltedAt, haltedTogether, resumeOnV2, stopHalted, time, upgradeScheduled, type Measures } from "./checks.js";
import type { NetOptions } from "./net.js";
import { afterCommitOf, killOne, whenInDir, type HaltCase } from "./scenarios.js";
import { SEVEN, SEVEN_CASES } from "./seven.js";
import { PRESTART, underSidecars } from "./sidecars.js";
import { TX_CASES } from "./txs.js";

export type { CaseContext, HaltCase } from "./scenarios.js";
export type { Measures };

const FOUR_CASES: HaltCase[] = [
  {
    name: "kill-before",
    net: "four",
    title: "one validator SIGKILLed once it committed H-1",
    run: (net, ctx) =>
      killOne(
        net,
        3,
        afterCommitOf((H) => H - 1),
        ctx.whileHalted ?? (async () => {}),
      ),
  },
  {
    name: "kill-finalize",
    net: "four",
    title: "one validator SIGKILLed at H, in FinalizeBlock (as its app writes upgrade-info.json)",
    run: (net) =>
      // The keeper writes upgrade-info.json inside FinalizeBlock(H): its temporary file is the moment.
      killOne(net, 3, (p) => whenInDir(join(p.node.home, "data"), (name) => name.startsWith(".upgrade-info.json."))),
  },
  {
    name: "kill-precommit",
    net: "four",
    title: "one validator SIGKILLed just after signing its precommit for H",
    run: (net) =>
      killOne(net, 3, (p, H) =>
        // CometBFT saves its signing state (atomically) before the vote leaves: step 3 is a precommit.
        whenInDir(join(p.node.home, "data"), () => {
          try {
            const s = JSON.parse(readFileSync(join(p.node.home, "data", "priv_validator_state.json"), "utf8")) as { height: string; step: number };
            return Number(s.height) === H && s.step === 3;
          } catch {
            return false;
          }
        }),
      ),
  },
  {
    name: "cut-30s",
    net: "four",
    title: "one validator's network cut (connections reset, dials refused) for 30 s across H",
    async run(net) {
      const { procs, H } = await upgradeScheduled(net);
      await procs[0].waitFor((r) => r.msg === "committed block" && Number(r.height) === H - 2, 600_000);
      const cutAt = Date.now();
      net.proxy.cut("node2", 600_000, "reset");
      await Promise.all([0, 1, 3].map((i) => haltedAt(procs[i], H)));
      check(halting(procs[2], H) === undefined, "node2 halted while cut off");
      haltedTogether(net, procs, [0, 1, 3], H);
      await waitUntil(() => Date.now() - cutAt >= 30_000, 60_000, "30 s of cut");
      const healedAt = Date.now();
      net.proxy.heal("node2");
      await haltedAt(procs[2], H);
      haltedTogether(net, procs, net.all, H);
      const stoppedBySelf = await stopHalted(net, procs, H);
      await resumeOnV2(net, H);
      return { H, stopped_by_self: stoppedBySelf, cut_s: Math.round((healedAt - cutAt) / 1000), heal_to_halt_ms: time(halting(procs[2], H)) - healedAt };
    },
  },
  {
    name: "visors",
    net: "four",
    title: "four `xupgrade visor`s supervising the four validators, the next binary in standby (DAEMON_PRESTART)",
    run: (net) => underSidecars(net, { sidecar: "visor", env: PRESTART }),
  },
  {
    name: "visors-plain",
    net: "four",
    title: "four `xupgrade visor`s without the standby: the node restarted at the switch, as cosmovisor does",
    run: (net) => underSidecars(net, { sidecar: "visor" }),
  },
  {
    name: "cosmovisors",
    net: "four",
    title: "four cosmovisor v1.5.0 supervising the four validators",
    needs: "cosmovisor",
    run: (net, ctx) => underSidecars(net, { sidecar: "cosmovisor", cosmovisor: ctx.cosmovisor }),
  },
  {
    name: "delay-drops",
    net: "four",
    title: "200 ms ± 100 ms between all validators, connections dropped at random, through the whole upgrade",
    async run(net) {
      net.proxy.setFaults({ delayMs: 200, jitterMs: 100, dropMeanMs: 20_000 });
      const { procs, H } = await upgradeScheduled(net);
      await Promise.all(procs.map((p) => haltedAt(p, H)));
      haltedTogether(net, procs, net.all, H);
      const stoppedBySelf = await stopHalted(net, procs, H);
      await resumeOnV2(net, H);
      const t = net.proxy.totals();
      return { H, stopped_by_self: stoppedBySelf, connections: t.connections, dropped: t.dropped };
    },
  },
];

export const CASES: HaltCase[] = [...FOUR_CASES, ...SEVEN_CASES, ...TX_CASES];

/** The options of a case's net. */
export function netOptions(c: HaltCase, seed?: number): NetOptions {
  const base: NetOptions = c.net === "seven" ? SEVEN : {};
  return { ...base, ...c.options, seed };
}
