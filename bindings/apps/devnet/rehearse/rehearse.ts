/**
 * `rehearseUpgrade`: what the new binary would do at the upgrade height, done now on a copy of the node's
 * committed state (docs/spec/rehearse.md). The node's home is only read; the copy lives in a temporary
 * directory that is removed afterwards.
 *
 * 1. Snapshot: one committed height of the node's application database (snapshot.ts: served by the running
 *    node, or copied from a stopped one).
 * 2. The old binary's last steps on the copy: the plan (the chain's, or one given here, scheduled as a
 *    governance proposal would), the copy's height moved to H - 1 when the snapshot is older (the blocks in
 *    between are not replayed: the rehearsal runs on the snapshot's state), and the old binary's halt at H —
 *    its keeper's PreBlock with no handler, which writes `upgrade-info.json` into the copy's home.
 * 3. The new binary on the copy, through the code a node runs: `openNode` (the store loader with the app's
 *    StoreUpgrades, the start-up checks, the keeper with the app's handlers), then the state machine's
 *    `finalizeBlock` at H (PreBlock with the handler and RunMigrations, BeginBlock, EndBlock, the app hash)
 *    and `commit`. A failure is the halt the real upgrade would give, with its message and exit code.
 * 4. The report: the plan, per module the versions and each migration's duration, per store the keys added,
 *    changed and deleted, the app hash before and after, warnings, and the time taken.
 *
 * The migrations are timed by wrapping each migration function of the app (called exactly as
 * RunMigrations calls it); nothing else of the app is changed.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UpgradeError } from "../../../core/errors.js";
import type { Backend } from "../../../core/contract.js";
import type { Plan, StoreUpgrades, VersionMap } from "../../../core/types.js";
import { parseGoDuration } from "../../../go/duration.js";
import { appVersionMap, loadApp, type AppDefinition, type LoadedApp, type ModuleContext } from "../chain/app.js";
import { NODE_STORE, openCommitStore } from "../chain/app-hash.js";
import { exitCodeFor, DevnetError } from "../shared/errors.js";
import { appDbPath, readDevnetConfig, readGenesis } from "../shared/genesis.js";
import { fullLogger } from "../shared/logger.js";
import { createKeeper, openAppDb, openNode, type OpenedNode } from "../chain/open.js";
import { BlockHaltError } from "../chain/state.js";
import { readBe64, utf8 } from "../shared/util.js";
import { diffHeights, storeSizes, type StoreChange, type StoreSizes } from "./diff.js";
import { takeSnapshot } from "./snapshot.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";
import { silentLogger } from "../../../base/logger.js";

export interface RehearseOptions {
  /** The node's home (a devnet home, or a CometBFT node home of a testnet). Only read. */
  home: string;
  /** The new binary's app: a path to an app module, or a definition object. */
  app: string | AppDefinition;
  /** The upgrade to rehearse; default: the plan scheduled on chain. */
  plan?: string;
  /** The upgrade height; default: the chain's plan's height when `plan` is that plan, else two blocks after the snapshot. */
  height?: bigint | number;
  /** Plan.Info for a plan given here (default: the chain's plan's info when the names match, else ""). */
  info?: string;
  /** Keeper core of the new binary, default "wasm". */
  backend?: Backend;
  /** The new binary's log lines during the rehearsal (they are also kept in the report). */
  logger?: Logger;
  /** Where the copy is made (default: the system's temporary directory). */
  tmpDir?: string;
  /** Keep the copy (its path is `report.copy`) instead of removing it: for inspection. */
  keepCopy?: boolean;
  /**
   * `plan` (default): with the plan named (`plan` and `height`), the snapshot the running node holds for that
   * plan's rehearsals when it holds one (docs/spec/rehearse.md §2.3), so that validators rehearse the same
   * state; `latest`: the state as of now.
   */
  snapshot?: "plan" | "latest";
}

export interface MigrationRun {
  from: bigint;
  to: bigint;
  durationMs: number;
  /** The migration threw (its error halts the upgrade). */
  failed: boolean;
}

export interface ModuleReport {
  name: string;
  /** The chain's version before the upgrade (undefined: the module is new). */
  versionBefore?: bigint;
  /** The version after the upgrade block (undefined when the upgrade halts). */
  versionAfter?: bigint;
  /** The new app's ConsensusVersion of the module (undefined: the app has no such module). */
  consensusVersion?: bigint;
  migrations: MigrationRun[];
  /** RunMigrations initialised the module (new in this upgrade) with its default genesis. */
  initGenesis?: { durationMs: number; failed: boolean };
  /** Time in this module's migrations and genesis. */
  durationMs: number;
}

export interface RehearsalReport {
  /** The upgrade block was executed and committed on the copy: the real upgrade would succeed. */
  ok: boolean;
  /** The exit code the real upgrade ends the node with: 0 when it goes on, else 20–25 or 1 (docs/spec/keeper.md §6.1). */
  exitCode: number;
  /** The halt's message, as the node would log it ("" when ok). */
  error: string;
  /** Where it would halt: at start-up (store loader, binary too early, downgrade), in the block, or at its commit. */
  haltedIn?: "start" | "block" | "commit";
  plan: { name: string; height: bigint; info: string; source: "chain" | "given" };
  app: { name: string; version: string };
  snapshot: { height: bigint; source: "node" | "copy"; engine: string; entries?: number; bytes?: number; durationMs: number; pinned: boolean };
  /** The rehearsed block: the plan's height, with no txs, at the last block's time plus the blocks to go at the configured block time. */
  block: { height: bigint; timeNs: bigint };
  appHashBefore: Uint8Array;
  /** The app hash after the upgrade block (undefined when it halts). */
  appHashAfter?: Uint8Array;
  /** The new app's StoreUpgrades for the plan, and whether the store loader applied them. */
  storeUpgrades?: StoreUpgrades & { applied: boolean };
  modules: ModuleReport[];
  /** Modules whose version changed or that were added. */
  modulesMigrated: number;
  /** App stores (host stores `_…` left out), every one of them, with their changes; empty lists when the upgrade halts. */
  stores: StoreChange[];
  warnings: string[];
  /** The new binary's log lines during the rehearsal. */
  log: { level: string; msg: string; [k: string]: unknown }[];
  timings: { snapshotMs: number; prepareMs: number; startMs: number; blockMs: number; commitMs: number; diffMs: number };
  /** The whole rehearsal. */
  durationMs: number;
  /** The copy, when `keepCopy` was asked for. */
  copy?: string;
}

/** Rehearses the upgrade on a copy of the node's committed state; rejects when the rehearsal cannot run. */
export async function rehearseUpgrade(o: RehearseOptions): Promise<RehearsalReport> {
  if (!o || typeof o.home !== "string" || o.home === "") throw new TypeError("home must be a non-empty path");
  const started = performance.now();
  const backend = o.backend ?? "wasm";
  const outer = o.logger ? fullLogger(o.logger) : silentLogger;
  const log: RehearsalReport["log"] = [];
  const capture = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    log.push({ level, msg, ...plain(fields) });
    outer[level as "info"](msg, fields);
  };
  const logger = { info: capture("info"), error: capture("error"), warn: capture("warn"), debug: () => undefined };

  const runs = new Map<string, ModuleReport>();
  const loaded = await loadApp(o.app);
  const app = instrument(loaded, runs);
  const [genesis, config] = await Promise.all([readGenesis(o.home), readDevnetConfig(o.home)]);

  // Tracked before it exists: a signal that lands between its creation and the next line still finds it.
  const work = join(o.tmpDir ?? tmpdir(), `xupgrade-rehearse-${randomBytes(6).toString("hex")}`);
  trackWork(work);
  await mkdir(work, { mode: 0o700 });
  const timings = { snapshotMs: 0, prepareMs: 0, startMs: 0, blockMs: 0, commitMs: 0, diffMs: 0 };
  try {
    // 1. The snapshot.
    const named = o.snapshot !== "latest" && o.plan !== undefined && o.height !== undefined ? { name: o.plan, height: BigInt(o.height) } : undefined;
    const snap = await takeSnapshot(o.home, appDbPath(work), named);
    timings.snapshotMs = snap.durationMs;

    // 2. The old binary's last steps.
    let t = performance.now();
    const prep = await prepareCopy(work, o, backend, config.block_time);
    timings.prepareMs = performance.now() - t;
    const warnings = [...prep.warnings];
    const upgrade = loaded.upgrades.get(prep.plan.name);
    const report: RehearsalReport = {
      ok: false,
      exitCode: 1,
      error: "",
      plan: prep.plan,
      app: { name: loaded.name, version: loaded.definition.version ?? "" },
      snapshot: {
        height: prep.snapshotHeight,
        source: snap.source,
        engine: config.engine ?? "local",
        entries: snap.entries,
        bytes: snap.bytes,
        durationMs: snap.durationMs,
        pinned: snap.pinned,
      },
      block: { height: prep.plan.height, timeNs: prep.timeNs },
      appHashBefore: prep.appHash,
      storeUpgrades: upgrade?.storeUpgrades ? { ...upgrade.storeUpgrades, applied: false } : undefined,
      modules: [],
      modulesMigrated: 0,
      stores: [],
      warnings,
      log,
      timings,
      durationMs: 0,
    };
    warnings.push(...storeWarnings(loaded, prep.before, upgrade?.storeUpgrades));

    // 3. The new binary on the copy.
    t = performance.now();
    let node: OpenedNode;
    try {
      node = await openNode({ home: work, chainId: genesis.chain_id, app, backend, skipUpgradeHeights: [], logger, keepRecent: Infinity });
    } catch (e) {
      timings.startMs = performance.now() - t;
      return await finish(report, { exitCode: exitCodeFor(e), error: messageOf(e), haltedIn: "start" }, runs, prep.versions, loaded, started, work, o);
    }
    timings.startMs = performance.now() - t;
    let outcome: Outcome;
    try {
      outcome = await runUpgradeBlock(node, prep, report, timings);
    } finally {
      await node.ms.close();
    }
    if (report.storeUpgrades) report.storeUpgrades.applied = log.some((r) => r.msg.startsWith("store loader applied the store upgrades"));
    if (outcome.versionsAfter) warnings.push(...versionWarnings(loaded, outcome.versionsAfter));
    return await finish(report, outcome, runs, prep.versions, loaded, started, work, o);
  } catch (e) {
    await removeWork(work, o);
    throw e;
  }
}

/** The upgrade block on the opened copy: FinalizeBlock at the plan's height, Commit, and what changed. */
async function runUpgradeBlock(node: OpenedNode, prep: Prepared, report: RehearsalReport, timings: RehearsalReport["timings"]): Promise<Outcome> {
  const halt = (e: unknown, haltedIn: "block" | "commit"): Outcome => {
    const h = e instanceof BlockHaltError ? e : new BlockHaltError(prep.plan.height, 1, e);
    return { exitCode: h.exitCode, error: h.message, haltedIn };
  };
  let t = performance.now();
  try {
    await node.state.finalizeBlock({ height: prep.plan.height, timeNs: prep.timeNs, txs: [] });
  } catch (e) {
    return halt(e, "block");
  } finally {
    timings.blockMs = performance.now() - t;
  }
  t = performance.now();
  let appHash: Uint8Array;
  try {
    appHash = (await node.state.commit()).appHash;
  } catch (e) {
    return halt(e, "commit");
  } finally {
    timings.commitMs = performance.now() - t;
  }
  // 4. What changed.
  t = performance.now();
  report.stores = diffHeights(node.ms, prep.snapshotHeight, prep.plan.height);
  report.appHashAfter = appHash;
  const versionsAfter = node.state.keeper.getModuleVersionMap();
  timings.diffMs = performance.now() - t;
  return { exitCode: 0, error: "", versionsAfter };
}

interface Prepared {
  plan: RehearsalReport["plan"];
  snapshotHeight: bigint;
  appHash: Uint8Array;
  timeNs: bigint;
  versions: VersionMap;
  /** The app stores at the snapshot's height, and their key counts. */
  before: StoreSizes;
  warnings: string[];
}

/** The copy as the old binary leaves it when it halts at the plan's height; also the state before, for the report. */
async function prepareCopy(work: string, o: RehearseOptions, backend: Backend, blockTime: string | undefined): Promise<Prepared> {
  // The copy keeps every version: the snapshot's height is what the report compares the upgrade with.
  const ms = await openCommitStore(openAppDb(appDbPath(work)), Infinity);
  try {
    const h0 = ms.lastCommittedHeight;
    if (h0 === 0n) throw new DevnetError("snapshot", "the node has no committed block yet: nothing to rehearse on");
    for (const s of ["upgrade", NODE_STORE])
      if (!ms.hasCommittedStore(s)) throw new DevnetError("snapshot", `the snapshot has no "${s}" store: not a devnet node's database`);
    const appHash = ms.lastAppHash;
    const lastTime = ms.store(NODE_STORE).get(utf8("block_time"));
    const before = storeSizes(ms, h0);
    // A keeper without handlers: the old binary.
    const keeper = await createKeeper({ store: ms.store("upgrade"), homePath: work, backend });
    const versions = keeper.getModuleVersionMap();
    const onChain = keeper.getUpgradePlan();
    const name = o.plan ?? onChain?.name;
    if (name === undefined) {
      throw new DevnetError("rehearsal", `no upgrade is scheduled on chain at height ${h0}: name the upgrade to rehearse (--plan <name>, and --height <h>)`);
    }
    if (o.plan !== undefined && (typeof o.plan !== "string" || o.plan === "")) throw new TypeError("plan must be a non-empty name");
    // A plan given here is scheduled in the block after the snapshot, so it can run in the one after that.
    const height = o.height !== undefined ? BigInt(o.height) : onChain?.name === name ? onChain.height : h0 + 2n;
    const info = o.info ?? (onChain?.name === name ? onChain.info : "");
    const fromChain = onChain !== undefined && onChain.name === name && onChain.height === height && onChain.info === info;
    if (height <= (fromChain ? h0 : h0 + 1n)) {
      throw new DevnetError(
        "rehearsal",
        fromChain
          ? `the upgrade height ${height} is not above the snapshot's height ${h0}: the node is past it`
          : `the upgrade height ${height} is too early: a plan given here is scheduled on the copy in the block after the snapshot (${h0 + 1n}), so its height must be at least ${h0 + 2n}`,
      );
    }
    const plan: Plan = fromChain ? onChain : { name, height, info };
    const warnings: string[] = [];
    if (!fromChain) {
      // As a governance proposal would, in the block after the snapshot (the keeper's own checks apply).
      try {
        keeper.scheduleUpgrade(plan, h0 + 1n);
      } catch (e) {
        throw new DevnetError("rehearsal", `cannot schedule ${JSON.stringify(name)} at height ${height} on the copy: ${messageOf(e)}`);
      }
      if (onChain) warnings.push(`the chain's plan ${JSON.stringify(onChain.name)} at height ${onChain.height} was replaced on the copy by the plan given`);
    }
    if (height - 1n > h0 || !fromChain) await ms.commit(height - 1n);
    // The old binary at the height: no handler, so its PreBlock writes upgrade-info.json and halts.
    try {
      await keeper.preBlock(height, { appVersion: keeper.getProtocolVersion() });
      throw new DevnetError("rehearsal", `the plan ${JSON.stringify(name)} is not due at height ${height} on the copy`);
    } catch (e) {
      if (!(e instanceof UpgradeError) || e.kind !== "upgrade-needed") throw e;
    } finally {
      ms.rollback();
    }
    const ns = (() => {
      try {
        return parseGoDuration(blockTime ?? "1s");
      } catch {
        return 1_000_000_000n;
      }
    })();
    const last = lastTime?.length === 8 ? readBe64(lastTime) : 0n;
    return {
      plan: { ...plan, source: fromChain ? "chain" : "given" },
      snapshotHeight: h0,
      appHash,
      timeNs: last + (height - h0) * ns,
      versions,
      before,
      warnings,
    };
  } finally {
    await ms.close();
  }
}

/** The app with every migration and default genesis timed into `runs` (called exactly as RunMigrations calls them). */
function instrument(app: LoadedApp, runs: Map<string, ModuleReport>): LoadedApp {
  const entry = (name: string) => {
    let r = runs.get(name);
    if (!r) runs.set(name, (r = { name, migrations: [], durationMs: 0 }));
    return r;
  };
  const timed =
    <A extends unknown[]>(fn: (...a: A) => unknown, done: (ms: number, failed: boolean) => void) =>
    async (...a: A) => {
      const t = performance.now();
      try {
        await fn(...a);
      } catch (e) {
        done(performance.now() - t, true);
        throw e;
      }
      done(performance.now() - t, false);
    };
  const modules = new Map(app.modules);
  for (const [name, m] of app.modules) {
    if (!m.def) continue;
    const def = { ...m.def };
    if (m.def.migrations) {
      def.migrations = Object.fromEntries(
        Object.entries(m.def.migrations).map(([from, fn]) => [
          from,
          typeof fn !== "function"
            ? fn
            : timed(
                (ctx: ModuleContext) => fn(ctx),
                (ms, failed) => {
                  const r = entry(name);
                  r.migrations.push({ from: BigInt(from), to: BigInt(from) + 1n, durationMs: ms, failed });
                  r.durationMs += ms;
                },
              ),
        ]),
      );
    }
    const init = m.def.initGenesis;
    if (init) {
      def.initGenesis = timed(
        (ctx: ModuleContext) => init(ctx),
        (ms, failed) => {
          const r = entry(name);
          r.initGenesis = { durationMs: ms, failed };
          r.durationMs += ms;
        },
      );
    }
    modules.set(name, { ...m, def });
  }
  return { ...app, modules };
}

interface Outcome {
  exitCode: number;
  error: string;
  haltedIn?: RehearsalReport["haltedIn"];
  versionsAfter?: VersionMap;
}

async function finish(
  report: RehearsalReport,
  out: Outcome,
  runs: Map<string, ModuleReport>,
  before: VersionMap,
  app: LoadedApp,
  started: number,
  work: string,
  o: RehearseOptions,
): Promise<RehearsalReport> {
  report.ok = out.exitCode === 0;
  report.exitCode = out.exitCode;
  report.error = out.error;
  if (out.haltedIn) report.haltedIn = out.haltedIn;
  const consensus = appVersionMap(app);
  const names = [...new Set([...before.keys(), ...(out.versionsAfter?.keys() ?? []), ...consensus.keys()])].sort();
  report.modules = names.map((name) => ({
    name,
    versionBefore: before.get(name),
    versionAfter: out.versionsAfter?.get(name),
    consensusVersion: consensus.get(name),
    migrations: runs.get(name)?.migrations ?? [],
    ...(runs.get(name)?.initGenesis ? { initGenesis: runs.get(name)!.initGenesis } : {}),
    durationMs: runs.get(name)?.durationMs ?? 0,
  }));
  report.modulesMigrated = report.modules.filter((m) => m.versionAfter !== undefined && m.versionAfter !== m.versionBefore).length;
  if (o.keepCopy) {
    report.copy = work;
    active.delete(work);
  } else await removeWork(work, o);
  report.durationMs = performance.now() - started;
  return report;
}

async function removeWork(work: string, o: RehearseOptions): Promise<void> {
  if (!o.keepCopy) await rm(work, { recursive: true, force: true });
  active.delete(work);
}

/**
 * Copies still being rehearsed on: removed when the process exits (a CLI stopped by a signal exits through
 * process.exit), so an interrupted rehearsal leaves no copy of the state behind.
 */
const active = new Set<string>();
let exitHook = false;
function trackWork(work: string): void {
  active.add(work);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const w of active) rmSync(w, { recursive: true, force: true });
  });
}

/** Store upgrades that do not match the chain's stores, and stores left on chain that the new app does not mount. */
function storeWarnings(app: LoadedApp, before: StoreSizes, su: StoreUpgrades | undefined): string[] {
  const out: string[] = [];
  const exists = (s: string) => before.has(s);
  for (const r of su?.renamed ?? []) {
    if (!exists(r.oldKey)) out.push(`the store upgrade renames store "${r.oldKey}", which does not exist on chain: "${r.newKey}" starts empty`);
  }
  for (const s of su?.deleted ?? []) if (!exists(s)) out.push(`the store upgrade deletes store "${s}", which does not exist on chain`);
  for (const s of su?.added ?? []) {
    const n = before.get(s);
    if (n !== undefined) out.push(`the store upgrade adds store "${s}", which already exists on chain (${n} keys are kept)`);
  }
  const gone = new Set([...(su?.deleted ?? []), ...(su?.renamed ?? []).map((r) => r.oldKey)]);
  const mounted = new Set(app.stores);
  for (const [s, keys] of before) {
    if (!mounted.has(s) && !gone.has(s)) out.push(`store "${s}" (${keys} keys) stays on chain but no module of ${app.name} mounts it: its data is unreachable`);
  }
  return out;
}

/** Modules whose version after the upgrade is not the app's ConsensusVersion: a handler that skipped RunMigrations. */
function versionWarnings(app: LoadedApp, after: VersionMap): string[] {
  const out: string[] = [];
  for (const [name, v] of appVersionMap(app)) {
    const got = after.get(name);
    if (got !== v) {
      out.push(
        `module ${name}: version ${got ?? "none"} after the upgrade, but ${app.name} runs it at consensus version ${v} (did the handler skip RunMigrations?)`,
      );
    }
  }
  return out;
}

function plain(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!fields) return {};
  return JSON.parse(
    JSON.stringify(fields, (_k, v) => (typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v)),
  ) as Record<string, unknown>;
}
