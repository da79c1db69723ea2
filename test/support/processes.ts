/** Which processes are still around: the demo and visor suites check that nothing is left behind. */
import { existsSync, readFileSync, readdirSync } from "node:fs";

/** Pids of processes whose command line mentions `text` (Linux /proc; [] elsewhere). */
export function processesMentioning(text: string): number[] {
  if (!existsSync("/proc")) return [];
  const pids: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, "utf8").includes(text)) pids.push(Number(e));
    } catch {
      /* gone */
    }
  }
  return pids;
}
