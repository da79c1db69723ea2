/** The timed cases, as groups run side by side (each group: the same measurement on every implementation). */
import type { Backend } from "../bindings/core/contract.js";
import { batchCodecs } from "./cases/codecs.js";
import { newSession } from "./cases/instantiate.js";
import { doneLookups, preBlockApply, preBlockApplyWithHistory, preBlockNothingDue, scheduleAndGet } from "./cases/keeper.js";
import { loaderVsBindings } from "./cases/loader.js";
import { planCodecs } from "./cases/protobuf.js";
import { ics23Proofs } from "./cases/ics23.js";
import { type TaskResult, fmtNs, runGroup } from "./harness.js";

/**
 * Runs every group for the given backends. In a child process (one backend) the comparison libraries
 * and the loader are left out: they are compared side by side in the main process.
 */
export async function runSuite(backends: readonly Backend[], log: (line: string) => void): Promise<TaskResult[]> {
  const both = backends.length > 1;
  const makers = [
    () => preBlockNothingDue(backends),
    () => preBlockApply(backends),
    () => preBlockApplyWithHistory(backends),
    () => scheduleAndGet(backends),
    () => doneLookups(backends),
    () => batchCodecs(backends),
    () => planCodecs(backends, both),
    () => newSession(backends),
    () => ics23Proofs(backends, both),
    ...(both ? [() => loaderVsBindings()] : []),
  ];
  const results: TaskResult[] = [];
  for (const make of makers) {
    // Built per maker, so the large fixtures (100,000 done records) are dropped once their group ran.
    for (const group of await make()) {
      const rs = await runGroup(group);
      results.push(...rs);
      log(`  [${rs[0].case}] ${rs[0].id}: ${rs.map((r) => `${r.impl} ${fmtNs(r.median)}`).join(", ")}`);
    }
  }
  return results;
}
