/**
 * The two pre-upgrade hooks (docs/spec/sidecar.md §6 steps 4 and 5), each in its own process group (node/child.ts).
 *
 * Custom: `$DAEMON_HOME/cosmovisor/<COSMOVISOR_CUSTOM_PREUPGRADE> <plan name> <plan height>`, cwd
 * `$DAEMON_HOME`, the name as written (not recased); any non-zero exit aborts.
 *
 * App: `<new binary> pre-upgrade --home $DAEMON_HOME`, cwd the root, run **before** the switch (D6 #8):
 * 0 ok, 1 "command does not exist" (continue), 30 abort, 31 retry up to DAEMON_PREUPGRADE_MAX_RETRIES times,
 * anything else aborts.
 */
import { chmod, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Supervisor } from "../node/child.js";
import { pathError, type Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import type { VisorPlan } from "../node/info-file.js";
import { VisorError } from "../errors.js";

export async function runCustomPreUpgrade(o: { layout: Layout; script: string; plan: VisorPlan; supervisor: Supervisor; log: VisorLogger }): Promise<void> {
  const path = join(o.layout.root, o.script);
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    const err = pathError("stat", path, e);
    err.message = `COSMOVISOR_CUSTOM_PREUPGRADE: ${o.script}: ${err.message}`;
    throw err; // err.code stays ENOENT: a not-found error
  }
  if (!st.isFile()) throw new VisorError(`COSMOVISOR_CUSTOM_PREUPGRADE: ${path} is not a regular file`);
  if ((st.mode & 0o100) === 0) {
    try {
      await chmod(path, (st.mode & 0o7777) | 0o100);
    } catch {
      throw new VisorError("COSMOVISOR_CUSTOM_PREUPGRADE could not add execute permission");
    }
  }
  o.log.info("running COSMOVISOR_CUSTOM_PREUPGRADE", { command: path, argv1: o.plan.rawName, argv2: o.plan.height });
  const r = o.supervisor.start(path, [o.plan.rawName, String(o.plan.height)], { cwd: o.layout.cfg.home, capture: true });
  const exit = await r.exited;
  o.log.info("COSMOVISOR_CUSTOM_PREUPGRADE result", { command: path, argv1: o.plan.rawName, argv2: o.plan.height, result: r.output().trimEnd() });
  if (exit.error) throw new VisorError(`COSMOVISOR_CUSTOM_PREUPGRADE: cannot run ${path}: ${exit.error.message}`);
  if (exit.status !== 0) throw new VisorError(`COSMOVISOR_CUSTOM_PREUPGRADE: ${o.script} failed: ${exitText(exit.code, exit.signal)}`);
}

/** Go's *exec.ExitError text. */
function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal: ${signal}` : `exit status ${code}`;
}

export async function runAppPreUpgrade(o: {
  layout: Layout;
  bin: string;
  maxRetries: number;
  supervisor: Supervisor;
  log: VisorLogger;
  interrupted: () => boolean;
}): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    o.log.info("running the new binary's pre-upgrade", { bin: o.bin, attempt });
    const r = o.supervisor.start(o.bin, ["pre-upgrade", "--home", o.layout.cfg.home], { cwd: o.layout.root, capture: true });
    const exit = await r.exited;
    o.log.info("pre-upgrade result", { attempt, exit_code: exit.status, result: r.output().trimEnd() });
    if (exit.error) throw new VisorError(`pre-upgrade command failed with unexpected exit code ${exit.status}: ${exit.error.message}`);
    switch (exit.code) {
      case 0:
        o.log.info("pre-upgrade successful. continuing the upgrade.");
        return;
      case 1:
        o.log.info("pre-upgrade command does not exist. continuing the upgrade.");
        return;
      case 30:
        throw new VisorError(`pre-upgrade command failed : ${exitText(exit.code, exit.signal)}`);
      case 31:
        if (attempt > o.maxRetries) throw new VisorError(`pre-upgrade command failed. reached max attempt of retries - ${o.maxRetries}`);
        if (o.interrupted()) throw new VisorError("pre-upgrade interrupted");
        o.log.error("pre-upgrade command failed. retrying", { attempt });
        continue;
      default:
        throw new VisorError(`pre-upgrade command failed with unexpected exit code ${exit.status}`);
    }
  }
}
