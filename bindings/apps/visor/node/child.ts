/**
 * The visor's child processes (docs/spec/sidecar.md §5.3–§5.4): the node (stdout and stderr passed through
 * unchanged), and the pre-upgrade commands (output captured for the log, each in its own process group).
 * One signal handler, installed once, forwards SIGINT, SIGTERM and SIGQUIT to whichever child is current
 * (D6 #4) — to a pre-upgrade command's whole group, SIGKILL following if it outlives the kill grace — and
 * aborts `signal`, which every long step of the pipeline listens to. Stopping the node for an upgrade:
 * SIGINT and the grace period, then SIGKILL; SIGKILL at once without a grace.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { constants } from "node:os";
import type { Socket } from "node:net";
import type { VisorLogger } from "../log.js";

const FORWARDED: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGQUIT"];

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The status a shell would report: the code, or 128 + the signal's number. */
  status: number;
  /** The process could not be started at all. */
  error?: Error;
}

export interface Running {
  proc: ChildProcess;
  /** It leads its own process group (a pre-upgrade command): signals go to the whole group. */
  group: boolean;
  exited: Promise<Exit>;
  /** Set once it has exited. */
  exit?: Exit;
  /** Captured stdout+stderr (capture mode only). */
  output(): string;
}

export const signalNumber = (s: NodeJS.Signals): number => constants.signals[s] ?? 0;

export interface SupervisorOptions {
  log: VisorLogger;
  /** The node's stdio (default: inherited — the node's output passes through unchanged). */
  stdio?: StdioOptions;
  /** Called with each started node process (tests collect its output). */
  onNode?: (proc: ChildProcess) => void;
  /** How long a pipeline command may outlive a forwarded signal before its group gets SIGKILL, default 2 s. */
  killGraceMs?: number;
}

/** Signals a child, or its whole process group; a child already gone is not an error. */
function signalChild(r: Running, s: NodeJS.Signals): void {
  try {
    if (r.group && r.proc.pid !== undefined) process.kill(-r.proc.pid, s);
    else r.proc.kill(s);
  } catch {
    /* already gone */
  }
}

const MAX_CAPTURE = 64 * 1024;

export class Supervisor {
  /** The first SIGINT/SIGTERM/SIGQUIT received (the visor then stops as soon as it safely can). */
  userSignal: NodeJS.Signals | undefined;
  private readonly abort = new AbortController();
  private current: Running | undefined;
  private waiters: ((s: NodeJS.Signals) => void)[] = [];
  private handlers = new Map<NodeJS.Signals, () => void>();

  constructor(private readonly o: SupervisorOptions) {}

  /** Installs the one process-wide handler (the CLI; in-process tests call onSignal directly). */
  install(): void {
    if (this.handlers.size > 0) return;
    for (const s of FORWARDED) {
      const h = () => this.onSignal(s);
      this.handlers.set(s, h);
      process.on(s, h);
    }
  }

  uninstall(): void {
    for (const [s, h] of this.handlers) process.off(s, h);
    this.handlers.clear();
  }

  /** Aborted by the first SIGINT/SIGTERM/SIGQUIT; its reason is an Error `interrupted by <signal>`. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** A signal for the visor: forwarded to the current child, remembered, the pipeline aborted, waiters told. */
  onSignal(s: NodeJS.Signals): void {
    this.userSignal ??= s;
    const c = this.current;
    if (c && !c.exit) {
      this.o.log.info(`received ${s}, forwarding it to the child process`, { pid: c.proc.pid });
      this.forward(c, s);
    } else {
      this.o.log.info(`received ${s}, stopping the step in progress`);
    }
    if (!this.abort.signal.aborted) this.abort.abort(new Error(`interrupted by ${s}`));
    for (const w of this.waiters.splice(0)) w(s);
  }

  /** Signals a child; a pipeline command's group gets SIGKILL if it outlives the kill grace. */
  private forward(c: Running, s: NodeJS.Signals): void {
    signalChild(c, s);
    if (!c.group) return;
    const grace = this.o.killGraceMs ?? 2000;
    const timer = setTimeout(() => {
      if (c.exit) return;
      this.o.log.info(`the child process did not exit within ${grace}ms of ${s}, killing it`, { pid: c.proc.pid });
      signalChild(c, "SIGKILL");
    }, grace);
    void c.exited.then(() => clearTimeout(timer));
  }

  /** Resolves with the signal when one arrives (at once if one already has). */
  signalled(): Promise<NodeJS.Signals> {
    if (this.userSignal) return Promise.resolve(this.userSignal);
    return new Promise((r) => this.waiters.push(r));
  }

  /**
   * Starts a child and makes it the one signals are forwarded to. A captured command (a pre-upgrade) leads its
   * own process group, so a signal reaches the processes it started too.
   */
  start(bin: string, args: readonly string[], o: { cwd?: string; capture?: boolean; node?: boolean } = {}): Running {
    return this.adopt(this.launch(bin, args, o), o.node === true);
  }

  /**
   * Starts the next node binary in standby (prestart.ts): the node's stdio, plus a pipe on fd 3 it is told of by
   * `XUPGRADE_STANDBY_FD=3`. It is not the current child — signals are not forwarded to it — until `adopt`.
   */
  standby(bin: string, args: readonly string[]): Running & { channel: Socket } {
    const base = this.o.stdio ?? "inherit";
    const stdio: StdioOptions = typeof base === "string" ? [base, base, base, "pipe"] : ([...(base as unknown[]).slice(0, 3), "pipe"] as StdioOptions);
    const r = this.launch(bin, args, { stdio, env: { ...process.env, XUPGRADE_STANDBY_FD: "3" } });
    this.o.onNode?.(r.proc); // its output is the node's from the start (adopt does not tell it again)
    return Object.assign(r, { channel: r.proc.stdio[3] as Socket });
  }

  /** Makes a started child the current one (signals are forwarded to it); a node not yet told to `onNode` is. */
  adopt<R extends Running>(running: R, node = true): R {
    if (node) this.o.onNode?.(running.proc);
    this.current = running;
    void running.exited.then(() => {
      if (this.current === running) this.current = undefined;
    });
    // A signal that arrived just before the start still reaches the new child.
    if (this.userSignal && running.proc.pid !== undefined) this.forward(running, this.userSignal);
    return running;
  }

  private launch(bin: string, args: readonly string[], o: { cwd?: string; capture?: boolean; stdio?: StdioOptions; env?: NodeJS.ProcessEnv } = {}): Running {
    let output = "";
    const group = o.capture === true;
    const proc = spawn(bin, [...args], {
      cwd: o.cwd,
      stdio: o.stdio ?? (o.capture ? ["ignore", "pipe", "pipe"] : (this.o.stdio ?? "inherit")),
      detached: group,
      env: o.env,
    });
    if (o.capture) {
      const add = (d: Buffer) => {
        output += d.toString("utf8");
        if (output.length > MAX_CAPTURE) output = output.slice(-MAX_CAPTURE);
      };
      proc.stdout?.on("data", add);
      proc.stderr?.on("data", add);
    }
    const running: Running = {
      proc,
      group,
      exited: new Promise<Exit>((resolve) => {
        let settled = false;
        const done = (exit: Exit) => {
          if (settled) return;
          settled = true;
          running.exit = exit;
          resolve(exit);
        };
        proc.on("error", (error) => {
          // Failed to start (ENOENT, EACCES…): no exit event follows.
          if (proc.pid === undefined) done({ code: null, signal: null, status: 127, error });
        });
        proc.on("close", (code, signal) => done({ code, signal, status: code ?? 128 + (signal ? signalNumber(signal) : 0) }));
      }),
      output: () => output,
    };
    return running;
  }

  /**
   * Stops the node for an upgrade (docs/spec/sidecar.md §5.3): nothing to do if it already exited; with a grace period SIGINT,
   * then SIGKILL if it outlives the grace; without one SIGKILL at once.
   */
  async stop(r: Running, graceMs: number): Promise<Exit> {
    if (r.exit) return r.exit;
    this.o.log.info("daemon shutting down in an attempt to restart");
    if (graceMs > 0) {
      r.proc.kill("SIGINT");
      this.o.log.info("sent interrupt to app, waiting for exit");
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([r.exited.then(() => true), new Promise<boolean>((res) => (timer = setTimeout(() => res(false), graceMs)))]);
      clearTimeout(timer);
      if (inTime) {
        this.o.log.info("app exited normally");
        return r.exited;
      }
      this.o.log.info("DAEMON_SHUTDOWN_GRACE exceeded, killing app");
    }
    r.proc.kill("SIGKILL");
    return r.exited;
  }
}
