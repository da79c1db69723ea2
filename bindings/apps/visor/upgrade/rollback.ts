/**
 * `visor rollback` (docs/spec/sidecar.md §13): undo the last upgrade — restore the data backup taken for it
 * and point `current` back at the binary that ran before it. The node must be stopped.
 *
 * cosmovisor has no such command; restoring its backup by hand after an upgrade that added a module left
 * operators with a store the old binary could not load (its issue #20472). Here the backup is the whole of
 * `data/` as it was at the halt, so the old binary finds exactly the state it left.
 *
 * Refused, with everything left as it was:
 * - the node runs (a database under `data/` is locked: node/node-state.ts `heldLocks`);
 * - `current` records no upgrade, or there is no complete backup of it (`UNSAFE_SKIP_BACKUP` was on), or the
 *   backup does not say which binary ran before;
 * - the restore's copy does not fit the disk;
 * - without `--force`: the new binary committed blocks past the upgrade height (they would be lost), or the
 *   validator signed after the backup was taken (`priv_validator_state.json`): the chain moved on under the
 *   new binary, and the old one would have to sign those heights again.
 *
 * The validator's signed state never goes backwards, `--force` or not: the newer `priv_validator_state.json`
 * (the node's, when it signed after the backup) goes into the restored data, so CometBFT refuses to sign again
 * at any height it already signed (a missed block, never a double sign).
 *
 * The restore: the backup is copied beside `data/` the backup's way (table files hard-linked, tree-copy.ts);
 * then, under a journal (`cosmovisor/rollback-in-progress.json`), `data/` is renamed aside
 * (`data-rolled-back-<dir>-<Y>-<M>-<D>`, kept for the operator: nothing is deleted), the copy renamed to
 * `data/`, `current` pointed back atomically, and the upgrade marked rolled back
 * (`upgrades/<dir>/.xupgrade-rolled-back.json`) so that no start upgrades to it again (reconcile.ts) until a
 * fixed binary is staged with `add-upgrade --force`. A crash anywhere leaves the journal: `visor run` refuses
 * to start, and `visor rollback` again finishes the steps left.
 */
import { lstat, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { exists, writeFileAtomic } from "../../../base/file.js";
import { BACKUP_MARKER, listBackups, spaceNeeded, type BackupMarker } from "./backup.js";
import type { VisorConfig } from "../config/index.js";
import { VisorError } from "../errors.js";
import type { VisorEvents } from "../telling/events.js";
import { Layout, random } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { sameName } from "../names.js";
import { committedHeight, heldLocks, signedAfter, signState, type SignState } from "../node/node-state.js";
import { formatBytes } from "../progress.js";
import { DONE_MARKER, ROLLED_BACK_MARKER } from "../reconcile.js";
import { journalPath } from "./rollback-journal.js";
import { copyTree, estimateCopy, freeBytes, walkTree } from "./tree-copy.js";

export { interruptedRollback, ROLLBACK_JOURNAL } from "./rollback-journal.js";

const PRIV_VALIDATOR_STATE = "priv_validator_state.json";

export interface RollbackOptions {
  log: VisorLogger;
  /** Roll back although blocks past the upgrade would be lost or the validator signed after the backup. */
  force?: boolean;
  /** This backup (a complete backup of the current upgrade) instead of the newest. */
  backup?: string;
  now?: Date;
  /** Told the `rollback` stage (the webhooks, docs/spec/sidecar.md §11). */
  events?: VisorEvents;
  /** Test hook: awaited between the journal's steps (a crash there must be resumable). */
  afterStep?: (step: "aside" | "restored") => Promise<void>;
}

export interface RollbackResult {
  upgrade: string;
  height: bigint;
  backup: string;
  /** `current`'s target now. */
  current: string;
  /** Where the data directory that was replaced is kept. */
  kept: string;
  files: number;
  bytesCopied: number;
  bytesLinked: number;
  seconds: number;
  /** The node's priv_validator_state.json was newer than the backup's and was kept. */
  signStateKept: boolean;
}

/** What `.xupgrade-rolled-back.json` records (reconcile.ts reads only that it exists). */
export interface RolledBackMarker {
  name: string;
  height: string;
  backup: string;
  /** `current` before and after. */
  from: string;
  to: string;
  data_kept: string;
  forced: boolean;
  at: string;
}

interface Journal {
  name: string;
  height: string;
  backup: string;
  target: string;
  from: string;
  /** The restored copy (renamed to data/) and where data/ goes. */
  restored: string;
  aside: string;
  forced: boolean;
  sign_state_kept: boolean;
  files: number;
  bytes_copied: number;
  bytes_linked: number;
}

const signText = (s: SignState) => `height ${s.height} round ${s.round} step ${s.step}`;

/** A target `current` may point back at: `genesis` or `upgrades/<dir>`, with its binary in place. */
async function checkTarget(layout: Layout, target: string | undefined, backup: string): Promise<string> {
  if (target === undefined || target === "") {
    throw new VisorError(
      `cannot roll back: the backup ${backup} does not record which binary ran before the upgrade (a backup of an older visor); restore it and point current by hand`,
    );
  }
  if (!(target === "genesis" || /^upgrades\/[^/]+$/.test(target)) || target === "upgrades/." || target === "upgrades/..") {
    throw new VisorError(`cannot roll back: the backup ${backup} records current → ${JSON.stringify(target)}, which is not genesis or upgrades/<dir>`);
  }
  const bin = join(layout.root, target, "bin", layout.cfg.name);
  const st = await stat(bin).catch(() => undefined);
  if (!st?.isFile()) throw new VisorError(`cannot roll back: current would point back at ${target}, but its binary ${bin} is missing`);
  return target;
}

/** A fresh name beside data/ for the data being replaced: `data-rolled-back-<dir>-<Y>-<M>-<D>[.n]`. */
async function asideName(layout: Layout, dirName: string, now: Date): Promise<string> {
  const base = join(layout.cfg.home, `data-rolled-back-${dirName}-${now.getFullYear()}-${now.getMonth() + 1}-${now.getDate()}`);
  for (let i = 0; ; i++) {
    const p = i === 0 ? base : `${base}.${i}`;
    if (
      !(await lstat(p).then(
        () => true,
        () => false,
      ))
    )
      return p;
  }
}

/** Copies left by a rollback that crashed before its journal was written (nothing else was changed then). */
async function sweepUnjournalled(layout: Layout, log: VisorLogger): Promise<void> {
  for (const n of await readdir(layout.cfg.home).catch(() => [] as string[])) {
    if (!/^\.data-rollback-[0-9a-f]+\.tmp$/.test(n)) continue;
    log.info("removing the copy of an unfinished rollback", { path: join(layout.cfg.home, n) });
    await rm(join(layout.cfg.home, n), { recursive: true, force: true });
  }
}

/** The steps after the copy, each one skipped when done already: so a rerun after a crash finishes them. */
async function finish(layout: Layout, j: Journal, log: VisorLogger, o: Pick<RollbackOptions, "afterStep" | "now">): Promise<void> {
  const [hasData, hasRestored, hasAside] = await Promise.all([exists(layout.dataDir), exists(j.restored), exists(j.aside)]);
  if (hasRestored && hasData && hasAside) {
    // data/ was moved aside, then something (a node started by hand) made a new one: not ours to replace.
    throw new VisorError(
      `cannot finish the rollback: ${layout.dataDir} appeared after the data was moved to ${j.aside}; move it away, then run \`xupgrade visor rollback\` again`,
    );
  }
  if (hasRestored && hasData && !hasAside) {
    await rename(layout.dataDir, j.aside);
    await o.afterStep?.("aside");
  }
  if (hasRestored && !(await exists(layout.dataDir))) {
    await rename(j.restored, layout.dataDir);
    await o.afterStep?.("restored");
  }
  if (!(await exists(layout.dataDir)))
    throw new VisorError(
      `cannot finish the rollback: neither ${layout.dataDir} nor its restored copy ${j.restored} exists; the replaced data is at ${j.aside}`,
    );
  await layout.pointCurrentAt(j.target);
  const dir = layout.upgradeDir(j.name);
  const marker: RolledBackMarker = {
    name: j.name,
    height: j.height,
    backup: j.backup,
    from: j.from,
    to: j.target,
    data_kept: j.aside,
    forced: j.forced,
    at: (o.now ?? new Date()).toISOString(),
  };
  await writeFileAtomic(join(dir, ROLLED_BACK_MARKER), JSON.stringify(marker) + "\n");
  // The upgrade is undone: not switched to, its first block not seen (reconcile.ts reads both).
  await rm(join(dir, "upgrade-info.json"), { force: true });
  await rm(join(dir, DONE_MARKER), { force: true });
  await rm(journalPath(layout), { force: true });
  log.info(`current now points to ${j.target}`, { upgrade: j.name, rolled_back: true });
}

/** `xupgrade visor rollback [--force] [--backup <path>]`. */
export async function rollback(cfg: VisorConfig, o: RollbackOptions): Promise<RollbackResult> {
  const { log } = o;
  const layout = new Layout(cfg);
  const now = o.now ?? new Date();
  if (cfg.orchestratorImageFile !== "") {
    throw new VisorError(
      "cannot roll back in orchestrator mode (DAEMON_ORCHESTRATOR_IMAGE_FILE): the binaries are images; start the previous image on a restored data directory",
    );
  }

  const locks = await heldLocks(layout.dataDir);
  if (locks === undefined) log.warn("this system does not list file locks (/proc/locks): make sure the node is stopped");
  else if (locks.length > 0) {
    throw new VisorError(
      `cannot roll back: the node is running (${locks.map((l) => `data/${l.file} is locked by process ${l.pid}`).join(", ")}); stop it (and its visor) first`,
    );
  }

  // A rollback cut short: finish it (the checks were made when it started).
  const journalFile = journalPath(layout);
  const pending = await readFile(journalFile, "utf8").then(
    (t) => JSON.parse(t) as Journal,
    () => undefined,
  );
  if (pending) {
    log.info(`finishing the rollback of "${pending.name}" an earlier run started`, { journal: journalFile });
    await finish(layout, pending, log, o);
    return {
      upgrade: pending.name,
      height: BigInt(pending.height),
      backup: pending.backup,
      current: pending.target,
      kept: pending.aside,
      files: pending.files,
      bytesCopied: pending.bytes_copied,
      bytesLinked: pending.bytes_linked,
      seconds: 0,
      signStateKept: pending.sign_state_kept,
    };
  }
  await sweepUnjournalled(layout, log);

  // What is rolled back: the upgrade `current` records, with a complete backup taken for it.
  const { target: from } = await layout.resolveCurrent();
  const name = await layout.currentName();
  if (name === "") throw new VisorError(`cannot roll back: current → ${from} records no upgrade (current/upgrade-info.json); there is nothing to roll back`);
  const backups = (await listBackups(cfg.dataBackupDir, layout.dataDir)).filter((b) => sameName(b.marker.name, name));
  let chosen: { path: string; marker: BackupMarker } | undefined;
  if (o.backup !== undefined) {
    const wanted = [resolve(o.backup), resolve(cfg.dataBackupDir, o.backup)];
    chosen = backups.find((b) => wanted.includes(b.path));
    if (!chosen)
      throw new VisorError(`cannot roll back: ${o.backup} is not a complete backup of ${layout.dataDir} for the upgrade "${name}" in ${cfg.dataBackupDir}`);
  } else chosen = backups.at(-1);
  if (!chosen) {
    throw new VisorError(
      `cannot roll back: no backup of the upgrade "${name}" in ${cfg.dataBackupDir} (DAEMON_DATA_BACKUP_DIR) holds ${layout.dataDir}; ` +
        "was UNSAFE_SKIP_BACKUP on? Restore the data by hand (or resync the node) and point current with care",
    );
  }
  const { path: backup, marker } = chosen;
  const H = BigInt(marker.height);
  const target = await checkTarget(layout, marker.current, backup);

  // What the restore would lose.
  const [live, saved] = await Promise.all([committedHeight(layout), committedHeight(layout, backup)]);
  const [liveSign, savedSign] = await Promise.all([signState(layout.dataDir), signState(backup)]);
  const signedSince = liveSign !== undefined && signedAfter(liveSign, savedSign);
  log.info(
    `rollback of "${name}" at height ${H}: data/ committed=${live.height ?? `unknown (${live.source})`}, the backup committed=${saved.height ?? `unknown (${saved.source})`}` +
      `${liveSign ? `; signed ${signText(liveSign)}, the backup ${savedSign ? signText(savedSign) : "none"}` : ""}`,
    { backup, current: `${from} → ${target}` },
  );
  const risks: string[] = [];
  if (live.height !== undefined && live.height > H) {
    risks.push(
      `the new binary committed blocks ${H + 1n}…${live.height} past the upgrade height ${H}; the rollback loses them (the node would sync them again on the binary that applies the upgrade)`,
    );
  }
  if (signedSince) {
    risks.push(
      `the validator signed ${signText(liveSign)} after the backup was taken (${savedSign ? signText(savedSign) : "no priv_validator_state.json"}): the chain went on under the new binary, ` +
        "and the old one would have to sign those heights again — the node's newer priv_validator_state.json is kept, so it will not sign them at all until the chain passes them (a double-sign risk on another signer's state)",
    );
  }
  if (risks.length > 0 && !o.force) throw new VisorError(`cannot roll back "${name}" without --force: ${risks.join("; ")}`);
  for (const r of risks) log.warn(`--force: ${r}`);

  // The copy beside data/: hard links when the backup shares data's file system; it must fit.
  const restored = join(cfg.home, `.data-rollback-${random()}.tmp`);
  const [b, h] = await Promise.all([stat(backup), stat(cfg.home)]);
  const canLink = b.dev === h.dev;
  const entries = await walkTree(backup, (r) => r === BACKUP_MARKER);
  const est = estimateCopy(entries, canLink);
  const free = await freeBytes(cfg.home);
  if (spaceNeeded(est.bytesToCopy) > free) {
    throw new VisorError(
      `cannot roll back: restoring copies ${formatBytes(est.bytesToCopy)} (${est.bytesToCopy} bytes) and needs ${spaceNeeded(est.bytesToCopy)} bytes with the margin, ` +
        `but ${cfg.home} has ${formatBytes(free)} (${free} bytes) free; nothing was changed`,
    );
  }
  const started = performance.now();
  let copied;
  try {
    await mkdir(restored, { mode: 0o700 });
    copied = await copyTree(backup, restored, entries, { link: canLink });
    if (signedSince) await writeFile(join(restored, PRIV_VALIDATOR_STATE), await readFile(join(layout.dataDir, PRIV_VALIDATOR_STATE)), { mode: 0o600 });
  } catch (e) {
    await rm(restored, { recursive: true, force: true });
    throw new VisorError(`cannot roll back: copying the backup failed, nothing was changed: ${(e as Error).message}`);
  }
  const seconds = (performance.now() - started) / 1000;
  log.info("backup copied for the restore", {
    seconds: seconds.toFixed(2),
    files: copied.files,
    bytes_copied: copied.bytesCopied,
    bytes_linked: copied.bytesLinked,
  });
  if (signedSince) log.info(`kept the node's priv_validator_state.json (${signText(liveSign)}): the signed state never goes backwards`);

  const dirName = layout.upgradeDir(name).slice(layout.upgradesDir.length + 1);
  const journal: Journal = {
    name,
    height: String(H),
    backup,
    target,
    from,
    restored,
    aside: await asideName(layout, dirName, now),
    forced: risks.length > 0,
    sign_state_kept: signedSince,
    files: copied.files,
    bytes_copied: copied.bytesCopied,
    bytes_linked: copied.bytesLinked,
  };
  await writeFileAtomic(journalFile, JSON.stringify(journal) + "\n");
  await finish(layout, journal, log, o);
  log.info(`rolled back "${name}": data/ restored from ${backup}; the replaced data is kept at ${journal.aside} (delete it when done)`);
  o.events?.emit(
    "rollback",
    { name, height: H },
    { backup, current: target, data_kept: journal.aside, forced: journal.forced, seconds, bytes_copied: copied.bytesCopied, bytes_linked: copied.bytesLinked },
  );
  return {
    upgrade: name,
    height: H,
    backup,
    current: target,
    kept: journal.aside,
    files: copied.files,
    bytesCopied: copied.bytesCopied,
    bytesLinked: copied.bytesLinked,
    seconds,
    signStateKept: signedSince,
  };
}
