#!/usr/bin/env node
// `npm run demo:visor`: a hands-off chain upgrade under `xupgrade visor`, the sidecar.
//
//   1. xupgrade devnet init            4 validators, short gov periods and blocks, free loopback ports
//   2. two "binaries" of the node      small wrapper scripts around `xupgrade devnet start --app examples/apps/v1|v2`;
//                                      v2 is packaged as xupgraded-v2.tar.gz (bin/xupgraded) and served on 127.0.0.1
//   3. xupgrade visor init <v1>        the layout under $DAEMON_HOME/cosmovisor, current → genesis
//   4. xupgrade visor run --home …     the visor starts the v1 node and watches data/upgrade-info.json
//   5. xupgrade tx upgrade software-upgrade v2 with Plan.Info {"binaries":{"<os>/<arch>":"http://…tar.gz?checksum=sha256:…"}}
//      and the validators' votes
//   6. xupgrade visor show-upgrade-info   the pre-flight check: the plan, the URL, ready: yes (with --rehearse: the
//                                        downloaded v2 binary rehearses the upgrade on a copy of the node's state)
//   7. at the height the v1 node halts (exit 20); the visor backs up data/, downloads and verifies the
//      tarball, unpacks it, runs `xupgraded pre-upgrade`, switches `current` and starts v2, which applies
//      the upgrade; the chain resumes
//   8. xupgrade query upgrade applied v2, readlink current, the backup
//   9. SIGTERM to the visor: forwarded to the node, both exit 0; every process and temporary directory is
//      removed — also on Ctrl-C or a failure.
//
// The CLI is `node dist/apps/cli/main.js` (built by `npm run build`); XUPGRADE_CLI=<main.js> runs another copy.
// XUPGRADE_DEMO_BLOCK_MS and XUPGRADE_DEMO_VOTING_S change the block time and the voting period (the
// validators' four votes must land within it, also on a busy machine; the deposit period is 2 s).
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as tar from "tar";
import { demoRuntime, rpcHeight as height, sleep } from "./support.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = process.env.XUPGRADE_CLI ?? join(ROOT, "dist/apps/cli/main.js");
const BLOCK_MS = Number(process.env.XUPGRADE_DEMO_BLOCK_MS ?? 200);
const VOTING_S = Number(process.env.XUPGRADE_DEMO_VOTING_S ?? 6);
const DEPOSIT_S = 2;
const DAEMON = "xupgraded";

let work = ""; // the temporary root: node/ (DAEMON_HOME) and release/
let home = "";
let server;
const rt = demoRuntime({ cli: CLI });
rt.shorten = (s) => (work ? s.split(home).join("$DAEMON_HOME").split(work).join("$WORK") : s);
const { step, say, xupgrade } = rt;
const short = (s) => rt.shorten(s);

// ---- the two node "binaries" ----

/** A wrapper script standing in for a chain binary: the devnet node with one app version. */
function nodeBinary(version) {
  return [
    "#!/bin/sh",
    `# ${DAEMON} ${version}: the xupgrade devnet node running examples/apps/${version}`,
    'case "$1" in',
    `  pre-upgrade) echo "${DAEMON} ${version}: pre-upgrade: nothing to migrate outside the chain state"; exit 0 ;;`,
    `  version) echo "${DAEMON} ${version} (examples/apps/${version})"; exit 0 ;;`,
    // `xupgrade visor show-upgrade-info --rehearse` runs `<binary> rehearse --home … -o json` (docs/spec/rehearse.md §5).
    `  rehearse) shift; exec '${process.execPath}' '${CLI}' devnet rehearse --app '${join(ROOT, "examples/apps", version)}' "$@" ;;`,
    "esac",
    `exec '${process.execPath}' '${CLI}' devnet start --app '${join(ROOT, "examples/apps", version)}' "$@"`,
    "",
  ].join("\n");
}

async function makeRelease() {
  const release = join(work, "release");
  mkdirSync(join(release, "v1"), { recursive: true });
  writeFileSync(join(release, "v1", DAEMON), nodeBinary("v1"), { mode: 0o755 });
  const v2 = join(release, "v2");
  mkdirSync(join(v2, "bin"), { recursive: true });
  writeFileSync(join(v2, "bin", DAEMON), nodeBinary("v2"), { mode: 0o755 });
  chmodSync(join(v2, "bin", DAEMON), 0o755);
  writeFileSync(join(v2, "README"), `${DAEMON} v2 — handles the "v2" upgrade\n`);
  const tarball = join(release, `${DAEMON}-v2.tar.gz`);
  await tar.c({ file: tarball, cwd: v2, gzip: true, portable: true }, ["bin", "README"]);
  const bytes = readFileSync(tarball);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  server = createServer((req, res) => {
    if (req.url?.split("?")[0] !== `/${DAEMON}-v2.tar.gz`) {
      res.writeHead(404);
      return res.end("not found");
    }
    res.writeHead(200, { "content-type": "application/gzip", "content-length": bytes.length });
    res.end(bytes);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}/${DAEMON}-v2.tar.gz?checksum=sha256:${sha256}`;
  return { v1: join(release, "v1", DAEMON), url, size: bytes.length };
}

// ---- the visor and the node it runs ----

const goos = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform] ?? process.platform;
const goarch = { x64: "amd64", arm64: "arm64", ia32: "386", arm: "arm" }[process.arch] ?? process.arch;

const visorEnv = () => ({
  DAEMON_HOME: home,
  DAEMON_NAME: DAEMON,
  DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
  DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
  DAEMON_SHUTDOWN_GRACE: "10s",
  DAEMON_POLL_INTERVAL: "200ms",
  COSMOVISOR_COLOR_LOGS: "false",
});

/** What the demo shows of the node's JSON logs (through the visor's stdout) and the visor's own lines. */
function showNode(rec, v) {
  const m = rec.msg;
  const line = (text) => say(`node ${v.app} │ ${text}`);
  if (m === "starting devnet") line(`${rec.app}, height ${rec.height}, upgrade handlers: ${JSON.stringify(rec.upgrade_handlers)}`);
  else if (m === "serving") line(`serving: rpc ${rec.rpc}`);
  else if (m === "proposal tallied") line(`proposal ${rec.proposal} tallied: ${rec.status}`);
  else if (m === "upgrade scheduled") line(`upgrade "${rec.name}" scheduled at height ${rec.height}`);
  else if (rec.progress) {
    if (Date.now() - v.lastProgress < 4000) return;
    v.lastProgress = Date.now();
    line(m);
  } else if (m === "upgrade applied") line(`upgrade applied at height ${rec.height}`);
  else if (rec.level === "error" || ["x/upgrade", "store", "app", "counter", "notes", "tags"].includes(rec.module)) line(m);
  else if (m === "committed block" && v.app === "v2" && v.shownBlocks < 3) {
    v.shownBlocks++;
    line(`committed block ${rec.height} (app hash ${rec.app_hash.slice(0, 16)}…)`);
  } else if (m === "stopped") line(`stopped at height ${rec.height}, exit code ${rec.exit_code}`);
}

function startVisor() {
  const args = ["visor", "run", "--home", home];
  say(`$ DAEMON_HOME=$DAEMON_HOME DAEMON_NAME=${DAEMON} DAEMON_ALLOW_DOWNLOAD_BINARIES=true DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=true \\`);
  say(`    DAEMON_SHUTDOWN_GRACE=10s DAEMON_POLL_INTERVAL=200ms xupgrade ${args.map(short).join(" ")}`);
  const child = rt.spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...visorEnv() } });
  /** @type {import("./support.mjs").LogRecord[]} */
  const records = [];
  /** @type {string[]} */
  const visorLines = [];
  /** The pending waitFor()s: each checks its test and, once it passes, settles and says so. */
  /** @type {(() => boolean)[]} */
  const waiters = [];
  const v = { child, app: "v1", rpc: "", lastProgress: 0, shownBlocks: 0, records, visorLines, waiters, stderr: "" };
  /** @type {Promise<number | NodeJS.Signals | null>} */
  v.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
  const notify = () => {
    for (const w of [...v.waiters]) if (w()) v.waiters.splice(v.waiters.indexOf(w), 1);
  };
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d) => {
    const lines = (out + d).split("\n");
    out = lines.pop() ?? "";
    for (const text of lines) {
      let rec;
      try {
        rec = JSON.parse(text);
      } catch {
        continue;
      }
      v.records.push(rec);
      if (v.records.length > 300) v.records.shift();
      if (rec.msg === "serving") v.rpc = rec.rpc;
      showNode(rec, v);
    }
    notify();
  });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d) => {
    const lines = (err + d).split("\n");
    err = lines.pop() ?? "";
    for (const text of lines) {
      if (text.trim() === "") continue;
      v.visorLines.push(text);
      const started = /starting the node bin=\S*\/upgrades\/([^/]+)\//.exec(text);
      if (started) v.app = started[1];
      if (/ (INF|WRN|ERR) /.test(text)) say(`visor   │ ${short(text.replace(/ module=visor$/, ""))}`);
      else v.stderr += text + "\n"; // the node's own stderr
    }
    notify();
  });
  /**
   * Resolves when `test()` returns something truthy; rejects if the visor exits first or after `ms`.
   * @template T
   * @param {() => T | undefined} test
   * @param {number} ms
   * @param {string} what
   * @returns {Promise<T>}
   */
  v.waitFor = (test, ms, what) =>
    new Promise((resolve, reject) => {
      const hit = test();
      if (hit) return resolve(hit);
      const timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000}s waiting for ${what}`)), ms);
      v.waiters.push(() => {
        const later = test();
        if (!later) return false;
        clearTimeout(timer);
        resolve(later);
        return true;
      });
      v.exited.then((code) => (clearTimeout(timer), reject(new Error(`the visor exited (${code}) while waiting for ${what}: ${v.stderr.trim()}`))));
    });
  v.record = (test) => () => v.records.find(test);
  v.logged = (re) => () => v.visorLines.find((l) => re.test(l));
  return v;
}

// ---- the upgrade ----

async function main() {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` first (npm run demo:visor does)`);
  work = mkdtempSync(join(tmpdir(), "xupgrade-demo-visor-"));
  home = join(work, "node");
  console.log(`xupgrade visor demo: a hands-off upgrade of a devnet node under the sidecar (CLI: node ${relative(process.cwd(), CLI) || CLI})`);
  console.log(`$WORK = ${work}`);
  console.log(`$DAEMON_HOME = $WORK/node`);

  step(`Create a devnet in $DAEMON_HOME: 4 validators, a ${VOTING_S}s voting period, a block every ${BLOCK_MS}ms`);
  await xupgrade([
    "devnet",
    "init",
    "--home",
    home,
    "--validators",
    "4",
    "--voting-period",
    `${VOTING_S}s`,
    "--deposit-period",
    `${DEPOSIT_S}s`,
    "--block-time",
    `${BLOCK_MS}ms`,
    "--rpc",
    "127.0.0.1:0",
    "--rest",
    "127.0.0.1:0",
    "--grpc",
    "127.0.0.1:0",
  ]);
  await xupgrade(["keys", "import-genesis", "--keyring-backend", "test", "--home", home], { quiet: true });

  step(`Two releases of the node binary "${DAEMON}": v1 as a file, v2 as a tarball on a local HTTP server`);
  const rel = await makeRelease();
  say(`$WORK/release/v1/${DAEMON}: ${readFileSync(rel.v1, "utf8").split("\n")[1]}`);
  say(`${DAEMON}-v2.tar.gz (${rel.size} bytes: bin/${DAEMON}, README) at ${rel.url}`);

  step("Set up the visor with the v1 binary as genesis");
  await xupgrade(["visor", "init", rel.v1], { env: visorEnv() });

  step("Start the node under the visor");
  const v = startVisor();
  await v.waitFor(
    v.record((r) => r.msg === "serving"),
    30_000,
    "the node to serve",
  );
  const rpc1 = v.rpc;
  const tx = ["--node", rpc1, "--keyring-backend", "test", "--home", home, "--yes"];

  // The validators' votes for proposal 1 (the first of a fresh chain) are started first and wait at their
  // confirmation prompts (examples/support.mjs, staged), to be confirmed once the proposal is in: the voting
  // period then holds their signatures and broadcasts, not four CLI start-ups (seconds each on a busy machine).
  const ballots = [0, 1, 2, 3].map((n) =>
    rt.staged(["tx", "gov", "vote", "1", "yes", "--from", `validator${n}`, "--node", rpc1, "--keyring-backend", "test", "--home", home, "-o", "json"], {
      allowFail: true,
    }),
  );
  await Promise.all(ballots.map((b) => b.ready));

  // The CLI checks the upgrade height against the block time it measures over the last 19 blocks: let there be 20.
  for (let i = 0; (await height(rpc1)) < 21 && i < 100; i++) await sleep(200);
  const now = await height(rpc1);
  // Far enough that a cancel proposal could still pass (the CLI warns otherwise): 2 × (deposit + voting period),
  // a margin, and the blocks of the 5 s the CLI may take to start and check on a busy machine.
  const H = now + Math.ceil((1.2 * 2 * (DEPOSIT_S + VOTING_S) * 1000) / BLOCK_MS) + Math.ceil(5000 / BLOCK_MS);
  const info = JSON.stringify({ binaries: { [`${goos}/${goarch}`]: rel.url } });
  step(
    `Propose the upgrade "v2" at height ${H} (the chain is at ${now}, ~${(((H - now) * BLOCK_MS) / 1000).toFixed(0)}s away), its Plan.Info naming the tarball and its sha256`,
  );
  const submit = await xupgrade([
    "tx",
    "upgrade",
    "software-upgrade",
    "v2",
    "--title",
    "Upgrade to v2",
    "--summary",
    "Adds the tags module, renames notes to memos",
    "--deposit",
    "10000000stake",
    "--upgrade-height",
    String(H),
    "--upgrade-info",
    info,
    "--daemon-name",
    DAEMON,
    "--from",
    "alice",
    ...tx,
    "-o",
    "json",
  ]);
  const proposal = JSON.parse(submit.stdout).proposal_id;
  if (proposal !== "1") throw new Error(`the proposal is ${proposal}, expected 1 on a fresh chain`);
  // Three of the four validators are a majority; a vote landing after the tally is reported, not fatal.
  for (const [n, r] of (await Promise.all(ballots.map((b) => b.confirm()))).entries())
    say(`$ xupgrade tx gov vote ${proposal} yes --from validator${n} … → ${(r.code === 0 ? r.stdout : r.error).trim()}`);

  step(`Wait for the vote (${VOTING_S}s), then the pre-flight check an operator runs before the height`);
  for (let i = 0; ; i++) {
    const r = await xupgrade(["query", "upgrade", "plan", "--node", rpc1, "-o", "json"], { quiet: true, allowFail: true });
    if (r.code === 0) break;
    if (i > VOTING_S + 20) throw new Error("the upgrade was not scheduled");
    await sleep(1000);
  }
  await xupgrade(["visor", "show-upgrade-info"], { env: { ...visorEnv(), DAEMON_RPC_ADDRESS: rpc1 } });
  // The same, with the downloaded v2 binary rehearsing the upgrade on a copy of the node's state.
  await xupgrade(["visor", "show-upgrade-info", "--rehearse"], { env: { ...visorEnv(), DAEMON_RPC_ADDRESS: rpc1 } });

  step(`Hands off: at height ${H} the v1 node halts, and the visor does the rest`);
  const applied = await v.waitFor(
    v.record((r) => r.msg === "upgrade applied"),
    (H - now) * BLOCK_MS * 2 + 60_000,
    "the upgrade to be applied",
  );
  await v.waitFor(
    v.record((r) => r.msg === "committed block" && BigInt(r.height) >= BigInt(applied.height) + 2n),
    30_000,
    "the chain to resume",
  );
  const rpc2 = v.rpc;

  step("Check: the applied upgrade, the current link, the backup");
  await xupgrade(["query", "upgrade", "applied", "v2", "--node", rpc2]);
  say(`$ readlink $DAEMON_HOME/cosmovisor/current`);
  say(`    ${readlinkSync(join(home, "cosmovisor", "current"))}`);
  say(`$ ls $DAEMON_HOME/cosmovisor/upgrades/v2 $DAEMON_HOME`);
  say(`    ${readdirSync(join(home, "cosmovisor", "upgrades", "v2")).join("  ")}`);
  say(`    ${readdirSync(home).join("  ")}`);

  step("Stop: SIGTERM to the visor is forwarded to the node");
  v.child.kill("SIGTERM");
  const code = await Promise.race([v.exited, sleep(20_000).then(() => "timeout")]);
  if (code !== 0) throw new Error(`the visor exited with ${code} after SIGTERM, expected 0`);
  say("the visor exited with code 0");
}

// ---- cleanup: on success, failure, Ctrl-C or SIGTERM (examples/support.mjs) ----

await rt.run(main, {
  dir: () => work,
  what: "its directory",
  graceMs: 8000,
  before: () => {
    server?.closeAllConnections?.();
    server?.close();
  },
});
