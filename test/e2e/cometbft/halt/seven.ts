/**
 * The halt on seven validators with unequal power, as real networks have it: 30/20/15/13/10/7/5 (of 100).
 *
 * - The largest, node0, holds 30 %: under a third, so the chain decides H without it — and it is the one
 *   killed at H-1.
 * - node1 and node3 hold 20 + 13 = 33 %, just under a third: the most a partition can cut off while the
 *   rest (67 %, just over 2/3) still decides H — and then only with every one of its five validators.
 * - Two regions of 55 % (node0, node2, node4) and 45 % (node1, node3, node5, node6): neither has 2/3 on its
 *   own, so every block's votes cross the slow link between them.
 */
import { waitUntil } from "../../../support/wait.js";
import { check, halting, haltedAt, haltedTogether, resumeOnV2, stopHalted, time, upgradeScheduled } from "./checks.js";
import type { FaultNet, NetOptions } from "./net.js";
import { afterCommitOf, killOne, type HaltCase } from "./scenarios.js";
import { PRESTART, underSidecars } from "./sidecars.js";

export const SEVEN: NetOptions = { validators: 7, powers: [30, 20, 15, 13, 10, 7, 5] };

/** The partitioned third: node1 and node3. */
const CUT_OFF = [1, 3];
const REGIONS = [
  [0, 2, 4],
  [1, 3, 5, 6],
];
/** 10–30 ms inside a region, 150–300 ms between the two (one way, per chunk, order kept). */
const INSIDE = { delayMs: 20, jitterMs: 10 };
const BETWEEN = { delayMs: 225, jitterMs: 75 };
/** How long the partition lasts: across H, well after the rest halted. */
const PARTITION_MS = 30_000;

const names = (is: readonly number[]) => is.map((i) => `node${i}`);

export const SEVEN_CASES: HaltCase[] = [
  {
    name: "seven-kill-largest",
    net: "seven",
    title: "seven validators (30/20/15/13/10/7/5): the largest (30 %) SIGKILLed once it committed H-1",
    run: (net) =>
      killOne(
        net,
        0,
        afterCommitOf((H) => H - 1),
      ),
  },
  {
    name: "seven-partition",
    net: "seven",
    title: "seven validators: 33 % of the power (20 + 13) partitioned from the rest for 30 s across H, then healed",
    async run(net) {
      const rest = net.all.filter((i) => !CUT_OFF.includes(i));
      check(net.share(CUT_OFF) < 1 / 3 && net.share(rest) > 2 / 3, `the partition holds ${net.share(CUT_OFF)} of the power`);
      const { procs, H } = await upgradeScheduled(net);
      await procs[0].waitFor((r) => r.msg === "committed block" && Number(r.height) === H - 2, 600_000);
      // A pulled cable between the two sides: the connections stay open and carry nothing until it heals.
      const cutAt = Date.now();
      net.proxy.partition(names(CUT_OFF), 600_000, "blackhole");
      await Promise.all(rest.map((i) => haltedAt(procs[i], H)));
      for (const i of CUT_OFF) check(halting(procs[i], H) === undefined, `node${i} halted while partitioned`);
      haltedTogether(net, procs, rest, H);
      await waitUntil(() => Date.now() - cutAt >= PARTITION_MS, 2 * PARTITION_MS, "the partition's 30 s");
      const healedAt = Date.now();
      net.proxy.heal();
      await Promise.all(CUT_OFF.map((i) => haltedAt(procs[i], H)));
      haltedTogether(net, procs, net.all, H);
      const stoppedBySelf = await stopHalted(net, procs, H);
      await resumeOnV2(net, H);
      const healToHalt = CUT_OFF.map((i) => time(halting(procs[i], H)) - healedAt);
      return { H, stopped_by_self: stoppedBySelf, cut_s: Math.round((healedAt - cutAt) / 1000), heal_to_halt_ms: Math.max(...healToHalt) };
    },
  },
  {
    name: "seven-visors",
    net: "seven",
    title: "seven `xupgrade visor`s supervising the seven validators, the next binary in standby",
    run: (net) => underSidecars(net, { sidecar: "visor", env: PRESTART }),
  },
  {
    name: "seven-cosmovisors",
    net: "seven",
    title: "seven cosmovisor v1.5.0 supervising the seven validators",
    needs: "cosmovisor",
    run: (net, ctx) => underSidecars(net, { sidecar: "cosmovisor", cosmovisor: ctx.cosmovisor }),
  },
  {
    name: "seven-regions",
    net: "seven",
    title: "seven validators in two regions (55 % / 45 %), 10–30 ms inside, 150–300 ms between, the whole upgrade under visors",
    run: (net) => underSidecars(net, { sidecar: "visor", env: PRESTART, before: regions }),
  },
  {
    name: "seven-regions-cosmovisors",
    net: "seven",
    title: "the same two regions, the whole upgrade under cosmovisor v1.5.0",
    needs: "cosmovisor",
    run: (net, ctx) => underSidecars(net, { sidecar: "cosmovisor", cosmovisor: ctx.cosmovisor, before: regions }),
  },
];

function regions(net: FaultNet): void {
  net.proxy.regions(REGIONS.map(names), INSIDE, BETWEEN);
}
