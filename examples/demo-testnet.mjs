#!/usr/bin/env node
// `npm run demo:testnet`: a chain upgrade on a real network — four CometBFT validators on this machine,
// each under its own `xupgrade visor` — and, before the height, who is ready for it.
//
//   1. xupgrade devnet init --engine cometbft   four node homes (CometBFT keys and config, one genesis with
//                                               vote extensions on from the first block), free loopback
//                                               ports, the genesis keys in a test keyring
//   2. three releases of the node binary "xupgraded": wrapper scripts around
//      `xupgrade devnet start --engine cometbft --app examples/apps/v1|v2|v2-nondeterministic` (the app
//      process starts its CometBFT as a child over a unix socket)
//   3. per validator: xupgrade visor init <v1>
//   4. four `xupgrade visor run start --home <node>` with DAEMON_READINESS=true: each visor attests, in the
//      vote extensions of its validator, whether it is ready for the scheduled upgrade
//   5. xupgrade tx upgrade software-upgrade v2 --upgrade-height H, then a yes vote from every validator,
//      each through its own node's RPC; `xupgrade query upgrade readiness`: 0 %
//   6. each operator stages v2 (`xupgrade visor add-upgrade v2 <v2>`); its visor rehearses the upgrade on the
//      state every node holds for it and attests: readiness rises 25 % → 50 % → 75 %. The fourth operator
//      stages a v2 with a determinism bug: the tally shows two app-hash groups and the CLI warns, before
//      the height; the operator stages the right v2 and readiness reaches 100 %
//   7. at H every validator halts (exit 20, upgrade-info.json); every visor switches to v2, which replays
//      the halting block from CometBFT's handshake, runs the migrations once, and the chain resumes
//   8. xupgrade query upgrade applied v2 on every node; SIGTERM to the visors
// A table per validator (height, app hash, last exit code, binary) is printed at each step. Every process
// and directory is removed at the end, on Ctrl-C and on failure.
//
// Needs CometBFT v0.38: `npm run peers` builds it (or XUPGRADE_COMETBFT=<path>). The CLI is
// `node dist/apps/cli/main.js` (`npm run build`); XUPGRADE_CLI=<main.js> runs another copy.
// XUPGRADE_DEMO_BLOCK_MS (CometBFT's timeout_commit, default 300) and XUPGRADE_DEMO_VOTING_S (default 10)
// change the pace.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { missingPeerReason, peerBinaries } from "../scripts/peers/paths.mjs";
import { demoRuntime, exitWithin, followJson, rpcHeight, sleep } from "./support.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = process.env.XUPGRADE_CLI ?? join(ROOT, "dist/apps/cli/main.js");
const COMETBFT = process.env.XUPGRADE_COMETBFT ?? peerBinaries().cometbft;
const BLOCK_MS = Number(process.env.XUPGRADE_DEMO_BLOCK_MS ?? 300);
const VOTING_S = Number(process.env.XUPGRADE_DEMO_VOTING_S ?? 10);
const DEPOSIT_S = 4;
/** Time left between the vote and the height for the four operators to stage v2 (and one to fix it). */
const READY_S = Number(process.env.XUPGRADE_DEMO_READY_S ?? 90);
const VALIDATORS = 4;
const DAEMON = "xupgraded";

let work = "";
const rt = demoRuntime({ cli: CLI });
rt.shorten = (s) => (work ? s.split(work).join("$WORK") : s);
const { step, say } = rt;

// ---- the node binary ----

/** A release of the node binary: `xupgraded start --home <node>` is a CometBFT validator of one app (examples/apps/<version>). */
function nodeBinary(version) {
  const path = join(work, "release", version, DAEMON);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `# ${DAEMON} ${version}: a CometBFT validator running examples/apps/${version}`,
      'case "$1" in',
      `  pre-upgrade) echo "${DAEMON} ${version}: pre-upgrade: nothing to migrate outside the chain state"; exit 0 ;;`,
      `  version) echo "${DAEMON} ${version} (examples/apps/${version})"; exit 0 ;;`,
      `  rehearse) shift; exec '${process.execPath}' '${CLI}' devnet rehearse --app '${join(ROOT, "examples/apps", version)}' "$@" ;;`,
      "  start) shift ;;",
      "esac",
      `exec '${process.execPath}' '${CLI}' devnet start --engine cometbft --cometbft '${COMETBFT}' --app '${join(ROOT, "examples/apps", version)}' "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return path;
}

// ---- the validators, each under its visor ----

const visorEnv = (home, extra = {}) => ({
  DAEMON_HOME: home,
  DAEMON_NAME: DAEMON,
  DAEMON_POLL_INTERVAL: "200ms",
  DAEMON_SHUTDOWN_GRACE: "20s",
  COSMOVISOR_COLOR_LOGS: "false",
  ...extra,
});

/** What `visor run` adds: readiness attestations (checked every second here, asking the node's RPC), and node0's endpoint with /readiness. */
const readinessEnv = (node, index) => ({
  DAEMON_RPC_ADDRESS: node.rpc,
  DAEMON_READINESS: "true",
  DAEMON_RPC_POLL_INTERVAL: "1s",
  ...(index === 0 ? { DAEMON_HTTP_ADDRESS: "127.0.0.1:0" } : {}),
});

/** Per validator: what the table shows, from its node's JSON logs and its visor's lines. */
function startValidator(index, node) {
  const v = { index, node, name: `node${index}`, heights: new Map(), height: 0, exit: "-", binary: "", app: "", lastProgress: 0, rpc: node.rpc };
  const args = ["visor", "run", "start", "--home", node.home];
  if (index === 0) {
    say(`$ DAEMON_HOME=$WORK/testnet/node<i> DAEMON_NAME=${DAEMON} DAEMON_POLL_INTERVAL=200ms DAEMON_SHUTDOWN_GRACE=20s \\`);
    say(`    DAEMON_RPC_ADDRESS=<node<i> rpc> DAEMON_READINESS=true DAEMON_RPC_POLL_INTERVAL=1s [node0: DAEMON_HTTP_ADDRESS=127.0.0.1:0] \\`);
    say(`    xupgrade visor run start --home $WORK/testnet/node<i>      (i = 0 … ${VALIDATORS - 1})`);
  }
  const child = rt.spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...visorEnv(node.home, readinessEnv(node, index)) } });
  v.child = child;
  const line = (text) => say(`${v.name} │ ${rt.shorten(text)}`);
  v.follow = followJson(child, { label: v.name, onRecord: (rec) => record(v, rec, line) });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d) => {
    const lines = (err + d).split("\n");
    err = lines.pop() ?? "";
    for (const text of lines) visorLine(v, text, line);
  });
  v.exited = v.follow.exited;
  return v;
}

/** A node's log record: the table's facts, and the lines worth showing. */
function record(v, rec, line) {
  const m = rec.msg;
  if (m === "committed block") {
    v.height = Number(rec.height);
    v.heights.set(v.height, rec.app_hash);
    if (v.heights.size > 400) v.heights.delete(v.heights.keys().next().value);
    return;
  }
  if (m === "starting devnet") v.app = rec.app;
  if (m === "stopped") {
    v.exit = String(rec.exit_code);
    if (rec.exit_code === 20) v.halted = { ...rowOf(v), heights: new Map(v.heights) };
  }
  const everyone = ["halting the node", "upgrade applied", "store loader applied"];
  const first = v.index === 0;
  if (m === "serving") {
    v.rpc = rec.rpc;
    v.rest = rec.rest;
    if (first) line(`serving: CometBFT rpc ${rec.rpc} (pid ${rec.cometbft_pid}), rest ${rec.rest}, grpc ${rec.grpc}`);
    if (first && rec.ui) line(`light client: ${rec.ui}  (open it in a browser to watch the upgrade)`);
  } else if (m === "starting devnet" && first)
    line(`${rec.app} on ${rec.engine} ${rec.cometbft}, height ${rec.height}, upgrade handlers: ${JSON.stringify(rec.upgrade_handlers)}`);
  else if (m === "proposal tallied" && first) line(`proposal ${rec.proposal} tallied: ${rec.status} (yes ${rec.yes}, no ${rec.no})`);
  else if (m === "upgrade scheduled" && first) line(`upgrade "${rec.name}" scheduled at height ${rec.height}`);
  else if (rec.progress && first) {
    if (Date.now() - v.lastProgress < 5000) return;
    v.lastProgress = Date.now();
    line(m);
  } else if (m === "halting the node") line(`halting at height ${rec.height}: ${rec.err} (exit code ${rec.exit_code})`);
  else if (m === "upgrade applied") line(`upgrade applied at height ${rec.height}, app version ${rec.app_version}`);
  else if (everyone.some((e) => m.startsWith(e))) line(m);
  else if (
    first &&
    (["Replay last block using real app", "ABCI Replay Blocks"].includes(m) || ["x/upgrade", "app", "counter", "notes", "tags"].includes(rec.module))
  ) {
    line(m + (m === "ABCI Replay Blocks" ? ` (app ${rec.appHeight}, CometBFT's store ${rec.storeHeight})` : ""));
  } else if (m === "stopped" && first) line(`stopped at height ${rec.height}, exit code ${rec.exit_code}`);
}

/** The visor's own lines (stderr): which binary runs, and the switch. */
function visorLine(v, text, line) {
  const bin = /starting the node bin=(\S+)/.exec(text);
  if (bin) v.binary = relative(join(v.node.home, "cosmovisor"), bin[1]);
  const exited = /the node exited exit_code=(\d+)/.exec(text);
  if (exited) v.exit = exited[1];
  const endpoint = /serving the visor's endpoint at (\S+)/.exec(text);
  if (endpoint) v.readinessUrl = `${endpoint[1]}/readiness`;
  if (/readiness attestation written/.test(text)) v.attestations = (v.attestations ?? 0) + 1;
  if (!/ (INF|WRN|ERR) /.test(text)) return; // the node's own stderr
  const show =
    v.index === 0
      ? /starting the node|upgrade "v2" needed|current now points|pre-upgrade result|relaunching|rehearsal done|readiness attestation written|serving the visor's endpoint|ERR|WRN/
      : /current now points|rehearsal done|readiness attestation written|ERR|WRN/;
  if (show.test(text)) line(`visor: ${text.replace(/^\S+ /, "").replace(/ module=visor$/, "")}`);
}

/** A validator's row now, or as it was when its node halted for the upgrade. */
const rowOf = (v) => ({ name: v.name, height: v.height, heights: v.heights, exit: v.exit, binary: v.binary, app: v.app });

/** The table: per validator its last committed height, its app hash at the height all have, its last exit, its binary. */
function table(rows, title) {
  const common = Math.min(...rows.map((r) => r.height));
  const hashes = rows.map((r) => r.heights.get(common) ?? "?");
  say("");
  say(`${title}`);
  say(`  ${"validator".padEnd(10)} ${"height".padEnd(7)} ${`app hash at ${common}`.padEnd(22)} ${"exit".padEnd(5)} binary`);
  for (const [i, r] of rows.entries()) {
    const hash = hashes[i] === "?" ? "?" : `${hashes[i].slice(0, 8)}…${hashes[i].slice(-4)}`;
    say(`  ${r.name.padEnd(10)} ${String(r.height).padEnd(7)} ${hash.padEnd(22)} ${r.exit.padEnd(5)} ${r.binary || "-"}${r.app ? ` (${r.app})` : ""}`);
  }
  const same = new Set(hashes).size === 1 && hashes[0] !== "?";
  say(`  → app hashes at height ${common}: ${same ? `identical on all ${rows.length}` : "NOT identical"}`);
  if (!same) throw new Error(`the validators disagree on the app hash at height ${common}: ${hashes.join(", ")}`);
}

/** The readiness tally through the CLI (`-o json`: the REST gateway's JSON). */
async function tally(v) {
  const r = await rt.xupgrade(["query", "upgrade", "readiness", "--node", v.rpc, "-o", "json"], { quiet: true });
  return JSON.parse(r.stdout).tally;
}

/** sha256 of a file as base64 (the JSON form of bytes). */
const fileSha256 = (path) => createHash("sha256").update(readFileSync(path)).digest("base64");

/** Resolves when `test()` holds, polling; rejects after `ms`. */
async function until(test, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    if (rt.interrupted) throw new Error("interrupted");
    if (await test()) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000}s waiting for ${what}`);
    await sleep(250);
  }
}

// ---- the upgrade ----

async function main() {
  if (!COMETBFT) throw new Error(`CometBFT is not built (${missingPeerReason("cometbft")}); run \`npm run peers\` first, or set XUPGRADE_COMETBFT`);
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` first (npm run demo:testnet does)`);
  work = mkdtempSync(join(tmpdir(), "xupgrade-demo-testnet-"));
  const dir = join(work, "testnet");
  console.log(`xupgrade testnet demo: ${VALIDATORS} CometBFT validators upgrade from v1 to v2 under ${VALIDATORS} visors`);
  console.log(`CLI: node ${relative(process.cwd(), CLI) || CLI}; CometBFT: ${COMETBFT}`);
  console.log(`$WORK = ${work}`);

  step(`Create a testnet: ${VALIDATORS} CometBFT validators, a ${VOTING_S}s voting period, timeout_commit ${BLOCK_MS}ms`);
  await rt.xupgrade([
    "devnet",
    "init",
    "--engine",
    "cometbft",
    "--validators",
    String(VALIDATORS),
    "--home",
    dir,
    "--voting-period",
    `${VOTING_S}s`,
    "--deposit-period",
    `${DEPOSIT_S}s`,
    "--block-time",
    `${BLOCK_MS}ms`,
  ]);
  const nodes = JSON.parse(readFileSync(join(dir, "testnet.json"), "utf8")).nodes;
  const keyring = ["--keyring-backend", "test", "--home", dir];

  step(`Three releases of the node binary "${DAEMON}": v1, v2, and a v2 with a determinism bug, each a CometBFT validator`);
  const v1 = nodeBinary("v1");
  const v2 = nodeBinary("v2");
  const v2bad = nodeBinary("v2-nondeterministic");
  for (const p of [v1, v2, v2bad]) say(`${rt.shorten(p)}: ${readFileSync(p, "utf8").split("\n")[1].replace(/^# /, "")}`);

  step("A visor per validator, v1 as the genesis binary (nothing staged for v2 yet)");
  for (const [i, n] of nodes.entries()) {
    const env = visorEnv(n.home);
    if (i === 0) say(`$ DAEMON_HOME=$WORK/testnet/node0 DAEMON_NAME=${DAEMON} …`);
    await rt.xupgrade(["visor", "init", v1], { env, quiet: i > 0 });
  }
  say(`(the same for node1 … node${VALIDATORS - 1})`);

  step("Start the validators, each under its visor");
  const vals = nodes.map((n, i) => startValidator(i, n));
  await Promise.all(vals.map((v) => v.follow.waitFor((r) => r.msg === "serving", 120_000, "the node to serve")));
  await until(() => vals.every((v) => v.height >= 3), 60_000, "three blocks on every validator");
  table(vals.map(rowOf), "The validators:");

  // The votes for proposal 1 (the first of a fresh chain) are started first and wait at their confirmation
  // prompts (examples/support.mjs, staged), to be confirmed once the proposal is in: the voting period then
  // holds their signatures and broadcasts, not four CLI start-ups (seconds each on a busy machine).
  const ballots = vals.map((v) => rt.staged(["tx", "gov", "vote", "1", "yes", "--from", `validator${v.index}`, "--node", v.rpc, ...keyring, "-o", "json"]));
  await Promise.all(ballots.map((b) => b.ready));

  const now = await rpcHeight(vals[0].rpc);
  await sleep(3000);
  const later = await rpcHeight(vals[0].rpc);
  const blockMs = Math.max(BLOCK_MS, (3000 / Math.max(1, later - now)) | 0);
  // Far enough that a cancel proposal could still pass, 2×(voting + deposit period), with a margin, and 5 s for the
  // CLI to start on a busy machine; and after the vote, READY_S for the operators to stage v2 and their visors to
  // rehearse it.
  const H = later + Math.ceil((1.2 * 2 * (VOTING_S + DEPOSIT_S) * 1000 + READY_S * 1000) / blockMs) + Math.ceil(5000 / blockMs);
  step(
    `Propose the upgrade "v2" at height ${H} (the chain is at ${later}, a block every ~${blockMs}ms: ~${(((H - later) * blockMs) / 1000).toFixed(0)}s away)`,
  );
  const submit = await rt.xupgrade([
    "tx",
    "upgrade",
    "software-upgrade",
    "v2",
    "--title",
    "Upgrade to v2",
    "--summary",
    "Adds the tags module, renames notes to memos, migrates counter and notes",
    "--deposit",
    "10000000stake",
    "--upgrade-height",
    String(H),
    "--no-validate",
    "--from",
    "alice",
    "--node",
    vals[0].rpc,
    ...keyring,
    "--yes",
    "-o",
    "json",
  ]);
  const proposal = JSON.parse(submit.stdout).proposal_id;
  if (proposal !== "1") throw new Error(`the proposal is ${proposal}, expected 1 on a fresh chain`);

  step(`Every validator votes yes on proposal ${proposal}, each through its own node (each vote was started before it and waits at its confirmation prompt)`);
  for (const [i, r] of (await Promise.all(ballots.map((b) => b.confirm()))).entries())
    say(`$ xupgrade tx gov vote ${proposal} yes --from validator${i} --node <node${i} rpc> … → ${r.stdout.trim()}`);

  step(`The vote (${VOTING_S}s): the plan, on every node`);
  await until(
    async () =>
      (await Promise.all(vals.map((v) => rt.xupgrade(["query", "upgrade", "plan", "--node", v.rpc], { quiet: true, allowFail: true })))).every(
        (r) => r.code === 0,
      ),
    (VOTING_S + 30) * 1000,
    "the plan on every node",
  );
  await rt.xupgrade(["query", "upgrade", "plan", "--node", vals[0].rpc]);

  step("Who is ready? Each visor attests through its validator's vote extensions; nothing is staged yet");
  await until(
    async () => (await tally(vals[0])).validators.every((x) => x.status !== "READINESS_STATUS_NO_ATTESTATION"),
    60_000,
    "an attestation from every visor",
  );
  await rt.xupgrade(["query", "upgrade", "readiness", "--node", vals[0].rpc]);
  if (vals[0].rest) say(`the light-client page shows the same: ${vals[0].rest}/ui`);

  const stage = async (v, bin, { force = false, what = "v2" } = {}) => {
    const before = v.attestations ?? 0;
    await rt.xupgrade(["visor", "add-upgrade", "v2", bin, ...(force ? ["--force"] : [])], { env: visorEnv(v.node.home), quiet: v.index > 0 && !force });
    if (v.index > 0 && !force) say(`$ DAEMON_HOME=$WORK/testnet/${v.name} … xupgrade visor add-upgrade v2 ${rt.shorten(bin)}   (${what})`);
    // Its visor sees the staged binary, rehearses, attests; the next blocks carry the attestation into the tally.
    await until(() => (v.attestations ?? 0) > before, 120_000, `${v.name}'s visor to attest`);
    const sha = fileSha256(bin);
    await until(
      async () => (await tally(vals[0])).validators.find((x) => x.name === `validator${v.index}`)?.attestation?.binary_sha256 === sha,
      60_000,
      `${v.name}'s attestation in the tally`,
    );
  };

  for (const v of vals) {
    const bad = v.index === VALIDATORS - 1;
    step(
      bad
        ? `${v.name}'s operator stages a v2 built with a determinism bug; its visor rehearses it, and the rehearsal reaches another app hash`
        : `${v.name}'s operator stages v2; its visor rehearses the upgrade on the state every node holds for it, and attests`,
    );
    await stage(v, bad ? v2bad : v2, { what: bad ? "the build with the determinism bug" : "v2" });
    await rt.xupgrade(["query", "upgrade", "readiness", "--node", vals[v.index].rpc]);
  }
  const split = await tally(vals[0]);
  if (!split.app_hashes_disagree) throw new Error("the tally does not show the nondeterministic v2 as a second app-hash group");
  say(`→ two app-hash groups before the height (and the CLI warned): node${VALIDATORS - 1}'s v2 is not the v2 everyone else rehearsed`);

  step(`node${VALIDATORS - 1}'s operator replaces it with the right v2; its visor rehearses again`);
  await stage(vals[VALIDATORS - 1], v2, { force: true });
  await rt.xupgrade(["query", "upgrade", "readiness", "--node", vals[1].rpc]);
  const full = await tally(vals[0]);
  if (full.ready_power !== full.total_power || full.app_hashes_disagree)
    throw new Error(`readiness did not reach 100 % with one app hash: ${JSON.stringify(full)}`);
  if (vals[0].readinessUrl) {
    const body = await (await fetch(vals[0].readinessUrl)).json();
    say(`$ curl ${vals[0].readinessUrl}   (node0's visor, loopback only)`);
    say(
      `  ${JSON.stringify({ plan: body.plan, platform: body.platform, binary: { sha256: body.binary.sha256.slice(0, 16) + "…" }, preflight: { ok: body.preflight.ok }, rehearsal: { verdict: body.rehearsal.verdict, app_hash: body.rehearsal.app_hash.slice(0, 16) + "…", snapshot_height: body.rehearsal.snapshot_height } })}`,
    );
  }
  table(vals.map(rowOf), "The validators, waiting for the height:");

  step(`Height ${H}: every validator halts, and its visor switches it to v2`);
  await Promise.all(vals.map((v) => v.follow.waitFor((r) => r.msg === "halting the node", (H - later) * blockMs * 3 + 60_000, "the halt")));
  await until(() => vals.every((v) => v.halted), 60_000, "every node to exit");
  const infos = nodes.map((n) => readFileSync(join(n.home, "data", "upgrade-info.json"), "utf8"));
  say(`$WORK/testnet/node<i>/data/upgrade-info.json: ${infos[0]}  (${new Set(infos).size === 1 ? `the same on all ${VALIDATORS}` : "NOT the same"})`);
  table(
    vals.map((v) => v.halted),
    `The validators when they halted at ${H} (nothing of block ${H} committed):`,
  );
  await Promise.all(vals.map((v) => v.follow.waitFor((r) => r.msg === "upgrade applied", 120_000, "the upgrade to be applied")));
  await until(() => vals.every((v) => v.height >= H + 3), 120_000, `height ${H + 3} on every validator`);
  table(vals.map(rowOf), "The validators, on v2:");

  step("The applied upgrade, on every node; the module versions; the readiness v2 had when it was applied");
  for (const v of vals) {
    const r = await rt.xupgrade(["query", "upgrade", "applied", "v2", "--node", v.rpc, "-o", "json"], { quiet: true });
    say(
      `$ xupgrade query upgrade applied v2 --node <${v.name} rpc> → height ${JSON.parse(r.stdout).header.height}; current → ${readlinkSync(join(v.node.home, "cosmovisor", "current"))}`,
    );
  }
  await rt.xupgrade(["query", "upgrade", "module_versions", "--node", vals[1].rpc]);
  await rt.xupgrade(["query", "upgrade", "readiness", "v2", "--node", vals[2].rpc]);

  step("Stop: SIGTERM to every visor, forwarded to its node, which stops its CometBFT");
  for (const v of vals) v.child.kill("SIGTERM");
  const codes = await Promise.all(vals.map((v) => exitWithin(v.exited, 60_000, v.name)));
  if (codes.some((c) => c !== 0)) throw new Error(`the visors exited with ${codes.join(", ")} after SIGTERM, expected 0`);
  table(vals.map(rowOf), "The validators, stopped:");
  say(`every visor exited with code 0`);
}

await rt.run(main, { dir: () => work, what: "its directory", graceMs: 25_000 });
