#!/usr/bin/env node
// node scripts/ci.mjs [--slots N] [--only <substring>,…] [--list]
//
// What .ci/run runs once `npm ci` is done: the real peers (`npm run peers`: CometBFT, simd, cosmovisor, ghz, built
// from the Go module proxy into a cache outside the clone), the generated reference docs, then every suite and
// smoke check as jobs side by side — the tests (the CometBFT suites required), the side-by-side suites against the
// real Cosmos SDK, the halt on seven validators, the demo, the package as users install it, smoke runs of the
// benchmarks — ending with one plain line "N passed, N failed" counted from the runners' reports.
//
// Why side by side: most suites start networks and wait on their blocks (one alone keeps the 2-core machine about
// a third busy), so running them one after another left the CPU idle for most of the run. Jobs start longest first
// (the estimates below, seconds measured in a CI run), at most `--slots` at a time; jobs of one `group` never run
// together (the two fault suites keep their timing to themselves); a job that `needs` another starts after it passed.
// Each job's output goes to test-output/ci/<job>.log and is printed whole when it ends, with its time and CPU; a table closes the run.
// A job still running at four times its estimate (ten minutes at least) has hung: it is stopped and counted failed.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { relative, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, "test-output/ci");
const VITEST = join(ROOT, "node_modules/vitest/vitest.mjs");
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

const { values } = parseArgs({
  options: { slots: { type: "string", default: process.env.XUPGRADE_CI_SLOTS ?? "4" }, only: { type: "string" }, list: { type: "boolean" } },
});
const SLOTS = Number(values.slots);
if (!Number.isInteger(SLOTS) || SLOTS < 1) {
  console.error(`ci: --slots must be a whole number ≥ 1, got ${values.slots}`);
  process.exit(2);
}

/**
 * Seconds each job took in a CI run beside the others (2 cores, 4 at a time): the scheduler's order. Suites not
 * named here count as 10 s.
 */
const ESTIMATE_S = {
  units: 600,
  "faults: seven validators, transactions": 300,
  lint: 312,
  typecheck: 175,
  demo: 126,
  "bench smoke": 122,
  "bench:peers smoke": 50,
  package: 26,
  "test/e2e/cometbft/halt-faults.test.ts": 405,
  "test/e2e/cometbft/demo.test.ts": 191,
  "test/examples/light-client/verified.test.ts": 158,
  "test/e2e/cometbft/readiness.test.ts": 136,
  "test/e2e/plans.test.ts": 126,
  "test/e2e/cometbft/faults.test.ts": 116,
  "test/e2e/cometbft/lifecycle.test.ts": 68,
  "test/e2e/demo.test.ts": 56,
  "test/apps/cli/devnet.test.ts": 46,
  "test/apps/visor/demo.test.ts": 42,
  "test/apps/devnet/rehearse.test.ts": 42,
  "test/e2e/halts.test.ts": 41,
  "test/apps/devnet/node.test.ts": 30,
  "test/examples/light-client/page.test.ts": 30,
  "test/apps/devnet/rehearse-load.test.ts": 30,
  "test/apps/visor/readiness.test.ts": 25,
  "test/apps/visor/rehearse.test.ts": 17,
  "test/apps/devnet/upgrade.test.ts": 15,
  "test/apps/devnet/testnet.test.ts": 13,
  "test/apps/watch/watch.test.ts": 13,
  "test/light/cometbft.test.ts": 12,
  "test/e2e/watch-fleet.interop.ts": 182,
  "test/interop/visor-upgrade.interop.ts": 175,
  "test/interop/tx.interop.ts": 151,
  "test/interop/light-client.interop.ts": 121,
  "test/interop/sidecar-scenarios.interop.ts": 108,
  "test/interop/light-verified.interop.ts": 96,
  "test/interop/drift.interop.ts": 98, // with the live capture of simd v0.50 before it
  "test/interop/cosmovisor-devnet.interop.ts": 52,
  "test/interop/app-node.interop.ts": 33,
  "test/e2e/bank-send.interop.ts": 19,
};
const estimate = (name) => ESTIMATE_S[name] ?? 10;
/**
 * A suite this long or longer is a job of its own; the shorter ones share vitest runs of about BIN_S each (a vitest
 * run costs ~3.5 s of CPU to start).
 */
const OWN_JOB_S = 60;
const BIN_S = 200;

/** The files in runs of about BIN_S seconds each, longest first (first fit). */
function bins(files) {
  /** @type {{ files: string[], seconds: number }[]} */
  const out = [];
  for (const f of [...files].sort((a, b) => estimate(b) - estimate(a))) {
    const bin = out.find((b) => b.seconds + estimate(f) <= BIN_S);
    if (bin) {
      bin.files.push(f);
      bin.seconds += estimate(f);
    } else out.push({ files: [f], seconds: estimate(f) });
  }
  return out;
}

/**
 * @typedef {{ name: string, cmd: string[], env?: Record<string, string>, estimate: number, group?: string,
 *   needs?: string[], report?: string }} Job
 * A job: a command run from the root. `report`: a vitest JSON report whose test counts are the job's (else the job
 * counts as one check); `needs`: jobs that must have passed first; `group`: jobs that never run together.
 */

/** @returns {Job} */
const vitestJob = (name, args, seconds, extra = {}) => {
  const report = join(OUT, `${slug(name)}.json`);
  return {
    name,
    cmd: [process.execPath, VITEST, "run", "--passWithNoTests", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...args],
    estimate: seconds,
    report,
    ...extra,
  };
};
/** @returns {Job} */
const check = (name, cmd, seconds, extra = {}) => ({ name, cmd, estimate: seconds, ...extra });
/** The estimated seconds of a vitest run of `files`. */
const total = (files) => files.map(estimate).reduce((a, b) => a + b, 0);
const npmRun = (script, ...args) => ["npm", "run", "--silent", script, ...(args.length ? ["--", ...args] : [])];

/** The files a vitest project (or config) runs, relative to the root. */
function vitestFiles(args) {
  const json = execFileSync(process.execPath, [VITEST, "list", "--filesOnly", "--json", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return /** @type {{ file: string }[]} */ (JSON.parse(json)).map((f) => relative(ROOT, f.file)).sort();
}

function jobs() {
  const chains = vitestFiles(["--project", "chains"]);
  const chainsEnv = { XUPGRADE_REQUIRE_COMETBFT: "1" };
  const chainsJob = (files, name = files[0]) =>
    vitestJob(name, ["--project", "chains", "--maxWorkers", "1", ...files], total(files), {
      env: chainsEnv,
      group: files.some((f) => f.includes("halt-faults")) ? "faults" : undefined,
    });
  // Side by side with the real Cosmos SDK (docs/spec/interop.md). The comparison suites (*.test.ts) run in the units
  // jobs against the recorded fixtures; the drift check ties those fixtures to simd v0.50 as it answers now (its live
  // capture runs first, in the run holding drift.interop.ts), and appd v0.53 and v0.54's drift is left to
  // `npm run test:interop` (~4 min more). Every live-only suite runs here: transactions, the page, real upgrades
  // under the visor and cosmovisor.
  const interop = vitestFiles(["--config", "test/interop/vitest.config.ts"]).filter((f) => f.endsWith(".interop.ts"));
  const interopJob = (files, name = files[0]) =>
    vitestJob(name, ["--config", "test/interop/vitest.config.ts", ...files], total(files), {
      env: { XUPGRADE_INTEROP_LIVE_LINES: files.some((f) => f.endsWith("drift.interop.ts")) ? "simd-v050" : "none" },
    });
  const own = (f) => estimate(f) >= OWN_JOB_S;
  const together = (what, list) => bins(list.filter((f) => !own(f))).map((b, i, all) => ({ files: b.files, name: `${what} ${i + 1}/${all.length}` }));
  return [
    // One run, its files sharing one module graph (no per-file isolation, which re-imports it for each of ~100
    // files) and one start: ~50 s of CPU less than two isolated shards. Every file passes either way; `npm test`
    // keeps the isolation.
    vitestJob("units", ["--project", "node", "--project", "browser", "--maxWorkers", "1", "--no-isolate"], estimate("units")),
    ...chains.filter(own).map((f) => chainsJob([f])),
    ...together("the other network suites", chains).map((b) => chainsJob(b.files, b.name)),
    ...interop.filter(own).map((f) => interopJob([f])),
    ...together("the other interop suites", interop).map((b) => interopJob(b.files, b.name)),
    // The halt on seven validators of unequal power (the largest killed, a third partitioned, two regions under
    // visors) and transactions across the upgrade, once each; the four-validator cases run in halt-faults.test.ts.
    // (seven-visors, the regions case without their latency, is left to `npm run test:faults -- --net seven`.)
    check(
      "faults: seven validators, transactions",
      [process.execPath, "--import", "tsx", "test/e2e/cometbft/halt/run.ts", "--case", "seven-kill-largest,seven-partition,seven-regions,txs-across"],
      estimate("faults: seven validators, transactions"),
      { group: "faults" },
    ),
    // `npm run typecheck` but the package's own program, which the demo's build compiles (tsc -p tsconfig.json).
    check("typecheck", npmRun("typecheck:tests"), estimate("typecheck")),
    check("lint", npmRun("lint"), estimate("lint")),
    // The demo's `npm run build` writes dist/, which the package check and the peers' bench then only read.
    check("demo", npmRun("demo"), estimate("demo")),
    check("package", [process.execPath, "scripts/check-package.mjs"], estimate("package"), { needs: ["demo"] }),
    check("bench smoke", npmRun("bench", "--quick"), estimate("bench smoke"), { env: { BENCH_QUICK: "1" } }),
    // Without the Go peers it runs xupgrade's side alone, proving the harness still runs. It uses the demo's build.
    check("bench:peers smoke", [process.execPath, "--import", "tsx", "bench/peers/run.ts", "--quick"], estimate("bench:peers smoke"), {
      env: { BENCH_QUICK: "1" },
      needs: ["demo"],
    }),
  ];
}

function slug(name) {
  return name.replace(/^test\//, "").replace(/[^A-Za-z0-9.-]+/g, "-");
}

// ---- running ----

let passed = 0;
let failed = 0;
const started = Date.now();
const secs = (ms) => (ms / 1000).toFixed(0);

/** Runs a step before the jobs (output inline); counted as one check when `counted`. */
function step(name, cmd, counted = true) {
  const t0 = Date.now();
  let ok = true;
  try {
    execFileSync(cmd[0], cmd.slice(1), { cwd: ROOT, stdio: "inherit" });
  } catch {
    ok = false;
  }
  if (counted && ok) passed++;
  else if (counted) failed++;
  console.log(`ci: ${name} ${ok ? "ok" : "FAILED"} (${secs(Date.now() - t0)} s)`);
  return ok;
}

/** Counts a vitest JSON report; undefined when there is none. */
function countReport(file) {
  if (!existsSync(file)) return undefined;
  const r = JSON.parse(readFileSync(file, "utf8"));
  return { passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0) };
}

/**
 * A job still running after this long has hung (a network that never halts, a process that never exits): it is
 * stopped and counted as failed, with its output so far, and the run goes on to its closing line.
 */
const deadlineS = (job) => Math.max(600, 4 * job.estimate);
/** How long a stopped job's processes get between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 10_000;

/** Signals a job's whole process group (it was started detached, as its leader). */
function signalGroup(child, signal) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** @type {Set<import("node:child_process").ChildProcess>} */
const running = new Set();
let stopping = false;
function stopAll(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`ci: stopped by ${signal}`);
  for (const child of running) signalGroup(child, "SIGTERM");
  // What ignores SIGTERM (a node stuck in a syscall, a browser) is killed before the run exits.
  setTimeout(() => {
    for (const child of running) signalGroup(child, "SIGKILL");
    process.exit(130);
  }, KILL_GRACE_MS).unref();
  if (running.size === 0) process.exit(130);
}
process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));

/**
 * The jobs' environment: this one without NODE_EXTRA_CA_CERTS. Node 20 reads that file, and parses its whole root
 * store, at every start (~50 ms of CPU); the jobs start Node over and over (CLIs, nodes, npm, test workers)
 * and talk to loopback only, where their tests make their own CAs. The steps before them keep it: they may download.
 * @type {NodeJS.ProcessEnv}
 */
const JOB_ENV = { ...process.env, FORCE_COLOR: "0" };
delete JOB_ENV.NODE_EXTRA_CA_CERTS;

/** Runs one job; resolves with what it did. */
function runJob(job) {
  const log = join(OUT, `${slug(job.name)}.log`);
  const times = join(OUT, `${slug(job.name)}.time`);
  if (job.report) rmSync(job.report, { force: true });
  const argv = TIME ? [TIME, "-q", "-o", times, "-f", "%U %S", ...job.cmd] : job.cmd;
  const t0 = Date.now();
  return new Promise((resolve) => {
    const out = [];
    // Its own process group, so that a stop reaches everything it started.
    const child = spawn(argv[0], argv.slice(1), {
      cwd: ROOT,
      env: { ...JOB_ENV, ...job.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    running.add(child);
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => out.push(d));
    let timedOut = false;
    const deadline = setTimeout(
      () => {
        timedOut = true;
        out.push(Buffer.from(`\nci: ${job.name} still running after ${deadlineS(job)} s: stopped (SIGTERM, SIGKILL ${KILL_GRACE_MS / 1000} s later)\n`));
        signalGroup(child, "SIGTERM");
        setTimeout(() => signalGroup(child, "SIGKILL"), KILL_GRACE_MS).unref();
      },
      deadlineS(job) * 1000,
    );
    let ended = false;
    const done = (code) => {
      if (ended) return;
      ended = true;
      clearTimeout(deadline);
      running.delete(child);
      if (stopping) {
        if (running.size === 0) process.exit(130);
        return;
      }
      writeFileSync(log, Buffer.concat(out));
      // "%U %S" on the last line; nothing when /usr/bin/time itself was stopped.
      const cpu = existsSync(times) ? readFileSync(times, "utf8").trim().split(/\s+/).slice(-2).map(Number) : [];
      const cpuS = cpu.length === 2 && cpu.every(Number.isFinite) ? cpu[0] + cpu[1] : undefined;
      resolve({ code, timedOut, ms: Date.now() - t0, startedAt: t0 - started, cpu: cpuS, log });
    };
    child.on("error", (e) => {
      out.push(Buffer.from(`could not start: ${e.message}\n`));
      done(127);
    });
    child.on("close", (code, signal) => done(code ?? (signal ? 128 : 0)));
    // A process that left the job's group (a node started detached) and still holds its output open would keep
    // "close" from ever coming: once the job itself has exited, its output gets a few seconds more.
    child.on("exit", (code, signal) => {
      setTimeout(() => {
        if (ended) return;
        out.push(Buffer.from(`\nci: ${job.name} exited, but a process it started still holds its output: not waited for\n`));
        child.stdout?.destroy();
        child.stderr?.destroy();
        done(code ?? (signal ? 128 : 0));
      }, 15_000).unref();
    });
  });
}

/**
 * The jobs in the order they start: by their own time plus that of the jobs waiting for them (the demo's build
 * first: the package and the peers' bench run on it, one after another, and ended the run otherwise).
 */
function byPriority(all) {
  const chain = (job) => job.estimate + all.filter((j) => j.needs?.includes(job.name)).reduce((sum, j) => sum + chain(j), 0);
  return [...all].sort((a, b) => chain(b) - chain(a));
}

/** Runs the jobs, longest first, at most SLOTS at a time, honouring needs and groups. */
async function schedule(all) {
  const waiting = byPriority(all);
  const results = new Map();
  const active = new Map();
  return new Promise((resolve) => {
    const pump = () => {
      for (let i = 0; i < waiting.length && active.size < SLOTS;) {
        const job = waiting[i];
        const blockedBy = (job.needs ?? []).find((n) => !results.has(n));
        const groupBusy = job.group && [...active.values()].some((a) => a.group === job.group);
        if (blockedBy || groupBusy) {
          i++;
          continue;
        }
        waiting.splice(i, 1);
        const unmet = (job.needs ?? []).filter((n) => !results.get(n)?.ok);
        if (unmet.length > 0) {
          results.set(job.name, { ok: false, skipped: `needs ${unmet.join(", ")}` });
          failed++;
          console.log(`ci: ${job.name} FAILED (not run: ${unmet.join(", ")} failed)`);
          continue;
        }
        active.set(job.name, job);
        console.log(`ci: ▶ ${job.name}`);
        void runJob(job).then((r) => {
          active.delete(job.name);
          finish(job, r, results);
          if (waiting.length === 0 && active.size === 0) resolve(results);
          else pump();
        });
      }
      if (waiting.length === 0 && active.size === 0) resolve(results);
    };
    pump();
  });
}

function finish(job, r, results) {
  let ok = r.code === 0;
  let counts = "";
  if (job.report) {
    const c = countReport(job.report);
    if (c) {
      passed += c.passed;
      failed += c.failed;
      counts = `, ${c.passed} passed, ${c.failed} failed`;
      if (!ok && c.failed === 0) failed++; // the runner failed without a failing test
    } else {
      failed++;
      ok = false;
      counts = ", no report";
    }
  } else if (ok) {
    passed++;
  } else {
    failed++;
  }
  const cpu = r.cpu === undefined ? "" : `, CPU ${r.cpu.toFixed(0)} s`;
  const line = `${job.name}: ${ok ? "ok" : r.timedOut ? `FAILED (hung: stopped after ${deadlineS(job)} s)` : `FAILED (exit ${r.code})`} in ${secs(r.ms)} s${cpu}${counts}`;
  process.stdout.write(`\n──── ${job.name} ────\n${readFileSync(r.log, "utf8")}`);
  console.log(`ci: ${line}\n`);
  results.set(job.name, { ...r, ok, line });
}

// ---- the run ----

mkdirSync(OUT, { recursive: true });
const all = jobs();
/** The jobs `--only` names (all without it), with the jobs they need. */
const wanted = all.filter((j) => !values.only || values.only.split(",").some((s) => j.name.includes(s)));
const withNeeds = (list) => {
  const more = all.filter((j) => !list.includes(j) && list.some((w) => w.needs?.includes(j.name)));
  return more.length === 0 ? list : withNeeds([...list, ...more]);
};
const planned = withNeeds(wanted);
if (values.list) {
  for (const j of byPriority(planned)) console.log(`${String(j.estimate).padStart(4)} s  ${j.name}${j.group ? `  [${j.group}]` : ""}`);
  process.exit(0);
}

// Without Go this says exactly what to install; the suites that need the peers then fail rather than skip.
step("peers", ["npm", "run", "--silent", "peers"]);
// The reference docs are generated (npm run docs): what is committed must be what the code says. Before the
// jobs: the docs' own tests read those files.
step("docs up to date", ["sh", "-c", "npm run --silent docs && git diff --exit-code --stat -- docs/reference"]);
// The .wasm core and Chromium once, before the jobs that use them.
if (!step("the .wasm core", ["npm", "run", "--silent", "build:wasm"], false) || !step("Chromium", [process.execPath, "scripts/ensure-chromium.mjs"], false)) {
  failed++;
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(1);
}

const results = await schedule(planned);
console.log(`ci: the jobs (start, time, CPU), ${SLOTS} at a time:`);
for (const [name, r] of [...results].sort((a, b) => (a[1].startedAt ?? 0) - (b[1].startedAt ?? 0))) {
  if (r.skipped) console.log(`  ${name}: not run (${r.skipped})`);
  else
    console.log(
      `  +${secs(r.startedAt).padStart(4)} s ${secs(r.ms).padStart(4)} s ${r.cpu === undefined ? "" : `CPU ${r.cpu.toFixed(0).padStart(4)} s`}  ${r.line}`,
    );
}
console.log(`ci: ${secs(Date.now() - started)} s after npm ci`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
