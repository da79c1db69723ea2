/** An example demo script run as a user runs it, and the check that it left nothing behind. */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "./paths.js";
import { processesMentioning } from "./processes.js";
import { waitUntil } from "./wait.js";

export interface Demo {
  pid: number;
  /** stdout and stderr interleaved as they arrived. */
  output: () => string;
  /** The exit code, or the signal that ended it. */
  exited: Promise<number | string>;
}

/** `examples/<script>` in its own process group (as a terminal runs it), with `env` over this process's. */
export function runDemo(script: string, env: Record<string, string>): Demo {
  const child = spawn(process.execPath, [join(ROOT, "examples", script)], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal ?? -1)));
  return { pid: child.pid!, output: () => out, exited };
}

/** The directory the demo printed as `$<variable> = <dir>`, if it has. */
export function demoDir(out: string, variable: string): string | undefined {
  return new RegExp(`^\\$${variable} = (.+)$`, "m").exec(out)?.[1];
}

/**
 * Nothing of the demo is left: the directory it printed as `$<variable> = <dir>` (named like `prefix`) is gone,
 * and within `timeoutMs` no process mentions it (a child's exit is reported before it is reaped).
 */
export async function expectDemoLeftNothing(out: string, variable: string, prefix: RegExp, timeoutMs: number): Promise<void> {
  const dir = demoDir(out, variable);
  expect(dir, out).toMatch(prefix);
  expect(existsSync(dir!)).toBe(false);
  await waitUntil(() => processesMentioning(dir!).length === 0, timeoutMs, "no process of the demo");
}
