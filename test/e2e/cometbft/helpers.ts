/**
 * The CometBFT suites: testnets of real `cometbft` processes (the binary `npm run peers` builds), each node
 * a real `xupgrade devnet start --engine cometbft` process (the transpiled CLI, as test/e2e does), on
 * loopback ports `devnet init --engine cometbft` picks. Without the binary the suites are skipped with the
 * reason; `npm run test:cometbft` sets XUPGRADE_REQUIRE_COMETBFT=1, and then a missing binary fails them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, type TestOptions } from "vitest";
import { missingPeerReason, peerBinaries } from "../../../scripts/peers/paths.mjs";
import type { TestnetNode } from "../../../bindings/apps/devnet/index.js";
import { cliArgs, stageCli } from "../../apps/cli/helpers.js";
import { nextProposalId, spawnLogged, type DevnetChild, type LogRecord } from "../../apps/devnet/helpers.js";
import { waitUntil } from "../../support/wait.js";
import { ok, runCli, tempDir } from "../helpers.js";

export { ok, runCli, tempDir, waitUntil };

/** The CometBFT binary, or undefined (then MISSING says why). */
export const COMETBFT = peerBinaries().cometbft;
export const MISSING = COMETBFT ? "" : (missingPeerReason("cometbft") ?? "CometBFT is not built: run `npm run peers`");

/** `describe` for a suite that needs CometBFT: skipped (with the reason in its name) unless required. */
export function describeCometbft(name: string, options: TestOptions, fn: () => void): void {
  if (COMETBFT) return void describe(name, options, fn);
  if (process.env.XUPGRADE_REQUIRE_COMETBFT === "1") {
    return void describe(name, () =>
      it("needs the CometBFT binary", () => {
        throw new Error(`XUPGRADE_REQUIRE_COMETBFT=1 but ${MISSING}`);
      }),
    );
  }
  console.warn(`skipping "${name}": ${MISSING}`);
  describe.skip(`${name} (skipped: ${MISSING})`, fn);
}

/** A node of testnet.json, as `devnet init --engine cometbft` writes it. */
export type TestnetNodeInfo = TestnetNode;

export interface Testnet {
  dir: string;
  nodes: TestnetNodeInfo[];
  /** `--keyring-backend test --home <dir>`: the genesis keys `devnet init --engine cometbft` imported. */
  keyring: string[];
}

/** `xupgrade devnet init --engine cometbft` with the given periods and timeout_commit. */
export async function initTestnet(o: { validators?: number; votingS: number; depositS: number; blockMs?: number }): Promise<Testnet> {
  const dir = tempDir("xupgrade-testnet-");
  ok(
    await runCli([
      "devnet",
      "init",
      "--engine",
      "cometbft",
      "--home",
      dir,
      "--validators",
      String(o.validators ?? 4),
      "--voting-period",
      `${o.votingS}s`,
      "--deposit-period",
      `${o.depositS}s`,
      "--block-time",
      `${o.blockMs ?? 300}ms`,
    ]),
  );
  const described = JSON.parse(readFileSync(join(dir, "testnet.json"), "utf8")) as { nodes: TestnetNodeInfo[] };
  return { dir, nodes: described.nodes, keyring: ["--keyring-backend", "test", "--home", dir] };
}

const running = new Set<DevnetChild>();

/** SIGKILLs every node process still running (their CometBFT children then stop by themselves). */
export async function killNodes(): Promise<void> {
  await Promise.all([...running].map((n) => n.kill()));
  running.clear();
}

export interface Validator extends DevnetChild {
  node: TestnetNodeInfo;
  /** The REST URL from the `serving` record (once it serves). */
  rest: string;
}

/** `xupgrade devnet start --engine cometbft --home <node> --app <app>` as a child process, without waiting. */
export function spawnValidator(node: TestnetNodeInfo, app: string, o: { args?: string[]; env?: Record<string, string> } = {}): Validator {
  const child = spawnLogged(
    [...cliArgs(), "devnet", "start", "--engine", "cometbft", "--cometbft", COMETBFT!, "--home", node.home, "--app", app, ...(o.args ?? [])],
    o.env,
  );
  running.add(child);
  void child.exited.then(() => running.delete(child));
  return Object.assign(child, { node, rest: "" });
}

/** Starts a validator and waits until it serves (CometBFT's RPC answers). */
export async function startValidator(node: TestnetNodeInfo, app: string, o: { args?: string[]; env?: Record<string, string> } = {}): Promise<Validator> {
  const v = spawnValidator(node, app, o);
  const s = await v.waitFor((r) => r.msg === "serving", 90_000);
  v.rest = s.rest as string;
  return v;
}

/** The exit code (or signal) of a process, failing after `ms`. */
export function exitWithin(child: { exited: Promise<number | string>; stderr(): string }, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no exit within ${ms} ms; stderr: ${child.stderr().slice(-2000)}`)), ms);
  });
  return Promise.race([child.exited, timeout]).finally(() => clearTimeout(timer));
}

// ---- CometBFT's RPC ----

/** What the helpers read of CometBFT's `block` answer. */
export interface RpcBlock {
  block_id: { hash: string };
  block: { header: { time: string } };
}

export async function rpc<T>(url: string, method: string, params: Record<string, string> = {}): Promise<T> {
  const q = new URLSearchParams(params).toString();
  const res = await fetch(`${url}/${method}${q ? `?${q}` : ""}`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { result?: T; error?: { data?: string; message?: string } };
  if (!body.result) throw new Error(`${method} at ${url}: ${body.error?.data ?? body.error?.message ?? res.status}`);
  return body.result;
}

/** The latest block height CometBFT reports, or undefined when its RPC does not answer. */
export async function rpcHeight(url: string): Promise<number | undefined> {
  try {
    return Number((await rpc<{ sync_info: { latest_block_height: string } }>(url, "status")).sync_info.latest_block_height);
  } catch {
    return undefined;
  }
}

/**
 * What a node says about block `h`: its hash, and the app hash after it (block_results). CometBFT stores a block,
 * and reports it as its latest, before it has executed it: the results of the latest block may come a moment later.
 */
export async function blockFacts(url: string, h: number): Promise<{ hash: string; appHashAfter: string }> {
  const resultsOf = () =>
    waitUntil<{ app_hash: string }>(
      async () => {
        try {
          return await rpc<{ app_hash: string }>(url, "block_results", { height: String(h) });
        } catch (err) {
          if (/could not find results for height/.test(String(err))) return false;
          throw err;
        }
      },
      30_000,
      `the results of block ${h} at ${url}`,
    );
  const [block, results] = await Promise.all([rpc<RpcBlock>(url, "block", { height: String(h) }), resultsOf()]);
  // block_results has the app hash in base64 (bytes); the app logs it in uppercase hex, as block headers show hashes.
  return { hash: block.block_id.hash, appHashAfter: Buffer.from(results.app_hash, "base64").toString("hex").toUpperCase() };
}

/** Waits until every URL reports at least height `h`. */
export function allAt(urls: string[], h: number, timeoutMs = 90_000): Promise<true> {
  return waitUntil(
    async () => (await Promise.all(urls.map(rpcHeight))).every((x) => x !== undefined && x >= h),
    timeoutMs,
    `height ${h} on ${urls.length} nodes`,
  );
}

/** Records of a node's log with this message. */
export const records = (child: { records: LogRecord[] }, msg: string) => child.records.filter((r) => r.msg === msg);

export { cliArgs };
export type { LogRecord };

// ---- governance through the CLI ----

/**
 * Ms per block: the median interval between the headers' times of the last `n` blocks, from block 3 on. Block 2's
 * time is block 1's commit, and the first intervals wait on the validators finding each other (seconds, not the
 * chain's pace): a mean that included them scheduled upgrades before their vote could end.
 */
export async function blockMs(url: string, n = 10): Promise<number> {
  const top = (await rpcHeight(url))!;
  const from = Math.max(3, top - n);
  if (top <= from) return 1000;
  const time = async (h: number) => Date.parse((await rpc<RpcBlock>(url, "block", { height: String(h) })).block.header.time);
  const times = await Promise.all(Array.from({ length: top - from + 1 }, (_, i) => time(from + i)));
  const gaps = times
    .slice(1)
    .map((x, i) => x - times[i])
    .sort((x, y) => x - y);
  return Math.max(50, gaps[Math.floor(gaps.length / 2)]);
}

/**
 * `tx upgrade software-upgrade <name> --upgrade-height <h>` from alice through the first node, then a yes vote
 * from every validator through its own node. Returns the proposal id.
 */
export async function proposeUpgrade(net: Testnet, name: string, height: number, extra: string[] = []): Promise<string> {
  const via = (i: number) => ["--node", net.nodes[i].rpc, ...net.keyring, "-o", "json"];
  // The votes are staged before the proposal exists (stageCli): the voting period holds their broadcasts only.
  const id = String(await nextProposalId(net.nodes[0].rpc));
  const ballots = net.nodes.map((_, i) => stageCli(["tx", "gov", "vote", id, "yes", "--from", `validator${i}`, ...via(i)]));
  try {
    await Promise.all(ballots.map((b) => b.ready)); // idle at their prompts: the submission does not compete with their start-ups
    const submit = ok(
      await runCli([
        "tx",
        "upgrade",
        "software-upgrade",
        name,
        "--title",
        `Upgrade to ${name}`,
        "--summary",
        "s",
        "--deposit",
        "10000000stake",
        "--upgrade-height",
        String(height),
        "--no-validate",
        "--from",
        "alice",
        ...extra,
        ...via(0),
        "-y",
      ]),
    );
    const submitted = (JSON.parse(submit.stdout) as { proposal_id: string }).proposal_id;
    if (submitted !== id) throw new Error(`the proposal got id ${submitted}, the votes were staged for ${id}`);
  } catch (e) {
    await Promise.all(ballots.map((b) => b.cancel()));
    throw e;
  }
  for (const r of await Promise.all(ballots.map((b) => b.confirm()))) ok(r);
  return id;
}

/** `query upgrade plan -o json` against one node: the plan, or undefined for `no upgrade scheduled`. */
export async function planOf(url: string): Promise<{ name: string; height: string } | undefined> {
  const r = await runCli(["query", "upgrade", "plan", "-o", "json", "--node", url]);
  if (r.code === 1 && r.stderr === "Error: no upgrade scheduled\n") return undefined;
  return JSON.parse(ok(r).stdout) as { name: string; height: string };
}

/** Is a process (by pid) still alive? */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
