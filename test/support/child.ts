/**
 * A child process whose stdout is read line by line: tests wait for a line (or a parsed record), read
 * what it wrote to stderr, and SIGKILL it. Every suite that spawns a program of the project uses this.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { ROOT } from "./paths.js";

export interface CollectedChild<R> {
  proc: ChildProcess;
  /** Every stdout line so far, parsed. */
  records: R[];
  /** What the child wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the first record matching `test`; rejects if the child exits first or on timeout. */
  waitFor(test: (r: R) => boolean, timeoutMs?: number): Promise<R>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  /** SIGKILL (if still running) and wait for the process to be gone. */
  kill(): Promise<void>;
}

export interface SpawnOptions<R> {
  env?: Record<string, string>;
  cwd?: string;
  /** Turns a stdout line into a record (default: the line itself). Blank lines are skipped. */
  parse?: (line: string) => R;
  /** Echo each line to the test's console with this tag. */
  echo?: string;
}

/** `node <args>` (or `command` when it is not "node"), collected line by line. */
export function spawnCollected<R = string>(command: string, args: string[], o: SpawnOptions<R> = {}): CollectedChild<R> {
  const proc = spawn(command === "node" ? process.execPath : command, args, {
    cwd: o.cwd ?? ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...o.env },
  });
  const parse = o.parse ?? ((line: string) => line as unknown as R);
  const records: R[] = [];
  const waiters: { test: (r: R) => boolean; resolve: (r: R) => void; reject: (e: Error) => void }[] = [];
  let stderr = "";
  let partial = "";
  proc.stderr.on("data", (d) => (stderr += d));
  proc.stdout.on("data", (d) => {
    const parts = (partial + d).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      if (line.trim() === "") continue;
      const rec = parse(line);
      records.push(rec);
      if (o.echo !== undefined) console.log(o.echo, line);
      for (const w of [...waiters]) {
        if (w.test(rec)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(rec);
        }
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => proc.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  void exited.then((code) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${code}) before the expected line; stderr: ${stderr}`));
  });
  return {
    proc,
    records,
    stderr: () => stderr,
    exited,
    waitFor: (test, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const seen = records.find(test);
        if (seen !== undefined) return resolve(seen);
        if (proc.exitCode !== null || proc.signalCode !== null) return reject(new Error(`child already exited: ${stderr}`));
        const timer = setTimeout(() => reject(new Error(`timed out waiting for a line; stderr: ${stderr}`)), timeoutMs);
        waiters.push({
          test,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
      }),
    kill: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}
