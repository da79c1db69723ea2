#!/usr/bin/env node
// `npm run demo`: the whole life of a chain upgrade, through the real `xupgrade` CLI and devnet processes.
//
//   1. xupgrade devnet init          4 validators, short voting/deposit periods, short block time, temp home
//   2. xupgrade devnet start         the v1 binary (examples/apps/v1), as a child process
//   3. xupgrade keys import-genesis  the genesis accounts' keys into a test keyring
//   4. xupgrade tx upgrade software-upgrade v2 --upgrade-height H --from alice
//   5. xupgrade tx gov vote 1 yes    from the validators
//   6. xupgrade query upgrade plan   while the vote and the chain go on
//   7. xupgrade devnet rehearse      the v2 binary's upgrade on a copy of the live state, before the height
//   8. the v1 node halts at H: exit code 20 and data/upgrade-info.json
//   9. xupgrade devnet start         the v2 binary (examples/apps/v2): store upgrades, migrations, the chain resumes
//  10. xupgrade query upgrade applied v2, query upgrade module_versions
//  11. stop the node and remove the home — also on Ctrl-C or a failure: no process is left behind.
//
// The CLI is `node dist/apps/cli/main.js` (built by `npm run build`); XUPGRADE_CLI=<main.js> runs another copy.
// XUPGRADE_DEMO_BLOCK_MS and XUPGRADE_DEMO_PERIOD_S change the block time and the gov periods (tests).
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { demoRuntime, exitWithin as exitOf, followJson, rpcHeight, sleep } from "./support.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = process.env.XUPGRADE_CLI ?? join(ROOT, "dist/apps/cli/main.js");
const BLOCK_MS = Number(process.env.XUPGRADE_DEMO_BLOCK_MS ?? 200);
const PERIOD_S = Number(process.env.XUPGRADE_DEMO_PERIOD_S ?? 6); // room for 4 votes on a busy 2-core machine

let home = "";
let binaryServer;
const rt = demoRuntime({ cli: CLI });
rt.shorten = (p) => (home && p.startsWith(home) ? "$HOME_DIR" + p.slice(home.length) : p);
const { step, say, xupgrade } = rt;

// ---- a devnet node ----

/** What the demo shows of a node's JSON logs (the rest stays in the node). */
function show(label, rec, node) {
  const m = rec.msg;
  const line = (text) => say(`${label} │ ${text}`);
  if (m === "serving") {
    line(`serving: rpc ${rec.rpc}, rest ${rec.rest}, grpc ${rec.grpc}`);
    if (rec.ui) line(`light client: ${rec.ui}  (open it in a browser to watch the upgrade)`);
  } else if (m === "starting devnet") line(`${rec.app}, height ${rec.height}, upgrade handlers: ${JSON.stringify(rec.upgrade_handlers)}`);
  else if (m === "proposal entered the voting period") line(`proposal ${rec.proposal} entered the voting period (ends ${rec.voting_end_time})`);
  else if (m === "proposal tallied") line(`proposal ${rec.proposal} tallied: ${rec.status} (yes ${rec.yes}, no ${rec.no})`);
  else if (m === "upgrade scheduled") line(`upgrade "${rec.name}" scheduled at height ${rec.height}`);
  else if (rec.progress) {
    if (Date.now() - node.lastProgress < 3000) return;
    node.lastProgress = Date.now();
    line(m);
  } else if (m === "upgrade applied") line(`upgrade applied at height ${rec.height}`);
  else if (rec.level === "error" || ["x/upgrade", "store", "app", "counter", "notes", "tags"].includes(rec.module)) line(m);
  else if (m === "committed block" && node.showBlocksFrom !== undefined && BigInt(rec.height) >= node.showBlocksFrom && node.shownBlocks < 3) {
    node.shownBlocks++;
    line(`committed block ${rec.height} (${rec.num_txs} txs, app hash ${rec.app_hash.slice(0, 16)}…)`);
  } else if (m === "stopped") line(`stopped at height ${rec.height}, exit code ${rec.exit_code}`);
}

/**
 * `xupgrade devnet start --app <app>` as a child process; resolves once it serves (with its RPC URL).
 * @param {string} label
 * @param {string} app
 * @param {{ showBlocksFrom?: bigint }} [options] from which height on to show three committed blocks
 */
function startNode(label, app, { showBlocksFrom } = {}) {
  say(`$ xupgrade devnet start --home $HOME_DIR --app ${relative(process.cwd(), app) || app}`);
  if (rt.interrupted) return Promise.reject(new Error("interrupted"));
  const child = rt.spawn(process.execPath, [CLI, "devnet", "start", "--home", home, "--app", app]);
  const node = { label, child, rpc: "", lastProgress: 0, shownBlocks: 0, showBlocksFrom };
  const follow = followJson(child, { label, keep: 200, onRecord: (rec) => show(label, rec, node) });
  node.exited = follow.exited.then((code) => {
    if (typeof code === "string" && !rt.interrupted) say(`${label} │ killed by ${code}`);
    return code;
  });
  node.waitFor = follow.waitFor;
  Object.defineProperty(node, "stderr", { get: () => follow.stderr });
  return node.waitFor((r) => r.msg === "serving", 30_000, "the node to serve").then((r) => ((node.rpc = r.rpc), node));
}

/** Resolves with the exit code, or rejects after `ms`. */
const exitWithin = (node, ms) => exitOf(node.exited, ms, node.label);
const height = (node) => rpcHeight(node.rpc);

// ---- a "v2 binary" for the plan info: served here, downloaded and checksum-verified by the CLI ----

async function serveBinary() {
  const body = "#!/bin/sh\necho 'xupgrade v2 (demo)'\n";
  const checksum = createHash("sha256").update(body).digest("hex");
  binaryServer = createServer((_req, res) => res.end(body));
  await new Promise((r) => binaryServer.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (binaryServer.address()).port}/xupgrade-v2?checksum=sha256:${checksum}`;
  return JSON.stringify({ binaries: { any: url } });
}

// ---- the lifecycle ----

async function main() {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` first (npm run demo does)`);
  home = mkdtempSync(join(tmpdir(), "xupgrade-demo-"));
  const period = `${PERIOD_S}s`;
  console.log(`xupgrade demo: the whole upgrade lifecycle through the CLI (node ${relative(process.cwd(), CLI) || CLI}) and devnet processes`);
  console.log(`$HOME_DIR = ${home}`);

  step(`Create a devnet: 4 validators, ${period} voting and deposit periods, a block every ${BLOCK_MS}ms, free loopback ports`);
  await xupgrade([
    "devnet",
    "init",
    "--home",
    home,
    "--validators",
    "4",
    "--voting-period",
    period,
    "--deposit-period",
    period,
    "--block-time",
    `${BLOCK_MS}ms`,
    "--rpc",
    "127.0.0.1:0",
    "--rest",
    "127.0.0.1:0",
    "--grpc",
    "127.0.0.1:0",
  ]);

  step("Start the v1 binary");
  let node = await startNode("node v1", join(ROOT, "examples/apps/v1"));
  const keys = ["--keyring-backend", "test", "--home", home];
  const tx = ["--node", node.rpc, ...keys, "--yes"];

  step("Import the genesis keys into a test keyring");
  const imported = await xupgrade(["keys", "import-genesis", ...keys, "-o", "json"], { quiet: true });
  say(`$ xupgrade keys import-genesis --keyring-backend test --home $HOME_DIR -o json   (abridged: name, address)`);
  for (const k of JSON.parse(imported.stdout)) say(`    ${k.name.padEnd(10)} ${k.address}`);

  // The validators' votes for proposal 1 (the first of a fresh chain) are started first and wait at their
  // confirmation prompts (examples/support.mjs, staged), to be confirmed once the proposal is in: the voting
  // period then holds their signatures and broadcasts, not four CLI start-ups (seconds each on a busy machine).
  const ballots = [0, 1, 2, 3].map((v) => rt.staged(["tx", "gov", "vote", "1", "yes", "--from", `validator${v}`, "--node", node.rpc, ...keys, "-o", "json"]));
  await Promise.all(ballots.map((b) => b.ready));

  // Far enough that a cancel proposal could still pass, 2×(voting + deposit period), with a margin and the
  // blocks of the 5 s the CLI may take to start and check on a busy machine (the CLI warns when it could not);
  // the vote itself passes after one voting period.
  const now = await height(node);
  const H = now + Math.ceil((1.2 * 2 * (PERIOD_S + PERIOD_S) * 1000) / BLOCK_MS) + Math.ceil(5000 / BLOCK_MS);
  step(`Propose the upgrade: "v2" at height ${H} (the chain is at ${now}, ~${(((H - now) * BLOCK_MS) / 1000).toFixed(0)}s away)`);
  const info = await serveBinary();
  const submit = await xupgrade([
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
    "--upgrade-info",
    info,
    "--from",
    "alice",
    ...tx,
    "-o",
    "json",
  ]);
  const proposal = JSON.parse(submit.stdout).proposal_id;
  if (proposal !== "1") throw new Error(`the proposal is ${proposal}, expected 1 on a fresh chain`);

  step(`The validators vote yes on proposal ${proposal} (each vote was started before it and waits at its confirmation prompt)`);
  for (const [v, r] of (await Promise.all(ballots.map((b) => b.confirm()))).entries())
    say(`$ xupgrade tx gov vote ${proposal} yes --from validator${v} … → ${r.stdout.trim()}`);

  step(`Watch the plan while the voting period (${period}) runs`);
  for (let i = 0; ; i++) {
    const r = await xupgrade(["query", "upgrade", "plan", "--node", node.rpc], { allowFail: true });
    if (r.code === 0) break;
    if (i > (PERIOD_S * 1000 + 20_000) / 1500) throw new Error("the upgrade was not scheduled");
    await sleep(1500);
  }
  const passed = JSON.parse((await xupgrade(["query", "gov", "proposal", proposal, "--node", node.rpc, "-o", "json"], { quiet: true })).stdout).proposal;
  say(`$ xupgrade query gov proposal ${proposal} → status ${passed.status}, yes ${passed.final_tally_result?.yes_count}`);

  step(`Rehearse the upgrade now, before height ${H}: the v2 binary's store upgrades, handler and migrations on a copy of the live state`);
  const v2App = join(ROOT, "examples/apps/v2");
  const rehearsal = await xupgrade(["devnet", "rehearse", "--home", home, "--app", relative(process.cwd(), v2App) || v2App]);
  if (!rehearsal.stdout.includes("the upgrade would succeed")) throw new Error("the rehearsal did not predict a successful upgrade");

  step(`Wait for height ${H}: the v1 binary has no handler for "v2", so it halts there`);
  const code = await exitWithin(node, (H - now) * BLOCK_MS * 2 + 30_000);
  if (code !== 20) throw new Error(`the v1 node exited with ${code}, expected 20 (UPGRADE NEEDED): ${node.stderr.trim()}`);
  say(`node v1 exited with code 20 (UPGRADE NEEDED)`);
  say(`$HOME_DIR/data/upgrade-info.json: ${readFileSync(join(home, "data", "upgrade-info.json"), "utf8").trim()}`);

  step("Start the v2 binary: store upgrades, the upgrade handler and its migrations, then the chain resumes");
  node = await startNode("node v2", join(ROOT, "examples/apps/v2"), { showBlocksFrom: BigInt(H) });
  await node.waitFor((r) => r.msg === "upgrade applied", 30_000, "the upgrade to be applied");
  await node.waitFor((r) => r.msg === "committed block" && BigInt(r.height) >= BigInt(H + 2), 30_000, `block ${H + 2}`);

  step("Query the applied upgrade and the module versions");
  await xupgrade(["query", "upgrade", "applied", "v2", "--node", node.rpc]);
  await xupgrade(["query", "upgrade", "module_versions", "--node", node.rpc]);
  await xupgrade(["query", "upgrade", "plan", "--node", node.rpc], { allowFail: true });

  step("Stop the node");
  node.child.kill("SIGTERM");
  const stopped = await exitWithin(node, 15_000);
  if (stopped !== 0) throw new Error(`the v2 node exited with ${stopped} on SIGTERM`);
}

// ---- cleanup: on success, failure, Ctrl-C or SIGTERM (examples/support.mjs) ----

await rt.run(main, {
  dir: () => home,
  what: "its home",
  done: "the home directory is removed",
  before: () => {
    binaryServer?.closeAllConnections?.();
    binaryServer?.close();
  },
});
