/**
 * `visor run` (docs/spec/sidecar.md §5): the supervision loop.
 *
 *   start → clean `.tmp/` → RECONCILE (the file, `current`, the upgrade's records, the committed height:
 *           run, upgrade first, re-point `current`, or stop) → spawn the node
 *   tick: the file calls for an upgrade → HALT → stop the node → PIPELINE
 *   node exits 0 → exit 0
 *   node exits ≠ 0 / by a signal → wait ≤ 2 s for a half-written file → RECONCILE
 *                                → upgrade ? PIPELINE : exit with the node's status
 *   PIPELINE → restart (same args, same watch state), or exit 0 when DAEMON_RESTART_AFTER_UPGRADE is off,
 *              or exit 75 once handed to an orchestrator
 *
 * A SIGINT/SIGTERM/SIGQUIT is forwarded to the node, and the visor exits with the node's status; during the
 * pipeline it aborts the step in progress (its command gets the signal, SIGKILL after the kill grace: the
 * shutdown grace, or 2 s), deletes the temporary files and exits 128 + the signal's number. Each stage is
 * told to the webhooks and the metrics when they are configured (telling/tell.ts).
 */
import type { ChildProcess, StdioOptions } from "node:child_process";
import { signalNumber, Supervisor, type Exit, type Running } from "./node/child.js";
import { ms, ORCHESTRATOR_EXIT_CODE, type VisorConfig } from "./config/index.js";
import { skipHeights, stampOf, type VisorPlan } from "./node/info-file.js";
import { ensureBinary, Layout } from "./layout.js";
import { createLogger, type VisorLogger } from "./log.js";
import { nodeHeight } from "./node/node-rpc.js";
import type { PipelineHooks } from "./upgrade/pipeline.js";
import { InfoWatcher } from "./node/watch.js";
import { sleep } from "../../base/sleep.js";
import { VisorError } from "./errors.js";
import { ChainWatch } from "./node/chain-watch.js";
import type { VisorEndpoint } from "./telling/endpoint.js";
import { handedOverName } from "./orchestrator.js";
import { decide, describeState, readStartState, UNREADABLE_INFO, type Decision } from "./reconcile.js";
import { startTelling } from "./telling/tell.js";
import { writeFileAtomic } from "../../base/file.js";
import { encodeUpgradeInfo } from "../../module/upgrade-info/encode.js";
import { join } from "node:path";
import { interruptedRollback } from "./upgrade/rollback-journal.js";
import { fileWake } from "./node/file-wake.js";
import { Prestart } from "./node/prestart.js";

// What only an upgrade, the start's committed-height probe or the readiness attestation runs is imported when
// it runs: a visor supervises its node for months between upgrades, and holds only the supervision loop.
const pipelineModule = () => import("./upgrade/pipeline.js");
const readinessModule = () => import("./telling/readiness.js");

export interface RunOptions {
  cfg: VisorConfig;
  /** The node's arguments (everything after `run`). */
  args: readonly string[];
  log?: VisorLogger;
  /** The node's stdio (default inherited). */
  stdio?: StdioOptions;
  onNode?: (proc: ChildProcess) => void;
  progressStream?: NodeJS.WriteStream;
  /** Install the process-wide signal handler (the CLI does; in-process callers pass their own supervisor). */
  signals?: boolean;
  supervisor?: Supervisor;
  hooks?: PipelineHooks;
  /** Told the visor's HTTP endpoint once it listens (DAEMON_HTTP_ADDRESS): routes may be added to it. */
  onEndpoint?: (e: VisorEndpoint) => void;
}

/** How long a half-written file is waited for after the node died (docs/spec/sidecar.md §5). */
const RECHECK_MS = 2000;
const RECHECK_STEP_MS = 100;

type Outcome = { kind: "exit"; exit: Exit } | { kind: "signalled"; exit: Exit } | { kind: "upgrade"; plan: VisorPlan };

/**
 * Supervises one node process until it exits, a signal arrives, or the file calls for an upgrade. The file is
 * looked at every poll interval, and at once when the data directory says it changed (inotify, where there is
 * one): the halt is noticed in a millisecond or two instead of half a poll on average.
 */
async function supervise(node: Running, watcher: InfoWatcher, sup: Supervisor, pollMs: number, infoFile: string): Promise<Outcome> {
  const exited = node.exited.then((exit) => ({ kind: "exit" as const, exit }));
  const signalled = sup.signalled().then(() => ({ kind: "signal" as const }));
  const wake = fileWake(infoFile);
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<{ kind: "tick" }>((r) => (timer = setTimeout(() => r({ kind: "tick" }), pollMs)));
      const ev = await Promise.race([exited, signalled, tick, wake.next()]);
      clearTimeout(timer);
      if (ev.kind === "signal") return { kind: "signalled", exit: await node.exited };
      if (ev.kind === "exit") return sup.userSignal ? { kind: "signalled", exit: ev.exit } : ev;
      const plan = await watcher.tick();
      if (plan && !sup.userSignal) return { kind: "upgrade", plan };
    }
  } finally {
    wake.close();
  }
}

/** After the node died on its own: wait up to 2 s for a file still being written. */
async function settle(watcher: InfoWatcher, layout: Layout): Promise<void> {
  const deadline = Date.now() + RECHECK_MS;
  for (;;) {
    if (!(await stampOf(layout.infoFile).catch(() => undefined))) return;
    await watcher.read();
    if (!watcher.lastReadFailed || Date.now() >= deadline) return;
    await sleep(RECHECK_STEP_MS);
  }
}

/** The decision as words for the start's one log line. */
function decisionText(d: Decision, current: string): string {
  switch (d.action) {
    case "run":
      return `running ${current}`;
    case "upgrade":
      return `pending upgrade "${d.plan.name}" at height ${d.plan.height}: upgrading before starting the node`;
    case "repoint":
      return `pointing current at "${d.plan.name}" (no backup, no pre-upgrade: the data already applied it), then running it`;
    case "stop":
      return "starting nothing";
  }
}

/** How long a pipeline command may outlive a forwarded signal: DAEMON_SHUTDOWN_GRACE, or 2 s when unset. */
export const killGraceMs = (cfg: VisorConfig): number => (cfg.shutdownGrace > 0n ? ms(cfg.shutdownGrace) : 2000);

/** Runs the visor until it should exit; resolves with the exit status, throws for configuration or pipeline errors. */
export async function runVisor(o: RunOptions): Promise<number> {
  const { cfg } = o;
  const log = o.log ?? createLogger({ disabled: cfg.disableLogs, color: cfg.colorLogs, timeFormat: cfg.timeFormatLogs });
  const layout = new Layout(cfg);
  const sup = o.supervisor ?? new Supervisor({ log, stdio: o.stdio, onNode: o.onNode, killGraceMs: killGraceMs(cfg) });
  if (o.signals) sup.install();
  const skip = skipHeights(o.args);
  const watcher = new InfoWatcher({ layout, log, skip, nodeHeight: () => nodeHeight(cfg.rpcAddress) });
  const interruptedStatus = () => 128 + signalNumber(sup.userSignal!);
  /** The current upgrade's name: `current`'s record, or in orchestrator mode the plan last handed over. */
  const currentName = async () => (cfg.orchestratorImageFile !== "" ? (await handedOverName(layout)) || (await layout.currentName()) : layout.currentName());

  const telling = await startTelling(cfg, log, { currentUpgrade: await currentName().catch(() => "") });
  if (telling.endpoint) o.onEndpoint?.(telling.endpoint);
  const events = telling.events;
  const chain = new ChainWatch({ rpcAddress: cfg.rpcAddress, intervalMs: Math.max(1, ms(cfg.rpcPollInterval)), layout, log, events });
  const ctx = { cfg, layout, log, supervisor: sup, progressStream: o.progressStream, hooks: o.hooks, events };

  /** The pipeline, then what the loop does next: undefined = start the node again, a number = exit with it. */
  const upgrade = async (plan: VisorPlan): Promise<number | undefined> => {
    const { Interrupted, runPipeline } = await pipelineModule();
    let outcome;
    try {
      outcome = await runPipeline(ctx, plan);
    } catch (e) {
      if (e instanceof Interrupted) {
        log.info(`upgrade stopped by ${e.signal}; the next start resumes it`);
        return interruptedStatus();
      }
      throw e;
    }
    if (outcome === "handed-over") return ORCHESTRATOR_EXIT_CODE;
    watcher.upgraded(plan);
    chain.expectFirstBlock(plan);
    if (!cfg.restartAfterUpgrade) {
      log.info("upgrade detected, DAEMON_RESTART_AFTER_UPGRADE is off. Verify new upgrade and start the visor again.");
      return 0;
    }
    log.info("upgrade detected, relaunching", { app: cfg.name });
    return undefined;
  };

  /** `current` → the plan's binary without the pipeline: the data already applied the plan (reconcile.ts). */
  const repoint = async (plan: VisorPlan): Promise<void> => {
    const temps: string[] = [];
    try {
      await (await pipelineModule()).resolveBinary(ctx, plan, (p) => void temps.push(p));
    } finally {
      const { rm } = await import("node:fs/promises");
      for (const p of temps) await rm(p, { recursive: true, force: true }).catch(() => {});
    }
    await writeFileAtomic(
      join(layout.upgradeDir(plan.name), "upgrade-info.json"),
      encodeUpgradeInfo({ name: plan.name, height: plan.height, info: plan.info }),
    );
    await layout.switchTo(plan.name);
    log.info(`current now points to ${join("upgrades", layout.upgradeDir(plan.name).slice(layout.upgradesDir.length + 1))}`, {
      upgrade: plan.name,
      height: plan.height,
    });
    events.emit("switch", plan, { repointed: true });
    watcher.upgraded(plan);
  };

  /** Moves an unreadable data/upgrade-info.json out of the node's way (reconcile.ts). */
  const setAside = async (): Promise<void> => {
    const { rename } = await import("node:fs/promises");
    const to = join(layout.root, UNREADABLE_INFO);
    await rename(layout.infoFile, to);
    log.warn(`the unreadable upgrade-info.json was moved to ${to}; the node writes it again when it halts`);
  };

  /** Reconciles the disk's state (docs/spec/sidecar.md §5.1); logs one line; throws to start nothing. */
  const reconcile = async (when: string): Promise<Exclude<Decision, { action: "stop" }>> => {
    const state = await readStartState(cfg, layout, { skip, currentName, probe: async () => (await import("./node/node-state.js")).committedHeight(layout) });
    const d = decide(state);
    const target = "target" in state.current ? state.current.target : "genesis";
    log.info(`${when}: found ${describeState(state)}; ${decisionText(d, target)}`, { reason: d.reason });
    if (d.action === "stop") {
      events.emit("failure", state.info && "plan" in state.info ? state.info.plan : undefined, { error: d.reason });
      throw new VisorError(`cannot start: ${d.reason}`);
    }
    return d;
  };

  // docs/spec/readiness.md §3: the readiness attestation, while the node runs (never during an upgrade).
  const attester = cfg.readiness ? new (await readinessModule()).ReadinessAttester({ cfg, log, layout, events }) : undefined;
  // docs/spec/sidecar.md §5.5: the next binary in standby before the height; the pipeline loaded with it, ahead of the halt.
  const prestart = cfg.prestart ? new Prestart({ cfg, layout, log, supervisor: sup, args: o.args, onStandby: () => void pipelineModule() }) : undefined;
  telling.endpoint?.route("/readiness", async (req) => (await readinessModule()).readinessRoute(cfg)(req));

  try {
    const journal = await interruptedRollback(layout);
    if (journal) throw new VisorError(`cannot start: a rollback was interrupted (${journal}); run \`xupgrade visor rollback\` again to finish it`);
    const stale = await layout.cleanTmp();
    if (stale.length > 0) log.info("removed temporary files of an earlier run", { entries: stale.join(",") });
    const d = await reconcile("start");
    if (d.action === "run" && d.setAside) await setAside();
    if (d.action === "upgrade") {
      const next = await upgrade(d.plan);
      if (next !== undefined) return next;
    } else if (d.action === "repoint") await repoint(d.plan);
    const first = await layout.resolveCurrent();
    watcher.currentName = await currentName();
    if (d.action === "run" && d.primeHeight !== undefined) await watcher.prime(d.primeHeight);
    log.info("visor started", { current: first.target, upgrade: watcher.currentName || undefined, home: cfg.home });

    for (;;) {
      if (sup.userSignal) return interruptedStatus();
      const { bin } = await layout.resolveCurrent();
      await ensureBinary(bin);
      log.info("starting the node", { bin, args: o.args.join(" ") });
      const node = prestart?.take(bin) ?? sup.start(bin, o.args, { node: true });
      events.emit("node_start", undefined, { bin });
      chain.start();
      attester?.start();
      prestart?.start();
      const out = await supervise(node, watcher, sup, ms(cfg.pollInterval), layout.infoFile);
      chain.stop();
      prestart?.stop();
      await attester?.stop();
      if (out.kind === "signalled") {
        log.info("the node stopped after a forwarded signal", { exit_code: out.exit.status });
        return out.exit.status;
      }
      if (out.kind === "upgrade") {
        log.info(`upgrade "${out.plan.name}" needed at height ${out.plan.height}`);
        events.emit("halt", out.plan, { node: "running" });
        await sup.stop(node, ms(cfg.shutdownGrace));
        const next = await upgrade(out.plan);
        if (next !== undefined) return next;
        continue;
      }
      const { exit } = out;
      if (exit.error) throw new VisorError(`cannot start ${bin}: ${exit.error.message}`);
      if (exit.status === 0) {
        log.info("the node exited normally");
        return 0;
      }
      log.info("the node exited", { exit_code: exit.status, signal: exit.signal ?? undefined });
      await settle(watcher, layout);
      const again = await reconcile("the node stopped");
      if (again.action === "run") {
        if (again.setAside) await setAside();
        return exit.status;
      }
      if (again.action === "repoint") {
        await repoint(again.plan);
        continue;
      }
      events.emit("halt", again.plan, { node: "exited", exit_code: exit.status });
      const next = await upgrade(again.plan);
      if (next !== undefined) return next;
    }
  } finally {
    chain.stop();
    prestart?.stop();
    prestart?.dismiss("the visor stops");
    await attester?.stop();
    await telling.close();
    if (o.signals) sup.uninstall();
  }
}
