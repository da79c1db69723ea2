#!/usr/bin/env node
// npm run peers [-- --only cometbft,cosmovisor] [--print] [--check]
//
// Builds the real peer programs the cross-implementation tests run against (and two optional tools: ghz, the gRPC
// load generator of `npm run bench:peers`, and our iavl-bench, cosmos/iavl for case 11 of `npm run bench`), from the
// Go module proxy, into a
// cache folder outside the clone ($XUPGRADE_PEERS_DIR, default ~/.cache/xupgrade/peers), one folder per peer and
// version. Nothing is built into the repository; the only inputs kept here are our wrapper modules'
// go.mod/go.sum under test/peers/. A peer is rebuilt only when its stamp (peer, version, hash of the recipe,
// go version) differs. Exit codes: 0 done, 1 a build failed or --check found a peer missing, 2 Go is missing or
// too old, 64 bad arguments.
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { MIN_GO, PEERS, REPO_ROOT, builtBinary, peerPaths, peersDir, recipeHash, sourceFiles } from "./peers/paths.mjs";

const USAGE = `usage: npm run peers [-- [--only ${PEERS.map((p) => p.key).join(",")}] [--print] [--check]]
  --only a,b   build (or print, or check) only these peers
  --print      print the binaries' paths as JSON (null when not built) and build nothing
  --check      build nothing; exit 0 only if every selected peer that has a recipe is built`;

function parseArgs(argv) {
  /** @type {{ only: string[] | undefined, print: boolean, check: boolean }} */
  const opts = { only: undefined, print: false, check: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--print") opts.print = true;
    else if (a === "--check") opts.check = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const v = a === "--only" ? argv[++i] : a.slice("--only=".length);
      if (!v) usage("--only needs a list");
      const only = v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      for (const k of only) if (!PEERS.some((p) => p.key === k)) usage(`unknown peer ${k}`);
      opts.only = only;
    } else if (a === "-h" || a === "--help") {
      console.log(USAGE);
      process.exit(0);
    } else usage(`unknown argument ${a}`);
  }
  return opts;
}

function usage(msg) {
  console.error(`peers: ${msg}\n${USAGE}`);
  process.exit(64);
}

const cmpVersion = (a, b) => {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

/** The local Go, or exit 2 saying what to install. */
function goVersion() {
  const install =
    `peers: Go >= ${MIN_GO} is needed to build CometBFT, simd and cosmovisor from the Go module proxy; ` +
    "install it from https://go.dev/dl/ (Debian: apt-get install golang is too old) and put `go` on PATH";
  const r = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8", env: { ...process.env, GOTOOLCHAIN: "local" } });
  if (r.error || r.status !== 0) {
    console.error(`${install}\n  (running \`go\` failed: ${r.error ? r.error.message : r.stderr.trim()})`);
    process.exit(2);
  }
  const full = r.stdout.trim(); // e.g. go1.26.8
  const m = /^go(\d+\.\d+(?:\.\d+)?)/.exec(full);
  if (!m || cmpVersion(m[1], MIN_GO) < 0) {
    console.error(`${install}\n  (found ${full || "an unknown version"})`);
    process.exit(2);
  }
  return full;
}

function goEnv(name) {
  const r = spawnSync("go", ["env", name], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : "";
}

const fmtSecs = (ms) => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`);

/**
 * Runs one `go install`, with its output to a log file; resolves to the exit code.
 * @returns {Promise<number>}
 */
function runGo(args, cwd, env, logFile, label) {
  return new Promise((resolveRun) => {
    const log = createWriteStream(logFile);
    log.write(
      `$ (cd ${cwd} && ${Object.entries(env.shown)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")} go ${args.join(" ")})\n`,
    );
    const child = spawn("go", args, { cwd, env: env.all, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const started = Date.now();
    const beat = setInterval(() => console.log(`peers:   … ${label} still building, ${fmtSecs(Date.now() - started)}`), 60_000);
    const stop = (sig) => {
      interrupted = sig;
      child.kill(sig);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    child.on("close", (code, signal) => {
      clearInterval(beat);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      log.end(() => resolveRun(code ?? (signal ? 128 : 1)));
    });
  });
}

/** Set when we were asked to stop: the build in flight is killed and nothing further starts. */
let interrupted = "";

const PROXY_TROUBLE =
  /dial tcp|no such host|i\/o timeout|connection refused|proxyconnect|TLS handshake|403 Forbidden|404 Not Found|410 Gone|not available|server response/i;

/** Explains a failed build from its log. */
function explainFailure(peer, logFile) {
  const text = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
  const lines = text.split("\n").filter((l) => l && !l.startsWith("go: downloading") && !l.startsWith("$ "));
  const tail = lines
    .slice(-15)
    .map((l) => `    ${l}`)
    .join("\n");
  if (PROXY_TROUBLE.test(text)) {
    console.error(`peers: ${peer.key}: the Go module proxy (GOPROXY=${goEnv("GOPROXY")}) could not serve a module; go said:\n${tail}`);
  } else {
    console.error(`peers: ${peer.key}: go install failed; last lines of ${logFile}:\n${tail}`);
  }
}

/** Builds one peer into its folder; returns true when its binary is in place. */
async function build(peer, goVer) {
  const { folder, bin, stamp } = peerPaths(peer);
  const recipe = /** @type {string} */ (recipeHash(peer));
  const binDir = join(folder, "bin");
  mkdirSync(binDir, { recursive: true });
  // Temp folders of builds that were killed outright (SIGKILL) are removed once they are old.
  for (const name of readdirSync(folder)) {
    const old = join(folder, name);
    if (name.startsWith(".build-") && Date.now() - statSync(old).mtimeMs > 6 * 3600_000) rmSync(old, { recursive: true, force: true });
  }
  const tmp = mkdtempSync(join(folder, ".build-"));
  const gobin = join(tmp, "bin");
  const work = join(tmp, "work");
  mkdirSync(gobin);
  mkdirSync(work);
  // The wrapper module is copied out, so the build can't rewrite the repository's go.mod/go.sum whatever GOFLAGS says.
  let args;
  if (peer.how === "module") {
    const src = join(REPO_ROOT, /** @type {string} */ (peer.moduleDir));
    copyFileSync(join(src, "go.mod"), join(work, "go.mod"));
    copyFileSync(join(src, "go.sum"), join(work, "go.sum"));
    for (const f of peer.sources ?? []) copyFileSync(join(src, f), join(work, f));
    args = ["install", "-trimpath", peer.pkg];
  } else if (peer.how === "sources") {
    // Our own program: the shared source and the line's own files (with its go.mod/go.sum) in one folder.
    for (const f of sourceFiles(peer)) copyFileSync(f.path, join(work, f.name));
    args = ["install", "-trimpath", peer.pkg];
  } else {
    args = ["install", "-trimpath", `${peer.pkg}@${peer.version}`];
  }
  const shown = {
    GOBIN: gobin,
    // -mod=readonly for wrapper modules: the committed go.sum must be complete (`go install pkg@version` takes no -mod).
    GOFLAGS: peer.how === "at-version" ? "-buildvcs=false" : "-buildvcs=false -mod=readonly",
    CGO_ENABLED: "0", // static binaries; none of these peers needs cgo (simd's ledger support would, tests don't)
    GOTOOLCHAIN: "local", // never fetch another toolchain behind the user's back
    GOWORK: "off",
  };
  const logFile = join(folder, "build.log");
  console.log(`peers: building ${peer.key} ${peer.version} (cold builds take minutes) …`);
  const started = Date.now();
  rmSync(stamp, { force: true });
  const code = await runGo(args, work, { shown, all: { ...process.env, ...shown } }, logFile, peer.key);
  const ms = Date.now() - started;
  const built = join(gobin, peer.name);
  if (interrupted) {
    rmSync(tmp, { recursive: true, force: true });
    console.error(`peers: ${interrupted}: stopped building ${peer.key}; nothing was put in place`);
    process.exit(130);
  }
  if (code !== 0 || !existsSync(built)) {
    explainFailure(peer, logFile);
    rmSync(tmp, { recursive: true, force: true });
    return false;
  }
  // Rename into place: a killed build never leaves a half-written binary at `bin`.
  renameSync(built, bin);
  rmSync(tmp, { recursive: true, force: true });
  const info = {
    peer: peer.key,
    version: peer.version,
    pkg: peer.pkg,
    how: peer.how,
    moduleDir: peer.moduleDir,
    recipe,
    go: goVer,
    env: { GOFLAGS: shown.GOFLAGS, CGO_ENABLED: shown.CGO_ENABLED },
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round(ms / 100) / 10,
    bytes: statSync(bin).size,
  };
  writeFileSync(stamp, `${JSON.stringify(info, null, 2)}\n`);
  console.log(`peers: built ${peer.key} in ${fmtSecs(ms)} (${(info.bytes / 2 ** 20).toFixed(1)} MiB)`);
  return true;
}

/** Same peer, version, recipe and go version: nothing to do. */
function upToDate(peer, goVer) {
  const bin = builtBinary(peer);
  if (!bin) return false;
  try {
    return JSON.parse(readFileSync(peerPaths(peer).stamp, "utf8")).go === goVer;
  } catch {
    return false;
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { only } = opts;
  const selected = only ? PEERS.filter((p) => only.includes(p.key)) : PEERS;
  const unavailable = selected.filter((p) => !recipeHash(p));
  const buildable = selected.filter((p) => recipeHash(p));

  if (opts.print) {
    const out = { dir: peersDir() };
    for (const p of selected) out[p.key] = builtBinary(p) ?? null;
    console.log(JSON.stringify(out, null, 2));
    return 0;
  }
  if (opts.check) {
    let ok = true;
    for (const p of buildable) {
      const bin = builtBinary(p);
      // An optional peer (a tool such as ghz) counts only when asked for by name.
      const needed = !p.optional || Boolean(opts.only);
      console.log(`peers: ${p.key.padEnd(11)} ${bin ?? (needed ? "missing" : "missing (optional)")}`);
      ok &&= Boolean(bin) || !needed;
    }
    for (const p of unavailable) console.log(`peers: ${p.key.padEnd(11)} unavailable: ${p.unavailableReason ?? `${p.moduleDir}/go.mod or go.sum is missing`}`);
    return ok && (!opts.only || unavailable.length === 0) ? 0 : 1;
  }

  const goVer = goVersion();
  const t0 = Date.now();
  let failed = 0;
  for (const p of unavailable) {
    console.log(`peers: skipping ${p.key}: ${p.unavailableReason ?? `${p.moduleDir}/go.mod or go.sum is missing`}`);
  }
  for (const p of buildable) {
    if (upToDate(p, goVer)) {
      console.log(`peers: ${p.key} ${p.version} is up to date`);
      continue;
    }
    if (!(await build(p, goVer))) {
      if (p.optional && !opts.only) console.log(`peers: ${p.key} is optional (only ${p.usedBy ?? "a benchmark"} uses it); the other peers are not affected`);
      else failed++;
    }
  }
  console.log(`peers: done in ${fmtSecs(Date.now() - t0)} (${goVer}, ${peersDir()})`);
  for (const p of selected) {
    const bin = builtBinary(p);
    console.log(`peers: ${p.key.padEnd(11)} ${bin ?? (recipeHash(p) ? "FAILED" : "unavailable")}`);
  }
  // Asking by name for a peer that can't be built here is an error; the default set just reports it.
  return failed > 0 || (opts.only && unavailable.length > 0) ? 1 : 0;
}

process.exitCode = await main();
