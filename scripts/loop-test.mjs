#!/usr/bin/env node
// Runs one test file again and again, one run at a time, to find tests that can fail a correct run.
//
//   node scripts/loop-test.mjs <test file>… [--runs N] [--project node] [-t pattern] [--config file] [--stop] [-- <vitest args>]
//
//   --runs N       how many runs (default 20)
//   --project P    the vitest project (default node; ignored with --config)
//   -t pattern     only the tests whose name matches
//   --config file  another vitest config; a *.interop.ts file (or anything under test/interop/) uses
//                  test/interop/vitest.config.ts, as `npm run test:interop` does, with the peers of `npm run peers`
//   --stop         stop at the first failing run
//
// Each run is a fresh vitest process. A line per run says pass/FAIL, its duration, its test counts (a run
// whose tests were all skipped is reported as such: it proves nothing) and its slowest test; the output of a failing run is kept
// in test-output/loop/<file>/run-<n>.log with vitest's JSON report beside it, and the last line is
// `<passed>/<N> passed`. Exit 0 when every run passed. The interop suites' live simd capture (their global
// setup) is made by the first run and reused by the others (XUPGRADE_INTEROP_REUSE=1).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VITEST = join(ROOT, "node_modules/vitest/vitest.mjs");
const INTEROP_CONFIG = "test/interop/vitest.config.ts";

function usage(message) {
  if (message) console.error(`loop-test: ${message}`);
  console.error("usage: node scripts/loop-test.mjs <test file>… [--runs N] [--project node] [-t pattern] [--config file] [--stop] [-- <vitest args>]");
  process.exit(2);
}

function parseArgs(argv) {
  /** @type {{ files: string[], runs: number, project: string, pattern: string | undefined, config: string | undefined, stop: boolean, extra: string[] }} */
  const o = { files: [], runs: 20, project: "node", pattern: undefined, config: undefined, stop: false, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === "--") {
      o.extra = argv.slice(i + 1);
      break;
    } else if (a === "--runs" || a === "-n") {
      o.runs = Number(value());
      if (!Number.isInteger(o.runs) || o.runs < 1) usage("--runs must be a positive integer");
    } else if (a === "--project") o.project = value();
    else if (a === "-t" || a === "--testNamePattern") o.pattern = value();
    else if (a === "--config") o.config = value();
    else if (a === "--stop") o.stop = true;
    else if (a === "-h" || a === "--help") usage();
    else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else o.files.push(a);
  }
  if (o.files.length === 0) usage("name a test file");
  for (const f of o.files) if (!existsSync(resolve(ROOT, f))) usage(`${f} does not exist`);
  o.files = o.files.map((f) => relative(ROOT, resolve(ROOT, f)));
  if (!o.config && o.files.some((f) => f.startsWith("test/interop/") || f.endsWith(".interop.ts"))) o.config = INTEROP_CONFIG;
  return o;
}

const o = parseArgs(process.argv.slice(2));
const slug =
  o.files.map((f) => basename(f).replace(/\.(test|interop)\.ts$|\.ts$/, "")).join("+") +
  (o.pattern ? `-t-${o.pattern.replace(/[^\w.-]+/g, "_").slice(0, 40)}` : "");
const outDir = join(ROOT, "test-output/loop", slug);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

// The tests load the .wasm core from a generated module, as `npm test` builds it first.
if (!existsSync(join(ROOT, "bindings/core/wasm/bytes.generated.ts"))) {
  console.log("loop-test: building the .wasm core first (npm run build:wasm)");
  const r = spawnSync("npm", ["run", "--silent", "build:wasm"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) process.exit(1);
}

/** One vitest run: resolves with its exit code, duration, output and JSON report (when vitest wrote one). */
function runOnce(n) {
  const json = join(outDir, `run-${n}.json`);
  const args = [VITEST, "run", ...(o.config ? ["--config", o.config] : ["--project", o.project]), ...o.files];
  if (o.pattern) args.push("-t", o.pattern);
  args.push("--reporter=default", "--reporter=json", `--outputFile.json=${json}`, ...o.extra);
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" };
  if (o.config === INTEROP_CONFIG && n > 1 && existsSync(join(ROOT, "test-output/interop/simd-live.json"))) env.XUPGRADE_INTEROP_REUSE = "1";
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    // Ctrl-C reaches vitest through the process group; wait for it and stop looping.
    child.on("close", (code, signal) => {
      let report;
      try {
        report = JSON.parse(readFileSync(json, "utf8"));
      } catch {
        report = undefined;
      }
      done({ code: code ?? 128, signal, ms: Date.now() - started, output, report, json });
    });
  });
}

let interrupted = false;
for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => (interrupted = true));

const cmd = `vitest run ${o.config ? `--config ${o.config}` : `--project ${o.project}`} ${o.files.join(" ")}${o.pattern ? ` -t '${o.pattern}'` : ""}${o.extra.length ? ` ${o.extra.join(" ")}` : ""}`;
console.log(`loop-test: ${o.runs} runs of ${cmd}`);
const results = [];
for (let n = 1; n <= o.runs && !interrupted; n++) {
  const r = await runOnce(n);
  const t = r.report;
  const counts = t
    ? { passed: t.numPassedTests, failed: t.numFailedTests, skipped: t.numPendingTests + (t.numTodoTests ?? 0), errors: t.numRuntimeErrorTestSuites ?? 0 }
    : undefined;
  const allSkipped = counts && counts.passed === 0 && counts.failed === 0;
  const ok = r.code === 0 && counts !== undefined && counts.failed === 0 && counts.errors === 0 && !allSkipped;
  results.push({ n, ok, ms: r.ms });
  let line = `run ${String(n).padStart(String(o.runs).length)}/${o.runs}  ${ok ? "pass" : "FAIL"}  ${(r.ms / 1000).toFixed(1).padStart(6)} s`;
  if (counts)
    line += `  (${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ""}${counts.errors ? `, ${counts.errors} file errors` : ""})`;
  else line += `  (no report: vitest exited ${r.signal ?? r.code})`;
  if (allSkipped) line += "  every test skipped";
  // The slowest test, to see one creeping up on its timeout.
  const slowest = (t?.testResults ?? []).flatMap((f) => f.assertionResults).reduce((a, b) => ((b.duration ?? 0) > (a?.duration ?? 0) ? b : a), undefined);
  if (slowest?.duration) line += `  slowest ${(slowest.duration / 1000).toFixed(1)} s: ${slowest.title.slice(0, 60)}`;
  if (ok) rmSync(r.json, { force: true });
  else {
    const log = join(outDir, `run-${n}.log`);
    writeFileSync(log, r.output);
    const failing = (t?.testResults ?? []).flatMap((f) => f.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName));
    line += `  → ${relative(ROOT, log)}`;
    for (const name of failing) line += `\n    ✗ ${name}`;
  }
  console.log(line);
  if (!ok && o.stop) break;
}

const passed = results.filter((r) => r.ok).length;
const secs = results.map((r) => r.ms / 1000).sort((a, b) => a - b);
if (secs.length > 0) {
  const median = secs[Math.floor((secs.length - 1) / 2)];
  console.log(`durations: min ${secs[0].toFixed(1)} s, median ${median.toFixed(1)} s, max ${secs[secs.length - 1].toFixed(1)} s`);
}
if (passed === results.length) rmSync(outDir, { recursive: true, force: true });
console.log(`${passed}/${results.length} passed${results.length < o.runs ? ` (stopped after ${results.length} of ${o.runs} runs)` : ""}`);
process.exit(passed === o.runs ? 0 : 1);
