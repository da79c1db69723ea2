/** Small helpers of the peers bench: free ports, waiting, statistics, CPU pinning, process cleanup. */
import { type ChildProcess, spawnSync } from "node:child_process";
import { createServer } from "node:net";

export const log = (line: string): void => void process.stderr.write(`${line}\n`);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A port the kernel just handed out on 127.0.0.1 (closed again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns a value (not undefined), or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 200): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`);
    await sleep(everyMs);
  }
}

/** Linear-interpolated quantile of ascending values. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
export const p99 = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.99,
  );

/**
 * CPU pinning with taskset (util-linux): the servers get one core, the load generators the other, so a client
 * never takes CPU from the server it measures. Undefined when there is no taskset or fewer than 2 cores.
 */
export interface Pinning {
  server: string[];
  client: string[];
  note: string;
}

export function pinning(cpus: number): Pinning | undefined {
  if (cpus < 2) return undefined;
  const r = spawnSync("taskset", ["-c", "0", "true"]);
  if (r.error || r.status !== 0) return undefined;
  // The last core for the server, core 0 for the clients.
  return {
    server: ["taskset", "-c", String(cpus - 1)],
    client: ["taskset", "-c", "0"],
    note: `servers on CPU ${cpus - 1}, load generators on CPU 0 (taskset)`,
  };
}

/** Processes this bench started; killed (by pid) on exit, Ctrl-C or a crash. */
const children = new Set<ChildProcess>();
export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}
export function killTracked(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}
process.once("exit", killTracked);
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    killTracked();
    process.exit(130);
  });
}

/** Stops a child with SIGTERM (SIGKILL after `graceMs`) and waits for it. */
export async function stop(child: ChildProcess | undefined, graceMs = 5000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function getJson(url: string, timeoutMs = 2000): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}
