// What the demos (demo.mjs, demo-visor.mjs, demo-testnet.mjs) share: their output, the `xupgrade` CLI they
// drive, the processes they start, and the cleanup on every way out — success, a failed step, Ctrl-C
// (SIGINT to the process group), SIGTERM or SIGHUP to the demo alone — after which no process of theirs is
// left and their temporary directory is gone.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Quotes a command-line word for display when it needs it. */
const quote = (a) => (/[\s"{}&?]/.test(a) ? `'${a}'` : a);

/**
 * A demo's runtime. `cli` is the CLI's main.js (run with this Node); `shorten` turns a path or a text into
 * its display form (e.g. the temporary directory as $WORK), and may be replaced once the directory exists.
 */
export function demoRuntime({ cli, shorten = (s) => s }) {
  const started = Date.now();
  /** Every process started and not gone yet, with the promise of its going. */
  const children = new Map();
  let stepNo = 0;

  const rt = {
    /** Ctrl-C or SIGTERM arrived: start nothing new; the handler cleans up and exits 130. */
    interrupted: false,
    shorten,
    elapsed: () => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`,
    step: (text) => console.log(`\n[${++stepNo}] ${text}`),
    say: (text) => console.log(`  ${text}`),
    indent: (text) =>
      text
        .replace(/\n+$/, "")
        .split("\n")
        .map((l) => `    ${l}`)
        .join("\n"),

    /** Starts a process whose exit the cleanup waits for. */
    spawn(command, args, options) {
      const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
      // Gone once it exited and its output is read (its last log lines shown), or 2 s after its exit when a
      // process it started still holds its pipes.
      const gone = new Promise((resolve) => {
        let late;
        child.once("exit", () => (late = setTimeout(resolve, 2000)));
        child.once("close", () => (clearTimeout(late), resolve(undefined)));
        child.once("error", resolve);
      }).then(() => void children.delete(child));
      children.set(child, gone);
      return child;
    },

    /** Runs `xupgrade <args>`, prints the command and its output, and resolves with { code, stdout, stderr }. */
    xupgrade(args, { quiet = false, allowFail = false, env = {} } = {}) {
      if (!quiet)
        rt.say(
          `$ xupgrade ${args
            .map(quote)
            .map((a) => rt.shorten(a))
            .join(" ")}`,
        );
      return new Promise((resolve, reject) => {
        if (rt.interrupted) return reject(new Error("interrupted"));
        const child = rt.spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env } });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        child.on("error", reject);
        child.on("close", (code, signal) => {
          clearTimeout(timer);
          if (!quiet) {
            if (stdout.trim()) console.log(rt.indent(rt.shorten(stdout)));
            if (stderr.trim()) console.log(rt.indent(rt.shorten(stderr)));
          }
          if (code !== 0 && !allowFail) reject(new Error(`xupgrade ${args.slice(0, 3).join(" ")} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`));
          else resolve({ code, stdout, stderr });
        });
      });
    },

    /**
     * Starts a transaction `xupgrade <args>` (without --yes) up to its confirmation prompt: the CLI loads, reads
     * the node's chain id and the signer's account, builds the transaction and waits. `confirm()` answers `y`
     * and resolves as xupgrade() does, with the last line of stderr as the error. A transaction that must land
     * inside a window (a vote inside the voting period) then spends only its signature and broadcast in it, not
     * a CLI's start-up, which takes seconds on a busy machine.
     */
    staged(args, { allowFail = false, env = {} } = {}) {
      if (rt.interrupted) throw new Error("interrupted");
      const child = rt.spawn(process.execPath, [cli, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
      let stdout = "";
      let stderr = "";
      let atPrompt;
      const ready = new Promise((r) => (atPrompt = r));
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => {
        stderr += d;
        if (stderr.includes("[y/N]: ")) atPrompt();
      });
      child.stdin.on("error", () => {}); // a CLI that failed before its prompt has closed its stdin
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      const done = new Promise((resolve, reject) => {
        child.on("error", reject);
        child.on("close", (code, signal) => {
          clearTimeout(timer);
          atPrompt();
          const error = stderr.trim().split("\n").at(-1) ?? "";
          if (code !== 0 && !allowFail) reject(new Error(`xupgrade ${args.slice(0, 3).join(" ")} failed (${signal ?? `exit ${code}`}): ${error}`));
          else resolve({ code, stdout, stderr, error });
        });
      });
      done.catch(() => {}); // observed through confirm()
      return {
        ready,
        async confirm() {
          await ready;
          if (child.exitCode === null && child.signalCode === null) child.stdin.end("y\n");
          return done;
        },
      };
    },

    /**
     * Runs the demo: `main()`, then the cleanup, and the exit code (0, 1 after a failed step, 130 after a
     * signal). `dir()` is the temporary directory to remove (its processes are found and killed too);
     * `before()` closes what the demo serves itself.
     * @param {() => Promise<void>} main
     * @param {{ dir?: () => string, what?: string, before?: () => unknown, done?: string, graceMs?: number }} [options]
     */
    async run(main, { dir = () => "", what = "its directory", before = () => {}, done = "the temporary directory is removed", graceMs = 5000 } = {}) {
      let cleaning;
      const cleanup = () => {
        cleaning ??= (async () => {
          try {
            await before();
          } catch {
            /* best effort */
          }
          await Promise.all(
            [...children].map(([c, gone]) => {
              if (c.exitCode === null && c.signalCode === null) {
                c.kill("SIGTERM");
                setTimeout(() => c.kill("SIGKILL"), graceMs).unref();
              }
              return gone;
            }),
          );
          // A node that outlived a SIGKILLed parent (a visor, a devnet) is found by its directory.
          if (dir()) killStragglers(dir());
          if (dir()) rmSync(dir(), { recursive: true, force: true });
        })();
        return cleaning;
      };
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
        process.on(signal, () => {
          if (rt.interrupted) return;
          rt.interrupted = true;
          console.log(`\n${signal}: stopping the demo's processes and removing ${dir() || what}`);
          void cleanup().finally(() => process.exit(130));
        });
      }
      // Last resort (e.g. an uncaught error): nothing may outlive the demo.
      process.on("exit", () => {
        for (const c of children.keys()) c.kill("SIGKILL");
        if (dir()) {
          killStragglers(dir());
          rmSync(dir(), { recursive: true, force: true });
        }
      });
      try {
        await main();
        await cleanup();
        console.log(`\nDone in ${rt.elapsed().trim()}: ${done} and no process is left.`);
        process.exit(0);
      } catch (e) {
        // A step that fails just as Ctrl-C arrives (a node stopping under it) is the signal's doing: let its handler run.
        await sleep(200);
        if (rt.interrupted) await new Promise(() => {});
        console.error(`\ndemo failed after ${rt.elapsed().trim()}: ${e instanceof Error ? e.message : e}`);
        await cleanup();
        process.exit(1);
      }
    },
  };
  return rt;
}

/**
 * One JSON log line of a node (`msg`, `level` and the record's fields).
 * @typedef {Record<string, any>} LogRecord
 */

/**
 * What followJson() keeps of a child: its last records, its stderr, its exit and its waiters.
 * @typedef {object} Followed
 * @property {LogRecord[]} records
 * @property {{ test: (rec: LogRecord) => unknown, resolve: (rec: LogRecord) => void }[]} waiters
 * @property {string} stderr
 * @property {Promise<number | NodeJS.Signals | null>} exited
 * @property {(test: (rec: LogRecord) => unknown, ms: number, what: string) => Promise<LogRecord>} waitFor
 */

/**
 * Follows a child's stdout as JSON log lines: `onRecord(rec)` for each; `waitFor(test, ms, what)` resolves
 * with the first record passing `test` (seen before or later), rejects if the child exits first or after
 * `ms`. Lines that are not JSON go to `onText`.
 * @param {import("node:child_process").ChildProcessByStdio<import("node:stream").Writable | null, import("node:stream").Readable, import("node:stream").Readable>} child
 * @param {{ label: string, onRecord?: (rec: LogRecord) => void, onText?: (text: string) => void, keep?: number }} options
 * @returns {Followed}
 */
export function followJson(child, { label, onRecord = () => {}, onText = () => {}, keep = 300 }) {
  /** @type {Followed} */
  const f = {
    records: [],
    waiters: [],
    stderr: "",
    exited: new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal))),
    waitFor: (test, ms, what) =>
      new Promise((resolve, reject) => {
        const seen = f.records.find(test);
        if (seen) return resolve(seen);
        const timer = setTimeout(() => reject(new Error(`${label}: timed out after ${ms / 1000}s waiting for ${what}`)), ms);
        f.waiters.push({ test, resolve: (r) => (clearTimeout(timer), resolve(r)) });
        f.exited.then(
          (code) => (clearTimeout(timer), reject(new Error(`${label} exited (${code}) while waiting for ${what}: ${f.stderr.trim().slice(-1500)}`))),
        );
      }),
  };
  let partial = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d) => {
    const lines = (partial + d).split("\n");
    partial = lines.pop() ?? "";
    for (const text of lines) {
      let rec;
      try {
        rec = JSON.parse(text);
      } catch {
        if (text.trim()) onText(text);
        continue;
      }
      f.records.push(rec);
      if (f.records.length > keep) f.records.shift();
      onRecord(rec);
      for (const w of [...f.waiters]) {
        if (!w.test(rec)) continue;
        f.waiters.splice(f.waiters.indexOf(w), 1);
        w.resolve(rec);
      }
    }
  });
  child.stderr.on("data", (d) => (f.stderr += d));
  return f;
}

/** Resolves with a process's exit code (or signal), or rejects after `ms`. */
export function exitWithin(exited, ms, what) {
  let timer;
  return Promise.race([
    exited,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not exit within ${ms / 1000}s`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** SIGKILLs every process whose command line mentions `text` (Linux /proc; nothing elsewhere). */
export function killStragglers(text) {
  if (!existsSync("/proc")) return;
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, "utf8").includes(text)) process.kill(Number(e), "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

/** The latest height a node's RPC reports (throws with the reason when it does not answer). */
export async function rpcHeight(rpc) {
  try {
    const res = await fetch(`${rpc}/status`, { signal: AbortSignal.timeout(5000) });
    return Number((await res.json()).result.sync_info.latest_block_height);
  } catch (e) {
    const why = e instanceof Error ? (e.cause instanceof Error ? e.cause : e).message : String(e);
    throw new Error(`cannot read the height from ${rpc}: ${why}`, { cause: e });
  }
}
