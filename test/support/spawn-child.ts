/** Runs store-child.ts in a real child process and lets a test wait for its output and SIGKILL it. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../store/fixtures/store-child.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

export interface Child {
  proc: ChildProcess;
  /** Resolves with the first stdout line matching `test`; rejects if the child exits first. */
  waitFor(test: (line: string) => boolean): Promise<string>;
  /** Every stdout line so far. */
  lines: string[];
  /** SIGKILL and wait for the process to be gone. */
  kill(): Promise<void>;
}

export function startChild(mode: string, dbPath: string): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", script, mode, dbPath], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { test: (l: string) => boolean; resolve: (l: string) => void; reject: (e: Error) => void }[] = [];
  let stderr = "";
  let partial = "";
  proc.stderr!.on("data", (d) => (stderr += d));
  proc.stdout!.on("data", (d) => {
    const parts = (partial + d).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  proc.on("exit", (code, signal) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${code ?? signal}) early: ${stderr}`));
  });
  return {
    proc,
    lines,
    waitFor: (test) =>
      new Promise((resolve, reject) => {
        const seen = lines.find(test);
        if (seen !== undefined) return resolve(seen);
        if (proc.exitCode !== null || proc.signalCode !== null) return reject(new Error(`child already exited: ${stderr}`));
        waiters.push({ test, resolve, reject });
      }),
    kill: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}
