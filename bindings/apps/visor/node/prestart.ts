/**
 * Prestart (docs/spec/sidecar.md §5.5, project). With `DAEMON_PRESTART=true`, once the chain's scheduled plan
 * is near — the node within PRESTART_BLOCKS of its height — and its binary is staged, the visor starts that
 * binary with the node's arguments in standby: `XUPGRADE_STANDBY_FD=3` tells it to load what it can without
 * the node's home (its runtime, its code, its app), say `ready` on fd 3 and wait. At the switch the visor
 * says `go` instead of starting the binary then: the new node's boot is off the halt's critical path. A plan
 * that goes away or changes, another binary at the switch, a standby that exited, or the visor stopping: the
 * standby is dismissed — fd 3 closed, on which it ends without having touched the home.
 *
 * Only a binary that honours XUPGRADE_STANDBY_FD may be pre-started (xupgrade's devnet does): one that does
 * not would start a second node on the same home. So it is off unless the operator turns it on.
 */
import { lstat } from "node:fs/promises";
import type { Socket } from "node:net";
import type { Running, Supervisor } from "./child.js";
import { ms, type VisorConfig } from "../config/index.js";
import type { Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { chainPlan, nodeHeight } from "./node-rpc.js";
import { Poller } from "./poller.js";

/** How close to the plan's height (in blocks) the standby is started. */
const PRESTART_BLOCKS = 100n;

interface Standby {
  bin: string;
  plan: string;
  running: Running & { channel: Socket };
  ready: boolean;
}

export interface PrestartOptions {
  cfg: VisorConfig;
  layout: Layout;
  log: VisorLogger;
  supervisor: Supervisor;
  /** The node's arguments. */
  args: readonly string[];
  /** Told when a standby starts (the visor then loads the pipeline ahead of the halt). */
  onStandby?: () => void;
}

export class Prestart {
  private standby: Standby | undefined;
  private readonly poller: Poller;

  constructor(private readonly o: PrestartOptions) {
    this.poller = new Poller(ms(o.cfg.rpcPollInterval), () => this.look());
  }

  /** Looks at the chain every DAEMON_RPC_POLL_INTERVAL while the node runs. */
  start(): void {
    this.poller.start();
  }

  stop(): void {
    this.poller.stop();
  }

  /** One look at the chain (exposed for tests): start, keep or dismiss the standby. */
  tick(): Promise<void> {
    return this.poller.tick();
  }

  private async look(): Promise<void> {
    const timeoutMs = Math.min(5000, Math.max(1, ms(this.o.cfg.rpcPollInterval)));
    let plan;
    try {
      plan = await chainPlan(this.o.cfg.rpcAddress, timeoutMs);
    } catch {
      return; // the node does not answer: nothing changes
    }
    const key = plan && `${plan.name}@${plan.height}`;
    if (this.standby && this.standby.plan !== key) this.dismiss(plan ? `the scheduled plan is now ${key}` : "no plan is scheduled any more");
    if (!plan || this.standby) return;
    const height = await nodeHeight(this.o.cfg.rpcAddress, timeoutMs);
    if (height === undefined || height + PRESTART_BLOCKS < plan.height) return;
    const bin = this.o.layout.upgradeBin(plan.name);
    if (
      !(await lstat(bin).then(
        (st) => st.isFile(),
        () => false,
      ))
    )
      return;
    this.begin(bin, key!);
  }

  private begin(bin: string, plan: string): void {
    const running = this.o.supervisor.standby(bin, this.o.args);
    const standby: Standby = { bin, plan, running, ready: false };
    this.standby = standby;
    running.channel.on("error", () => undefined);
    let buffered = "";
    running.channel.on("data", (d: Buffer) => {
      buffered += d.toString("utf8");
      if (!standby.ready && buffered.split("\n").includes("ready")) {
        standby.ready = true;
        this.o.log.info("the standby is ready", { pid: running.proc.pid });
      }
    });
    void running.exited.then((exit) => {
      if (this.standby !== standby) return;
      this.standby = undefined;
      this.o.log.warn("the standby exited before the switch: the switch starts the binary as usual", { exit_code: exit.status });
    });
    this.o.log.info(`started the next binary in standby for upgrade ${plan}`, { bin, pid: running.proc.pid });
    this.o.onStandby?.();
  }

  /**
   * The standby, told to go and made the supervised node, when it runs `bin`; otherwise undefined (and a
   * standby for another binary is dismissed).
   */
  take(bin: string): Running | undefined {
    const s = this.standby;
    if (!s) return undefined;
    if (s.bin !== bin || s.running.exit) {
      this.dismiss(`the switch runs ${bin}`);
      return undefined;
    }
    this.standby = undefined;
    s.running.channel.end("go\n");
    this.o.log.info("the standby takes over", { pid: s.running.proc.pid, ready: s.ready });
    return this.o.supervisor.adopt(s.running, false);
  }

  /** Ends the standby: its fd 3 closes, and it exits without having touched the home. */
  dismiss(reason: string): void {
    const s = this.standby;
    if (!s) return;
    this.standby = undefined;
    this.o.log.info(`dismissed the standby: ${reason}`, { pid: s.running.proc.pid });
    s.running.channel.destroy();
    // One that does not end on its own (not the devnet's) is stopped.
    const timer = setTimeout(() => s.running.proc.kill("SIGKILL"), 5000);
    timer.unref();
    void s.running.exited.then(() => clearTimeout(timer));
  }
}
