/**
 * Reading answers from the person at the terminal, or from piped stdin for scripts: lines (mnemonics,
 * confirmations) and hidden lines (passphrases). Prompts go to stderr so stdout stays machine-readable.
 */
import { createInterface } from "node:readline";
import { CliError } from "./errors.js";

let piped: { lines: string[]; done: boolean; waiters: (() => void)[]; buf: string } | undefined;

/** Lines of a non-TTY stdin, read lazily and shared by every prompt of this process. */
function pipedStdin() {
  if (piped) return piped;
  const state = { lines: [] as string[], done: false, waiters: [] as (() => void)[], buf: "" };
  piped = state;
  const wake = () => state.waiters.splice(0).forEach((w) => w());
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    state.buf += chunk;
    let nl: number;
    while ((nl = state.buf.indexOf("\n")) >= 0) {
      state.lines.push(state.buf.slice(0, nl).replace(/\r$/, ""));
      state.buf = state.buf.slice(nl + 1);
    }
    wake();
  });
  process.stdin.on("end", () => {
    if (state.buf !== "") state.lines.push(state.buf.replace(/\r$/, ""));
    state.buf = "";
    state.done = true;
    wake();
  });
  process.stdin.on("error", () => {
    state.done = true;
    wake();
  });
  return state;
}

async function nextPipedLine(): Promise<string | undefined> {
  const s = pipedStdin();
  while (s.lines.length === 0 && !s.done) await new Promise<void>((r) => s.waiters.push(r));
  const line = s.lines.shift();
  if (s.lines.length === 0 && s.done) process.stdin.pause();
  return line;
}

export const isInteractive = (): boolean => Boolean(process.stdin.isTTY);

/** Asks a question; returns the answer line, or undefined at end of input. */
export async function promptLine(question: string, hidden = false): Promise<string | undefined> {
  process.stderr.write(question);
  if (!process.stdin.isTTY) {
    const line = await nextPipedLine();
    process.stderr.write("\n"); // what was piped in is not echoed: end the prompt's line
    return line;
  }
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    if (hidden) {
      // Keep the terminal from echoing what is typed.
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
        if (s.includes("\n") || s.includes("\r")) process.stderr.write("\n");
      };
    }
    let answered = false;
    rl.on("line", (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.on("SIGINT", () => {
      rl.close();
    });
    rl.on("close", () => {
      if (!answered) {
        process.stderr.write("\n");
        resolve(undefined);
      }
    });
  });
}

/** A y/N question; true only for `y` or `yes`. */
export async function confirm(question: string): Promise<boolean> {
  const answer = await promptLine(question);
  return answer !== undefined && /^(y|yes)$/i.test(answer.trim());
}

export async function requireLine(question: string, what: string, hidden = false): Promise<string> {
  const line = await promptLine(question, hidden);
  if (line === undefined) throw new CliError(`no ${what} given (end of input)`);
  return line;
}
