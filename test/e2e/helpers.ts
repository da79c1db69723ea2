/**
 * The end-to-end suites drive the real `xupgrade` CLI (spawned as test/apps/cli/helpers.ts does, from a
 * transpiled copy) against real `xupgrade devnet start` processes (their JSON logs collected as
 * test/apps/devnet/helpers.ts does) on free loopback ports (`--rpc 127.0.0.1:0`, … written by `devnet init`).
 */
import { cliArgs, runCli, stageCli, tempDir, type CliResult } from "../apps/cli/helpers.js";
import { nextProposalId, spawnLogged, waitUntil, type DevnetChild } from "../apps/devnet/helpers.js";

export { committedState, clients, fixtureApp, V1, V2 } from "../apps/devnet/helpers.js";
export { builtCliMain, errorLine, removeTempDirs, runCli, tempDir } from "../apps/cli/helpers.js";

/** Gov periods and block time of the e2e devnets: votes by CLI processes must land within the voting period (passProposal stages them). */
export const PERIOD_S = 6;
export const BLOCK_MS = 100;
/**
 * The wall time one passProposal and the plan queries after it may take: the voting period and 12 s for the CLI
 * processes around it (staged votes, the submission, `query upgrade plan`), which take seconds each on a busy
 * 2-core machine (11 s in all was seen where 6 s had been allowed). Heights that must stay ahead of proposals are
 * this far away, in blocks of BLOCK_MS.
 */
export const PROPOSAL_S = PERIOD_S + 12;

export const keyring = (home: string) => ["--keyring-backend", "test", "--home", home];

/** Throws with the CLI's output unless it exited 0. */
export function ok(r: CliResult): CliResult {
  if (r.code !== 0) throw new Error(`CLI exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** `xupgrade devnet init` (4 validators, short periods, free ports) and `keys import-genesis` into a test keyring. */
export async function initHome(): Promise<string> {
  const home = tempDir("xupgrade-e2e-");
  const period = `${PERIOD_S}s`;
  ok(
    await runCli([
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
    ]),
  );
  ok(await runCli(["keys", "import-genesis", ...keyring(home)]));
  return home;
}

export interface Node extends DevnetChild {
  home: string;
  rpc: string;
  rest: string;
  grpc: string;
}

const running = new Set<DevnetChild>();

/** Every node still running is SIGKILLed (afterEach/afterAll). */
export async function killNodes(): Promise<void> {
  await Promise.all([...running].map((n) => n.kill()));
  running.clear();
}

/** `xupgrade devnet start --home <home> --app <app> [args]` as a child process, without waiting. */
export function spawnNode(home: string, app: string, o: { args?: string[]; env?: Record<string, string> } = {}): DevnetChild {
  const child = spawnLogged([...cliArgs(), "devnet", "start", "--home", home, "--app", app, ...(o.args ?? [])], o.env);
  running.add(child);
  void child.exited.then(() => running.delete(child));
  return child;
}

/** `xupgrade devnet start …`, resolved once it serves (its RPC, REST and gRPC addresses from the `serving` log). */
export async function startNode(home: string, app: string, o: { args?: string[]; env?: Record<string, string> } = {}): Promise<Node> {
  const child = spawnNode(home, app, o);
  const s = await child.waitFor((r) => r.msg === "serving", 30_000);
  return Object.assign(child, { home, rpc: s.rpc as string, rest: s.rest as string, grpc: s.grpc as string });
}

/** The exit code (or signal) of a node, failing after `ms`. */
export function exitWithin(child: DevnetChild, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the node did not exit within ${ms} ms; stderr: ${child.stderr()}`)), ms);
  });
  return Promise.race([child.exited, timeout]).finally(() => clearTimeout(timer));
}

/** SIGTERM, then the exit code (0: a clean stop). */
export async function stopNode(child: DevnetChild): Promise<number | string> {
  child.proc.kill("SIGTERM");
  return exitWithin(child, 15_000);
}

/** The CLI against a node: `xupgrade <args> --node <rpc>`. */
export const cli = (node: Node, args: string[]) => runCli([...args, "--node", node.rpc]);

export async function height(node: Node): Promise<number> {
  const res = await fetch(`${node.rpc}/status`);
  return Number(((await res.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
}

/**
 * Submits a proposal with `tx upgrade <args> --from alice` and votes yes from validators 0–2; returns its id. The
 * votes are staged before the proposal exists (stageCli), so the voting period holds their broadcasts, not
 * three CLI start-ups.
 */
export async function passProposal(node: Node, args: string[]): Promise<string> {
  const id = String(await nextProposalId(node.rpc));
  const ballots = [0, 1, 2].map((v) =>
    stageCli(["tx", "gov", "vote", id, "yes", "--from", `validator${v}`, ...keyring(node.home), "--node", node.rpc, "-o", "json"]),
  );
  try {
    await Promise.all(ballots.map((b) => b.ready)); // idle at their prompts: the submission does not compete with their start-ups
    const submit = ok(
      await cli(node, [
        "tx",
        "upgrade",
        ...args,
        "--title",
        "t",
        "--summary",
        "s",
        "--deposit",
        "10000000stake",
        "--from",
        "alice",
        ...keyring(node.home),
        "-y",
        "-o",
        "json",
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

export interface PlanJson {
  name: string;
  height: string;
  info: string;
}

/** `query upgrade plan -o json`: the plan, or undefined for `no upgrade scheduled` (exit 1). */
export async function queryPlan(node: Node): Promise<PlanJson | undefined> {
  const r = await cli(node, ["query", "upgrade", "plan", "-o", "json"]);
  if (r.code === 1 && r.stderr === "Error: no upgrade scheduled\n") return undefined;
  return JSON.parse(ok(r).stdout) as PlanJson;
}

/** Polls `query upgrade plan` until `test` holds (the vote passes within one voting period). */
export function waitForPlan(node: Node, test: (p: PlanJson | undefined) => boolean, what: string): Promise<PlanJson | undefined> {
  return waitUntil(
    async () => {
      const p = await queryPlan(node);
      return test(p) ? { p } : undefined;
    },
    (PERIOD_S + 20) * 1000,
    what,
  ).then((r) => r.p);
}

/** Resolves once the node has committed `h` (from its logs). */
export function committedHeight(node: DevnetChild, h: number, timeoutMs = 30_000) {
  return node.waitFor((r) => r.msg === "committed block" && Number(r.height) >= h, timeoutMs);
}

export { processesMentioning } from "../support/processes.js";
