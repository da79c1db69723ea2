/**
 * What the cases are made of: the case's shape, and the scenarios several cases share — a validator killed at
 * a moment of the upgrade while the others halt without it.
 */
import { watch } from "node:fs";
import { check, haltedAt, haltedTogether, answersWhileHalted, resumeOnV2, stopHalted, upgradeScheduled, type Measures } from "./checks.js";
import { FaultNet, V1, type NetOptions, type Proc } from "./net.js";

export interface CaseContext {
  /** cosmovisor's binary, when `npm run peers` built it. */
  cosmovisor?: string;
  /** Called while the others are halted at H and waiting for the killed one (kill-before): what else should answer then. */
  whileHalted?: (net: FaultNet, H: number) => Promise<void>;
}

export type NetName = "four" | "seven" | "tx";

export interface HaltCase {
  name: string;
  title: string;
  /** The net it runs on. */
  net: NetName;
  /** Needs cosmovisor (from `npm run peers`). */
  needs?: "cosmovisor";
  /** More of the net's options than its name gives (a longer voting period). */
  options?: NetOptions;
  run(net: FaultNet, ctx: CaseContext): Promise<Measures>;
}

/**
 * Kills validator `victim` at a moment of the upgrade; the others halt at H (they hold more than 2/3 of the
 * power); it, back on v1, catches up and halts at H; then every node runs v2.
 */
export async function killOne(
  net: FaultNet,
  victim: number,
  moment: (p: Proc, H: number) => Promise<void>,
  whileHalted?: CaseContext["whileHalted"],
): Promise<Measures> {
  const rest = net.all.filter((i) => i !== victim);
  check(net.share(rest) > 2 / 3, `the validators but ${victim} hold ${net.share(rest)} of the power: they cannot decide H`);
  const { procs, H } = await upgradeScheduled(net);
  await moment(procs[victim], H);
  await net.kill(procs[victim]);
  await Promise.all(rest.map((i) => haltedAt(procs[i], H)));
  const block = haltedTogether(net, procs, rest, H);
  // The victim has not decided H (or is not there to say so): the others wait for it, answering meanwhile.
  if (whileHalted) {
    for (const i of rest) await answersWhileHalted(net, i, H, block);
    await whileHalted(net, H);
  }
  const killedInfo = net.upgradeInfo(victim) !== undefined;
  // Back on v1, it catches up from the halted ones and halts at H (or again on CometBFT's replay of H).
  procs[victim] = net.spawn(victim, V1);
  await haltedAt(procs[victim], H);
  const replayed = procs[victim].records.some((r) => r.msg === "Replay last block using real app");
  if (!replayed) haltedTogether(net, procs, net.all, H);
  check(net.upgradeInfo(victim) === net.upgradeInfo(rest[0]), "upgrade-info.json of the killed node");
  const stoppedBySelf = await stopHalted(net, procs, H);
  await resumeOnV2(net, H);
  return { H, upgrade_info_before_kill: killedInfo, replayed, stopped_by_self: stoppedBySelf };
}

export const afterCommitOf = (h: (H: number) => number) => async (p: Proc, H: number) =>
  void (await p.waitFor((r) => r.msg === "committed block" && Number(r.height) === h(H), 600_000));

/**
 * Resolves when `test()` holds, checked at once and on every change in `dir` (inotify): the moment a node
 * writes a file is caught within a millisecond or two, not a poll later.
 */
export function whenInDir(dir: string, test: (name: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const w = watch(dir, (_e, name) => {
      if (test(String(name ?? ""))) {
        w.close();
        resolve();
      }
    });
    if (test("")) {
      w.close();
      resolve();
    }
  });
}
