/**
 * What every case of the halt suite checks, in any interleaving (docs/spec/keeper.md §6.2): the validators
 * halt at H (the `UPGRADE "v2" NEEDED` halt, exit code 20) with the same block H, the same committed app hash
 * and the same upgrade-info.json; a halted node still answers; on v2 the chain resumes with identical blocks
 * and the upgrade applied once per node. Each throws on the first broken promise.
 */
import { FaultNet, V1, V2, records, type Proc } from "./net.js";

export type Measures = Record<string, number | string | boolean>;

export const check = (ok: boolean, what: string): void => {
  if (!ok) throw new Error(what);
};

export const same = <T>(values: T[], what: string): T => {
  const distinct = new Set(values.map((v) => JSON.stringify(v)));
  check(distinct.size === 1, `${what} differ: ${[...distinct].join(" | ")}`);
  return values[0];
};

/** Every v1 validator, serving, at height ≥ 3, with v2 scheduled; returns the processes and H. */
export async function upgradeScheduled(net: FaultNet, marginS?: number): Promise<{ procs: Proc[]; H: number }> {
  const procs = await Promise.all(net.all.map((i) => net.start(i, V1)));
  await net.allAt(net.all, 3);
  const H = await net.proposeUpgrade("v2", marginS);
  return { procs, H };
}

export const halting = (p: Proc, H: number) => p.records.find((r) => r.msg === "halting the node" && Number(r.height) === H);
export const haltedAt = (p: Proc, H: number) => p.waitFor((r) => r.msg === "halting the node" && Number(r.height) === H, 600_000);
export const committed = (p: Proc, h: number) => p.waitFor((r) => r.msg === "committed block" && Number(r.height) === h, 600_000);

export const upgradeInfoOf = (H: number) => `{"name":"v2","time":"0001-01-01T00:00:00Z","height":${H}}`;

/**
 * Every node in `which` halted at H, from its own log and files (a halted node may already have stopped):
 * the same `UPGRADE "v2" NEEDED` halt with exit code 20, the same block H (the one consensus decided), the
 * same committed app hash, the same upgrade-info.json. Returns block H's hash.
 */
export function haltedTogether(net: FaultNet, procs: Proc[], which: number[], H: number): string {
  const rs = which.map((i) => {
    const r = halting(procs[i], H);
    check(r !== undefined, `node${i} did not halt at ${H}`);
    check(r!.exit_code === 20 && r!.err === `UPGRADE "v2" NEEDED at height: ${H}: `, `node${i} halted with ${JSON.stringify(r)}`);
    return r!;
  });
  const block = same(
    rs.map((r) => r.block_hash),
    `block ${H} on nodes ${which.join(",")}`,
  );
  same(
    rs.map((r) => r.app_hash),
    `the app hash at ${H - 1} on nodes ${which.join(",")}`,
  );
  const info = same(
    which.map((i) => net.upgradeInfo(i)),
    "upgrade-info.json",
  );
  check(info === upgradeInfoOf(H), `upgrade-info.json is ${info}`);
  return String(block);
}

/** While halted a node still answers: status at block H (the one it halted on), its app at H-1 with that block's app hash, the plan still there. */
export async function answersWhileHalted(net: FaultNet, i: number, H: number, blockHash: string): Promise<void> {
  check((await net.status(i))?.height === H, `node${i}'s status is not at ${H} while halted`);
  const block = await net.block(i, H);
  check(block?.hash === blockHash, `node${i}'s block ${H} is ${JSON.stringify(block)}`);
  const app = await net.appInfo(i);
  check(app?.height === H - 1 && app.appHash === block!.appHash, `node${i}'s app is at ${JSON.stringify(app)}`);
  check((await net.plan(i)) === `v2@${H}`, `node${i}'s plan while halted`);
}

/**
 * The operator stops the halted nodes (SIGTERM; a node that already stopped by itself, every peer holding
 * the decision, is left alone): each exits 20 with nothing of H committed. Returns how many had stopped by
 * themselves.
 */
export async function stopHalted(net: FaultNet, procs: Proc[], H: number): Promise<number> {
  const bySelf = procs.filter((p) => p.proc.exitCode !== null).length;
  // A node that halted on CometBFT's replay of H never served, and exits by itself.
  for (const p of procs) if (p.proc.exitCode === null && p.records.some((r) => r.msg === "serving")) p.proc.kill("SIGTERM");
  const codes = await Promise.all(procs.map((p) => net.exitOf(p, 60_000)));
  check(
    codes.every((c) => c === 20),
    `exit codes ${codes.join(",")}`,
  );
  for (const p of procs) {
    if (!p.records.some((r) => r.msg === "serving")) continue; // halted in start-up: nothing was opened for blocks
    const stopped = records(p, "stopped")[0];
    check(Number(stopped?.height) === H - 1 && stopped?.exit_code === 20, `node${p.node.index} stopped with ${JSON.stringify(stopped)}`);
  }
  return bySelf;
}

/** The blocks H, H+1, H+2 are the same on every node. */
export async function sameBlocks(net: FaultNet, H: number): Promise<void> {
  for (const h of [H, H + 1, H + 2]) same(await Promise.all(net.all.map((i) => net.block(i, h))), `block ${h}`);
}

/** Each process applied the upgrade once, at H, and ran the counter migration once. */
export function appliedOnce(procs: Proc[], H: number): void {
  for (const p of procs) {
    const applied = records(p, "upgrade applied");
    check(applied.length === 1 && Number(applied[0].height) === H, `node${p.node.index}: upgrade applied ${JSON.stringify(applied)}`);
    check(records(p, "migrating module counter from version 1 to version 2").length === 1, `node${p.node.index}: the counter migration did not run once`);
  }
}

/** Every node on v2: the upgrade is applied once per node and the chain resumes with identical blocks and app hashes. */
export async function resumeOnV2(net: FaultNet, H: number): Promise<Proc[]> {
  const procs = await Promise.all(net.all.map((i) => net.start(i, V2)));
  await net.allAt(net.all, H + 2, 240_000);
  await sameBlocks(net, H);
  appliedOnce(procs, H);
  return procs;
}

/** The node's log time of a record, in ms since the epoch (NaN without one). */
export const time = (r: Record<string, unknown> | undefined): number => (typeof r?.time === "string" ? Date.parse(r.time) : NaN);
