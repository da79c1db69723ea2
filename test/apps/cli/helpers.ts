/** Shared pieces of the CLI suites: spawning the real `xupgrade` CLI, temporary homes, tiny local servers. */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { createRequire } from "node:module";
import { GOV_AUTHORITY as GOV } from "../../../bindings/module/authority.js";
import { httpServer } from "../../support/http.js";
import { cachedBuild, filesUnder } from "../../support/build-cache.js";
import { ROOT } from "../../support/paths.js";
import { removeTempDirs as removeDirs, tempDir } from "../../support/temp.js";

export { GOV, ROOT, httpServer, tempDir };
export const MAIN = join(ROOT, "bindings/apps/cli/main.ts");

/** The docs/spec/interfaces.md §8 test key: sha256("xupgrade test key 1"). */
export const TEST_KEY = {
  privkey: "2d02d8fa9b11503d5aec48320d745e4ef5c4ee2b1adff50da02510fc02e8cd78",
  pubkey: "03f76b4c534d43105f8a8a2f582b40f908b818a7052591ff3aaed4224c161e7cb4",
  address: "cosmos10zg9t8vm58apjhcrkwwv9jnsly3apzyp4h37v0",
};

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  input?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

/**
 * The CLI as the package ships it: bindings/ compiled to JavaScript (TypeScript's transpiler, the same
 * module layout as dist/), under node_modules/.cache so packages resolve. A Node process then starts in ~0.35 s
 * instead of ~0.9 s through tsx. The transpile costs ~7 s of CPU: it is done once per content of bindings/ and
 * shared by every test process (support/build-cache.ts). XUPGRADE_CLI_TSX=1 runs the sources through tsx instead.
 */
let built: string | undefined;
function builtMain(): string {
  if (built) return built;
  const bindings = join(ROOT, "bindings");
  const sources = filesUnder(bindings, (name) => name.endsWith(".ts") && !name.endsWith(".d.ts"));
  const pkg = join(ROOT, "package.json");
  const dir = cachedBuild("xupgrade-cli-test", [pkg, ...sources], "dist/apps/cli/main.js", (out) => {
    const ts = require_typescript();
    for (const file of sources) {
      const js = ts.transpileModule(readFileSync(file, "utf8"), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
        fileName: file,
      }).outputText;
      const target = join(out, "dist", relative(bindings, file)).replace(/\.ts$/, ".js");
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, js);
    }
    const { version } = JSON.parse(readFileSync(pkg, "utf8")) as { version: string };
    writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module", version }));
  });
  built = join(dir, "dist/apps/cli/main.js");
  return built;
}

function require_typescript(): typeof import("typescript") {
  return createRequire(import.meta.url)("typescript") as typeof import("typescript");
}

/** The `node` arguments that start the real CLI (see builtMain): `[...cliArgs(), "query", …]`. */
export function cliArgs(): string[] {
  return process.env.XUPGRADE_CLI_TSX === "1" ? ["--import", "tsx", MAIN] : [builtMain()];
}

/** The transpiled CLI entry (a main.js, as `dist/apps/cli/main.js` is for the package). */
export function builtCliMain(): string {
  return builtMain();
}

/** Runs the real CLI (see builtMain) with `args` and collects its output. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const entry = cliArgs();
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, XUPGRADE_KEYRING_PASSPHRASE: undefined, DAEMON_NAME: undefined, ...opts.env };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const child = spawn(process.execPath, [...entry, ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

export interface StagedCli {
  /** Resolves once the CLI waits at its confirmation prompt (or has exited). */
  ready: Promise<void>;
  /** Answers `y` and resolves with the result. */
  confirm(): Promise<CliResult>;
  /** Answers `n` (the CLI exits 1, "canceled transaction") and resolves with the result. */
  cancel(): Promise<CliResult>;
}

/**
 * Starts a transaction (`args` without -y) up to its confirmation prompt: the CLI loads, reads the node's chain
 * id and the signer's account, builds the transaction and waits. On a busy 2-core machine a CLI takes seconds
 * to start; a transaction that must land inside a window (a vote inside the voting period) is staged before the
 * window opens, so only its signature and broadcast fall inside it.
 */
export function stageCli(args: string[], opts: CliOptions = {}): StagedCli {
  const env: Record<string, string | undefined> = { ...process.env, XUPGRADE_KEYRING_PASSPHRASE: undefined, DAEMON_NAME: undefined, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const child = spawn(process.execPath, [...cliArgs(), ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let atPrompt!: () => void;
  const ready = new Promise<void>((r) => (atPrompt = r));
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    if (stderr.includes("[y/N]: ")) atPrompt();
  });
  child.stdin.on("error", () => {}); // a CLI that failed before its prompt has closed its stdin
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      atPrompt();
      resolve({ code, stdout, stderr });
    });
  });
  const answer = async (line: string) => {
    await ready;
    if (child.exitCode === null && child.signalCode === null) child.stdin.end(line);
    return done;
  };
  return { ready, confirm: () => answer("y\n"), cancel: () => answer("n\n") };
}

/** Runs many CLI invocations with bounded parallelism (each is a Node process). */
export async function runAll<T>(items: T[], fn: (item: T) => Promise<void>, parallel = 3): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** Removes the suite's temporary directories. */
export function removeTempDirs(): void {
  removeDirs();
}

/** Asserts the CLI failed with exactly one `Error: …` line (and nothing on stdout). */
export function errorLine(r: CliResult): string {
  // Prompts (answered from stdin) may stand before the error.
  const lines = r.stderr.split("\n").filter((l) => l !== "" && !/^(> Enter your bip39 mnemonic|Enter keyring passphrase.*: |Enter hex private key: )$/.test(l));
  if (r.code !== 1 || lines.length !== 1 || !lines[0].startsWith("Error: ") || r.stdout !== "") {
    throw new Error(`expected one error line and exit 1, got exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  }
  return lines[0].slice("Error: ".length);
}
