/**
 * Reconciliation at every start (docs/spec/sidecar.md §5.1): before launching anything, the visor puts
 * together what the disk says — `data/upgrade-info.json`, `current` and the name it records, the upgrade's
 * own records (switched to, first block seen, rolled back), and the node's last committed height — decides
 * what to run, and says both in one log line. A mismatch it cannot resolve safely stops the visor with a
 * clear message; neither binary is started.
 *
 * The decision (`decide`, a pure function, tested as a table) — P is the plan in the file, at height H, and
 * N the node's committed height when it can be read:
 *
 * | the file | current | N | decision |
 * | --- | --- | --- | --- |
 * | none | any | any | run `current` |
 * | unreadable (a write cut short) | any | any | set it aside (`cosmovisor/upgrade-info.json.unreadable`), run `current`: the node cannot start with it and writes it again at the halt |
 * | P | P | unknown, ≥ H−1 | run `current` (= H−1: the new binary applies P at H) |
 * | P | P | < H−1 | **stop**: the new binary cannot run heights before H; data/ is older than the upgrade |
 * | P, H skipped (`--unsafe-skip-upgrades`) | not P | any | run `current` |
 * | P, rolled back | not P | any | **stop**: say how to go on (a fixed binary, or skip H) |
 * | P | not P | unknown, H−1 | upgrade to P, then run it (the node halted at H: cosmovisor issue #25861) |
 * | P, manual | not P | unknown, < H | run `current`; the visor waits for the node to reach H (over RPC) |
 * | P, manual | not P | ≥ H | upgrade to P, then run it |
 * | P | not P | < H−1 | run `current`: too early for P (a stale file), the watcher waits for the node to halt at H |
 * | P | not P | ≥ H, and P was switched to before or P's binary is staged | point `current` at P (no backup, no pre-upgrade: the data already applied P), run it |
 * | P | not P | ≥ H, neither | **stop**: data/ is past P but nothing here says which binary applied it |
 */
import { lstat, readlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { VisorConfig } from "./config/index.js";
import { isManual, planFromText, readManualRecord, readText, type VisorPlan } from "./node/info-file.js";
import type { Layout } from "./layout.js";
import { sameName } from "./names.js";
import type { CommittedHeight } from "./node/node-state.js";

export const DONE_MARKER = ".xupgrade-done.json";
export const ROLLED_BACK_MARKER = ".xupgrade-rolled-back.json";
/** Where an unreadable `data/upgrade-info.json` found with the node stopped is kept (for the operator to look at). */
export const UNREADABLE_INFO = "upgrade-info.json.unreadable";

export interface StartState {
  /** The plan in data/upgrade-info.json; "invalid" with the reason; undefined when there is no file. */
  info: { plan: VisorPlan; manual: boolean } | { invalid: string } | undefined;
  /** `current`'s target (`genesis`, `upgrades/v2`), or what is wrong with it. */
  current: { target: string; name: string } | { missing: true } | { problem: string };
  /** For the file's plan: switched to before (its record in upgrades/<dir>), first block seen, rolled back, binary staged. */
  switched: boolean;
  done: boolean;
  rolledBack: boolean;
  staged: boolean;
  committed: CommittedHeight;
  skip: readonly bigint[];
}

export type Decision =
  | { action: "run"; reason: string; primeHeight?: bigint; setAside?: boolean }
  | { action: "upgrade"; plan: VisorPlan; reason: string }
  | { action: "repoint"; plan: VisorPlan; reason: string }
  | { action: "stop"; reason: string };

const cur = (s: StartState) => ("target" in s.current ? s.current.target : "missing" in s.current ? "(missing)" : "(unusable)");

/** The decision of the module comment's table. */
export function decide(s: StartState): Decision {
  if ("problem" in s.current) return { action: "stop", reason: s.current.problem };
  const info = s.info;
  if (info === undefined) return { action: "run", reason: "no upgrade-info.json" };
  if ("invalid" in info) {
    // Nobody writes it while the node is stopped: a write cut short. The node cannot start with it (its
    // keeper reads it at start) and writes it anew when it halts, so it is set aside, never trusted.
    return {
      action: "run",
      reason: `upgrade-info.json is unreadable (${info.invalid}): set aside as cosmovisor/${UNREADABLE_INFO}; the node writes it again at the halt`,
      setAside: true,
    };
  }
  const { plan, manual } = info;
  const H = plan.height;
  const N = s.committed.height;
  const currentName = "name" in s.current ? s.current.name : "";
  const p = `"${plan.name}" at height ${H}`;
  if (sameName(plan.name, currentName)) {
    if (N !== undefined && N < H - 1n) {
      return {
        action: "stop",
        reason:
          `current → ${cur(s)} is the binary of ${p}, but data/ is at height ${N}, before the upgrade: that binary cannot run height ${N + 1n}. ` +
          `Restore the data of the upgrade (or \`xupgrade visor rollback\`), or point current at the binary that runs height ${N + 1n}`,
      };
    }
    return {
      action: "run",
      reason: N === undefined ? `current is ${p} already` : N >= H ? `${p} is applied (data/ at ${N})` : `current is ${p}; it applies the upgrade at ${H}`,
    };
  }
  if (s.skip.includes(H)) return { action: "run", reason: `${p} is skipped (--unsafe-skip-upgrades)`, primeHeight: H };
  if (s.rolledBack) {
    return {
      action: "stop",
      reason:
        `upgrade ${p} was rolled back (cosmovisor/upgrades/…/${ROLLED_BACK_MARKER}): not upgrading to it again. Stage a fixed binary with ` +
        `\`xupgrade visor add-upgrade ${plan.rawName} <binary> --force\` (it clears the roll-back), or start the node with --unsafe-skip-upgrades ${H} if the chain skips it`,
    };
  }
  if (N === undefined) {
    if (manual) return { action: "run", reason: `manual ${p}: the visor waits for the node to reach ${H}` };
    if (s.done || s.switched) return { action: "repoint", plan, reason: `${p} was switched to before (data/ height unknown): current → ${cur(s)} is stale` };
    return { action: "upgrade", plan, reason: `the keeper wrote ${p} (data/ height unknown)` };
  }
  if (manual) {
    if (N < H) return { action: "run", reason: `manual ${p}: the node is at ${N}, the visor waits for ${H}` };
    return { action: "upgrade", plan, reason: `manual ${p}: the node is at ${N}` };
  }
  if (N === H - 1n) return { action: "upgrade", plan, reason: `the node halted at ${H} (data/ at ${N})` };
  if (N < H - 1n)
    return { action: "run", reason: `too early for ${p}: data/ is at ${N}; the node halts at ${H} and the visor upgrades then`, primeHeight: H - 1n };
  if (s.switched || s.done || s.staged) {
    return { action: "repoint", plan, reason: `data/ is at ${N}, past ${p}, which current → ${cur(s)} has not: current is stale` };
  }
  return {
    action: "stop",
    reason:
      `data/ is at height ${N}, past ${p}, but current → ${cur(s)} and nothing here says which binary applied it. ` +
      `If the chain applied ${plan.rawName}, stage its binary (\`xupgrade visor add-upgrade ${plan.rawName} <binary>\`); if it skipped it, remove data/upgrade-info.json`,
  };
}

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

/** Reads the start state from the disk (the committed height through `probe`, only when there is a plan to weigh it against). */
export async function readStartState(
  cfg: VisorConfig,
  layout: Layout,
  o: { skip: readonly bigint[]; currentName: () => Promise<string>; probe: () => Promise<CommittedHeight> },
): Promise<StartState> {
  let info: StartState["info"];
  try {
    const text = await readText(layout.infoFile);
    if (text !== undefined) {
      const plan = planFromText(text, layout.infoFile, cfg.disableRecase);
      info = { plan, manual: isManual(plan, await readManualRecord(layout.manualRecord)) };
    }
  } catch (e) {
    info = { invalid: (e as Error).message };
  }
  let current: StartState["current"];
  try {
    const st = await lstat(layout.currentLink);
    if (!st.isSymbolicLink()) current = { problem: "symlink genesis current: file exists" };
    else {
      const target = await readlink(layout.currentLink);
      current = (await exists(resolve(layout.root, target)))
        ? { target, name: await o.currentName() }
        : { problem: `the current link points to ${JSON.stringify(target)}, which is missing` };
    }
  } catch {
    current = { missing: true };
  }
  const s: StartState = {
    info,
    current,
    switched: false,
    done: false,
    rolledBack: false,
    staged: false,
    committed: { source: "not read (no plan)" },
    skip: o.skip,
  };
  if (info && "plan" in info) {
    let dir: string;
    try {
      dir = layout.upgradeDir(info.plan.name);
    } catch {
      return s;
    }
    [s.switched, s.done, s.rolledBack, s.staged] = await Promise.all([
      exists(join(dir, "upgrade-info.json")),
      exists(join(dir, DONE_MARKER)),
      exists(join(dir, ROLLED_BACK_MARKER)),
      exists(layout.upgradeBin(info.plan.name)),
    ]);
    s.committed = await o.probe();
  }
  return s;
}

/** The one log line's "found" part. */
export function describeState(s: StartState): string {
  const info =
    s.info === undefined ? "none" : "invalid" in s.info ? "unreadable" : `${s.info.plan.name}@${s.info.plan.height}${s.info.manual ? " (manual)" : ""}`;
  const current =
    "target" in s.current ? `${s.current.target}${s.current.name ? ` (${s.current.name})` : ""}` : "missing" in s.current ? "missing" : "unusable";
  const marks =
    s.info && "plan" in s.info
      ? ` switched=${s.switched ? "yes" : "no"} done=${s.done ? "yes" : "no"}${s.rolledBack ? " rolled-back=yes" : ""} staged=${s.staged ? "yes" : "no"}`
      : "";
  const h = s.committed.height === undefined ? `unknown (${s.committed.source})` : `${s.committed.height}`;
  return `upgrade-info.json=${info} current=${current}${marks} committed=${h}`;
}
