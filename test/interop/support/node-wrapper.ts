/**
 * Pieces of the shell wrappers that stand in for a node binary under a supervisor: the devnet of one example app,
 * run as a child so the wrapper can outlive its exit (as a halted simd stays up until its supervisor stops it).
 */
import { join } from "node:path";
import { builtCliMain } from "../../apps/cli/helpers.js";
import { ROOT } from "../../support/paths.js";

/** `s` as one single-quoted shell word. */
export const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** `xupgrade devnet start --app examples/apps/<version>` with the wrapper's own arguments. */
export function devnetStartCommand(version: string): string {
  const q = shellQuote;
  return `${q(process.execPath)} ${q(builtCliMain())} devnet start --app ${q(join(ROOT, "examples/apps", version))} "$@"`;
}

/**
 * Shell lines that run `command` as a child, pass a TERM or INT on to it and wait for it (the devnet holds its
 * store's lock until it has exited), then run `after` — where `$code` is the child's exit code and `$stop` is set
 * if a signal came — and exit with `$code`.
 */
export function childLines(command: string, after: readonly string[] = []): string[] {
  return [
    `${command} &`,
    "child=$! stop=",
    "trap 'stop=1; kill -TERM $child 2>/dev/null' TERM",
    "trap 'stop=1; kill -INT $child 2>/dev/null' INT",
    "wait $child; code=$?",
    "while kill -0 $child 2>/dev/null; do wait $child; code=$?; done",
    "trap - TERM INT",
    ...after,
    'exit "$code"',
  ];
}

/** After the child's own exit 20 (no signal), stay up until stopped, exiting 20 then: a halted simd. */
export const STAY_UP_AFTER_HALT = 'if [ "$code" = 20 ] && [ -z "$stop" ]; then trap \'exit 20\' TERM INT; while :; do sleep 0.1; done; fi';
