/**
 * A CometBFT testnet for the halt fault suite — four equal validators, or more with the voting powers a case
 * gives (written into the shared genesis, so the gov tally and consensus both use them):
 * `xupgrade devnet init --engine cometbft`, every
 * p2p link through the fault proxy (each node's `persistent_peers` rewritten to its own links), real
 * `xupgrade devnet start --engine cometbft` processes (or sidecars running them), the upgrade proposed and
 * voted with cosmjs-signed transactions, each validator voting through its own node. Everything a run starts
 * is stopped and removed by `close()`, whatever happened.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Plan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import { join } from "node:path";
import { cliArgs, runCli } from "../../../apps/cli/helpers.js";
import { blockMs } from "../helpers.js";
import { builtPage } from "../../../examples/light-client/helpers.js";
import {
  clients,
  signTx,
  spawnLogged,
  submitProposalAny,
  softwareUpgradeAny,
  voteAny,
  type DevnetChild,
  type LogRecord,
} from "../../../apps/devnet/helpers.js";
import { FaultProxy } from "../../../support/fault-proxy.js";
import { ROOT } from "../../../support/paths.js";
import { processesMentioning } from "../../../support/processes.js";
import { rng } from "../../../support/random.js";
import { tempDir } from "../../../support/temp.js";
import { waitUntil } from "../../../support/wait.js";
import type { GenesisKey } from "../../../../bindings/apps/devnet/index.js";

export const V1 = join(ROOT, "examples/apps/v1");
export const V2 = join(ROOT, "examples/apps/v2");

/** CometBFT's timeout_commit for the suite: short blocks keep a case short. */
export const BLOCK_MS = 200;
/** The gov voting and deposit periods (the votes are cosmjs transactions, sent at once). */
export const VOTING_S = 4;
/** How long a halted node waits for its peers at most: longer than any case keeps one away. */
export const HALT_GRACE = "3m";

export interface NetNode {
  index: number;
  name: string;
  home: string;
  node_id: string;
  rpc: string;
  p2p: string;
}

/** A node process: `devnet start`, or a sidecar running it; `cometPid` once its CometBFT started. */
export interface Proc extends DevnetChild {
  node: NetNode;
  cometPid?: number;
}

export interface NetOptions {
  /** How many validators (default 4). */
  validators?: number;
  /** Each validator's voting power, by index (default: the devnet's equal powers). */
  powers?: readonly number[];
  /** Seeds the fault proxy's randomness (jitter, drops): two runs with one seed see the same faults. */
  seed?: number;
  /** The gov voting and deposit periods, seconds (default VOTING_S). */
  votingS?: number;
  /** The funded accounts besides the validators (default alice and bob). */
  accounts?: readonly string[];
  /** CometBFT's `timeout_propose` (Go duration; default the testnet's, 1s). */
  timeoutPropose?: string;
}

export interface RpcStatus {
  height: number;
  appHash: string;
}

export class FaultNet {
  private readonly procs = new Set<Proc>();
  /** The last process started for each node. */
  private readonly latest = new Map<number, Proc>();

  /** Every node's index. */
  readonly all: number[];

  private constructor(
    readonly dir: string,
    readonly nodes: NetNode[],
    readonly proxy: FaultProxy,
    readonly keys: GenesisKey[],
    readonly cometbft: string,
    /** Each validator's voting power, by index. */
    readonly powers: readonly number[],
    readonly votingS: number,
  ) {
    this.all = nodes.map((n) => n.index);
  }

  static async create(cometbft: string, o: NetOptions = {}): Promise<FaultNet> {
    const dir = tempDir("xupgrade-faults-");
    const votingS = o.votingS ?? VOTING_S;
    const init = await runCli([
      "devnet",
      "init",
      "--engine",
      "cometbft",
      "--home",
      dir,
      "--validators",
      String(o.validators ?? 4),
      "--voting-period",
      `${votingS}s`,
      "--deposit-period",
      `${votingS}s`,
      "--block-time",
      `${BLOCK_MS}ms`,
      ...(o.accounts ? ["--accounts", o.accounts.join(",")] : []),
    ]);
    if (init.code !== 0) throw new Error(`devnet init failed: ${init.stderr}`);
    const described = JSON.parse(readFileSync(join(dir, "testnet.json"), "utf8")) as { nodes: Omit<NetNode, "index">[] };
    const nodes = described.nodes.map((n, index) => ({ ...n, index }));
    const powers = setPowers(nodes, o.powers);
    const proxy = await FaultProxy.start(nodes, { random: o.seed === undefined ? undefined : rng(o.seed) });
    for (const n of nodes) {
      const path = join(n.home, "config", "config.toml");
      const peers = nodes.filter((p) => p !== n).map((p) => `${p.node_id}@127.0.0.1:${proxy.link(n.name, p.name).port}`);
      let toml = readFileSync(path, "utf8");
      if (!/^persistent_peers = .*$/m.test(toml)) throw new Error(`${path} has no persistent_peers line`);
      toml = toml.replace(/^persistent_peers = .*$/m, `persistent_peers = ${JSON.stringify(peers.join(","))}`);
      if (o.timeoutPropose !== undefined) {
        if (!/^timeout_propose = .*$/m.test(toml)) throw new Error(`${path} has no timeout_propose line`);
        toml = toml.replace(/^timeout_propose = .*$/m, `timeout_propose = ${JSON.stringify(o.timeoutPropose)}`);
      }
      writeFileSync(path, toml);
    }
    const keys = (JSON.parse(readFileSync(join(dir, "config", "genesis-keys.json"), "utf8")) as { keys: GenesisKey[] }).keys;
    return new FaultNet(dir, nodes, proxy, keys, cometbft, powers, votingS);
  }

  /** The share of the total voting power `which` hold, in [0, 1]. */
  share(which: readonly number[]): number {
    const total = this.powers.reduce((a, b) => a + b, 0);
    return which.reduce((a, i) => a + this.powers[i], 0) / total;
  }

  // ---- processes ----

  /** `devnet start --engine cometbft` of node `i` with `app`, not waiting. */
  spawn(i: number, app: string, extra: string[] = []): Proc {
    const n = this.nodes[i];
    const args = [
      ...cliArgs(),
      "devnet",
      "start",
      "--engine",
      "cometbft",
      "--cometbft",
      this.cometbft,
      "--home",
      n.home,
      "--app",
      app,
      "--halt-grace",
      HALT_GRACE,
      ...extra,
    ];
    // The light-client page the node serves at /ui, when `npm run build:ui` made it.
    return this.track(spawnLogged(args, { XUPGRADE_UI_DIR: builtPage() }), n);
  }

  /** Any program whose stdout carries a node's JSON log lines (a sidecar running the node), tracked like a node. */
  track(child: DevnetChild, node: NetNode): Proc {
    const p = Object.assign(child, { node }) as Proc;
    this.procs.add(p);
    this.latest.set(node.index, p);
    void p
      .waitFor((r) => r.msg === "started CometBFT", 600_000)
      .then(
        (r) => (p.cometPid = Number(r.pid)),
        () => undefined,
      );
    return p;
  }

  /** A genesis key by name. */
  key(name: string): GenesisKey {
    const k = this.keys.find((x) => x.name === name);
    if (!k) throw new Error(`no genesis key ${name}`);
    return k;
  }

  /** The REST URL node `i`'s last process serves (from its `serving` record). */
  restOf(i: number): string {
    const rest = this.latest.get(i)?.records.find((r) => r.msg === "serving")?.rest;
    if (typeof rest !== "string") throw new Error(`node${i} does not serve REST`);
    return rest;
  }

  /** Starts node `i` and waits until it serves. */
  async start(i: number, app: string, extra: string[] = []): Promise<Proc> {
    const p = this.spawn(i, app, extra);
    await p.waitFor((r) => r.msg === "serving", 120_000);
    return p;
  }

  /** SIGKILL to a node's CometBFT and its app at once: a machine losing power. */
  async kill(p: Proc): Promise<void> {
    const pid = p.cometPid ?? Number(p.records.find((r) => r.msg === "started CometBFT")?.pid);
    if (pid) signal(pid, "SIGKILL");
    await p.kill();
    if (pid) await waitUntil(() => !alive(pid), 30_000, `CometBFT ${pid} to die`);
  }

  /** The exit code (or signal) of a process, failing after `ms`. */
  exitOf(p: { exited: Promise<number | string>; stderr(): string }, ms = 180_000): Promise<number | string> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no exit within ${ms} ms; stderr: ${p.stderr().slice(-1500)}`)), ms)),
    );
    return Promise.race([p.exited, timeout]).finally(() => clearTimeout(timer));
  }

  // ---- the chain ----

  async status(i: number): Promise<RpcStatus | undefined> {
    const r = await rpc<{ sync_info: { latest_block_height: string; latest_app_hash: string } }>(this.nodes[i].rpc, "status");
    return r && { height: Number(r.sync_info.latest_block_height), appHash: r.sync_info.latest_app_hash };
  }

  /** Waits until every node in `which` reports at least height `h`. */
  async allAt(which: number[], h: number, timeoutMs = 120_000): Promise<void> {
    await waitUntil(
      async () => (await Promise.all(which.map((i) => this.status(i)))).every((s) => s !== undefined && s.height >= h),
      timeoutMs,
      `height ${h} on nodes ${which.join(",")}`,
    );
  }

  /**
   * Proposes upgrade `name` at a height far enough for the vote (the voting period plus `marginS` of blocks),
   * from alice through node 0; each validator votes yes through its own node. Resolves with the height once
   * every node's store shows the plan.
   */
  async proposeUpgrade(name: string, marginS = 8): Promise<number> {
    await this.allAt([0], 8);
    const now = (await this.status(0))!.height;
    const height = now + Math.ceil(((this.votingS + marginS) * 1000) / (await blockMs(this.nodes[0].rpc)));
    const key = (n: string) => this.keys.find((k) => k.name === n)!;
    const signed = async (k: GenesisKey, msgs: Parameters<typeof signTx>[2]) =>
      signTx(undefined as never, k, msgs, { accountNumber: BigInt(k.account_number), sequence: 0n });
    const alice = key("alice");
    const proposal = await signed(alice, [submitProposalAny(alice.address, [softwareUpgradeAny(name, BigInt(height))])]);
    const c0 = await clients(this.nodes[0].rpc);
    try {
      const sent = await c0.comet.broadcastTxSync({ tx: proposal });
      if (sent.code !== 0) throw new Error(`the proposal was refused: ${sent.log}`);
      const included = await waitUntil(() => c0.comet.tx({ hash: sent.hash }).catch(() => undefined), 60_000, "the proposal to be included");
      if (included.result.code !== 0) throw new Error(`the proposal failed: ${included.result.log}`);
    } finally {
      c0.comet.disconnect();
    }
    // Proposal 1 of a fresh chain; every validator votes through its own node.
    await Promise.all(
      this.nodes.map(async (n, i) => {
        const v = key(`validator${i}`);
        const c = await clients(n.rpc);
        try {
          const r = await c.comet.broadcastTxSync({ tx: await signed(v, [voteAny(1n, v.address)]) });
          if (r.code !== 0) throw new Error(`the vote of validator${i} was refused: ${r.log}`);
        } finally {
          c.comet.disconnect();
        }
      }),
    );
    await waitUntil(
      async () => (await Promise.all(this.nodes.map((_, i) => this.plan(i)))).every((p) => p === `${name}@${height}`),
      (this.votingS + 60) * 1000,
      `the plan ${name} at ${height}`,
    );
    return height;
  }

  /** The plan in a node's upgrade store (raw key 0x00, through abci_query), as `name@height`. */
  async plan(i: number): Promise<string | undefined> {
    const r = await rpc<{ response: { value: string | null } }>(this.nodes[i].rpc, "abci_query", { path: '"/store/upgrade/key"', data: "0x00" });
    if (!r?.response.value) return undefined;
    const plan = Plan.decode(Buffer.from(r.response.value, "base64"));
    return `${plan.name}@${plan.height}`;
  }

  upgradeInfo(i: number): string | undefined {
    const path = join(this.nodes[i].home, "data", "upgrade-info.json");
    return existsSync(path) ? readFileSync(path, "utf8") : undefined;
  }

  /** What node `i`'s CometBFT stored for block `h`: its id, and the app hash its header carries (after h-1). */
  async block(i: number, h: number): Promise<{ hash: string; appHash: string } | undefined> {
    const r = await rpc<{ block_id: { hash: string }; block: { header: { app_hash: string } } }>(this.nodes[i].rpc, "block", { height: String(h) });
    return r && { hash: r.block_id.hash, appHash: r.block.header.app_hash };
  }

  /** The app's own last committed height and app hash (`abci_info`, answered by the app through CometBFT). */
  async appInfo(i: number): Promise<{ height: number; appHash: string } | undefined> {
    const r = await rpc<{ response: { last_block_height?: string; last_block_app_hash?: string } }>(this.nodes[i].rpc, "abci_info");
    return (
      r && {
        height: Number(r.response.last_block_height ?? 0),
        appHash: Buffer.from(r.response.last_block_app_hash ?? "", "base64")
          .toString("hex")
          .toUpperCase(),
      }
    );
  }

  // ---- the end ----

  /** Writes every process's log (its JSON lines, then its stderr) to `<dest>/<node>.<n>.log`, for a failed run. */
  saveLogs(dest: string): void {
    mkdirSync(dest, { recursive: true });
    const seen = new Map<string, number>();
    for (const p of this.procs) {
      const n = (seen.get(p.node.name) ?? 0) + 1;
      seen.set(p.node.name, n);
      const lines = p.records.map((r) => JSON.stringify(r));
      writeFileSync(join(dest, `${p.node.name}.${n}.log`), `${lines.join("\n")}\n--- stderr ---\n${p.stderr()}`);
    }
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.procs].map(async (p) => {
        if (p.cometPid) signal(p.cometPid, "SIGKILL");
        await p.kill();
      }),
    );
    // Anything left that names this testnet (a node a sidecar started, its CometBFT).
    for (const pid of processesMentioning(this.dir)) signal(pid, "SIGKILL");
    await waitUntil(() => processesMentioning(this.dir).length === 0, 30_000, "no process of the testnet").catch(() => undefined);
    await this.proxy.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Writes the voting powers into every node's genesis.json (the same bytes in each, as `devnet init` wrote them):
 * CometBFT's genesis validators carry the power, and the app takes each validator's power from there at
 * InitChain (chain/init-chain.ts), so consensus and the gov tally agree. Returns the powers in force.
 */
function setPowers(nodes: readonly NetNode[], powers: readonly number[] | undefined): number[] {
  const path = (n: NetNode) => join(n.home, "config", "genesis.json");
  const doc = JSON.parse(readFileSync(path(nodes[0]), "utf8")) as { validators: { name: string; power: string }[] };
  if (powers !== undefined) {
    if (powers.length !== nodes.length || powers.some((p) => !Number.isSafeInteger(p) || p < 1))
      throw new Error(`powers ${powers.join("/")} for ${nodes.length} validators`);
    for (const v of doc.validators) {
      const i = Number(/^validator(\d+)$/.exec(v.name)?.[1]);
      if (!Number.isInteger(i) || i >= powers.length) throw new Error(`genesis validator ${v.name} is not one of the nodes`);
      v.power = String(powers[i]);
    }
    const text = JSON.stringify(doc, null, 2) + "\n";
    for (const n of nodes) writeFileSync(path(n), text);
  }
  return nodes.map((_, i) => Number(doc.validators.find((v) => v.name === `validator${i}`)!.power));
}

export async function rpc<T>(url: string, method: string, params: Record<string, string> = {}): Promise<T | undefined> {
  try {
    const q = new URLSearchParams(params).toString();
    const res = await fetch(`${url}/${method}${q ? `?${q}` : ""}`, { signal: AbortSignal.timeout(5000) });
    return ((await res.json()) as { result?: T }).result;
  } catch {
    return undefined;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, s: NodeJS.Signals): void {
  try {
    process.kill(pid, s);
  } catch {
    /* gone */
  }
}

export const records = (p: { records: LogRecord[] }, msg: string) => p.records.filter((r) => r.msg === msg);
export type { LogRecord };
