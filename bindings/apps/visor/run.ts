/**
 * `visor run` (docs/spec/sidecar.md §5): the supervision loop.
 *
 *   start → clean `.tmp/` → resolve current → PENDING CHECK → spawn the node
 *   tick: the file calls for an upgrade → stop the node → PIPELINE
 *   node exits 0 → exit 0
 *   node exits ≠ 0 / by a signal → re-check the file (≤ 2 s for a half-written one)
 *                                → pending ? PIPELINE : exit with the node's status
 *   PIPELINE → restart (same args, same watch state), or exit 0 when DAEMON_RESTART_AFTER_UPGRADE is off
 *
 * A SIGINT/SIGTERM/SIGQUIT is forwarded to the node, and the visor exits with the node's status; during the
 * pipeline it aborts the step in progress (its command gets the signal, SIGKILL after the kill grace: the
 * shutdown grace, or 2 s), deletes the temporary files and exits 128 + the signal's number.
 */
import type { ChildProcess, StdioOptions } from "node:child_process";
import { signalNumber, Supervisor, type Exit, type Running } from "./child.js";
import { ms, type VisorConfig } from "./config/index.js";
import { skipHeights, stampOf, type VisorPlan } from "./info-file.js";
import { ensureBinary, Layout } from "./layout.js";
import { createLogger, type VisorLogger } from "./log.js";
import { nodeHeight } from "./node-rpc.js";
import { Interrupted, runPipeline, type PipelineHooks } from "./pipeline.js";
import { InfoWatcher } from "./watch.js";
import { sleep } from "../../base/sleep.js";
import { VisorError } from "./errors.js";

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
}

/** How long a half-written file is waited for after the node died (docs/spec/sidecar.md §5). */
const RECHECK_MS = 2000;
const RECHECK_STEP_MS = 100;

type Outcome = { kind: "exit"; exit: Exit } | { kind: "signalled"; exit: Exit } | { kind: "upgrade"; plan: VisorPlan };

/** Supervises one node process until it exits, a signal arrives, or the file calls for an upgrade. */
async function supervise(node: Running, watcher: InfoWatcher, sup: Supervisor, pollMs: number): Promise<Outcome> {
  const exited = node.exited.then((exit) => ({ kind: "exit" as const, exit }));
  const signalled = sup.signalled().then(() => ({ kind: "signal" as const }));
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<{ kind: "tick" }>((r) => (timer = setTimeout(() => r({ kind: "tick" }), pollMs)));
    const ev = await Promise.race([exited, signalled, tick]);
    clearTimeout(timer);
    if (ev.kind === "signal") return { kind: "signalled", exit: await node.exited };
    if (ev.kind === "exit") return sup.userSignal ? { kind: "signalled", exit: ev.exit } : ev;
    const plan = await watcher.tick();
    if (plan && !sup.userSignal) return { kind: "upgrade", plan };
  }
}

/** After the node died on its own: a pending plan, waiting up to 2 s for a file still being written. */
async function recheck(watcher: InfoWatcher, layout: Layout): Promise<VisorPlan | undefined> {
  const deadline = Date.now() + RECHECK_MS;
  for (;;) {
    if (!(await stampOf(layout.infoFile).catch(() => undefined))) return undefined;
    const plan = await watcher.pending();
    if (plan || !watcher.lastReadFailed || Date.now() >= deadline) return plan;
    await sleep(RECHECK_STEP_MS);
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
  const ctx = { cfg, layout, log, supervisor: sup, progressStream: o.progressStream, hooks: o.hooks };
  const watcher = new InfoWatcher({ layout, log, skip: skipHeights(o.args), nodeHeight: () => nodeHeight(cfg.rpcAddress) });
  const interruptedStatus = () => 128 + signalNumber(sup.userSignal!);

  /** The pipeline, then what the loop does next: undefined = start the node again, a number = exit with it. */
  const upgrade = async (plan: VisorPlan): Promise<number | undefined> => {
    try {
      await runPipeline(ctx, plan);
    } catch (e) {
      if (e instanceof Interrupted) {
        log.info(`upgrade stopped by ${e.signal}; the next start resumes it`);
        return interruptedStatus();
      }
      throw e;
    }
    watcher.upgraded(plan);
    if (!cfg.restartAfterUpgrade) {
      log.info("upgrade detected, DAEMON_RESTART_AFTER_UPGRADE is off. Verify new upgrade and start the visor again.");
      return 0;
    }
    log.info("upgrade detected, relaunching", { app: cfg.name });
    return undefined;
  };

  try {
    const stale = await layout.cleanTmp();
    if (stale.length > 0) log.info("removed temporary files of an earlier run", { entries: stale.join(",") });
    const first = await layout.resolveCurrent();
    watcher.currentName = await layout.currentName();
    log.info("visor started", { current: first.target, upgrade: watcher.currentName || undefined, home: cfg.home });

    for (;;) {
      if (sup.userSignal) return interruptedStatus();
      const pending = await watcher.pending();
      if (pending) {
        log.info(`pending upgrade "${pending.name}" at height ${pending.height}: upgrading before starting the node`);
        const next = await upgrade(pending);
        if (next !== undefined) return next;
        continue;
      }
      const { bin } = await layout.resolveCurrent();
      await ensureBinary(bin);
      log.info("starting the node", { bin, args: o.args.join(" ") });
      const node = sup.start(bin, o.args, { node: true });
      const out = await supervise(node, watcher, sup, ms(cfg.pollInterval));
      if (out.kind === "signalled") {
        log.info("the node stopped after a forwarded signal", { exit_code: out.exit.status });
        return out.exit.status;
      }
      if (out.kind === "upgrade") {
        log.info(`upgrade "${out.plan.name}" needed at height ${out.plan.height}`);
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
      const plan = await recheck(watcher, layout);
      if (!plan) return exit.status;
      const next = await upgrade(plan);
      if (next !== undefined) return next;
    }
  } finally {
    if (o.signals) sup.uninstall();
  }
}
