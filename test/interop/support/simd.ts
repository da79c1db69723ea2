/**
 * A real one-validator simd chain on loopback, built by `npm run peers` (simd v0.47.17 or v0.50.15, see
 * test/peers/README.md): init with short gov periods and fast blocks on free ports, start and stop, its CLI,
 * and gov proposals carrying MsgSoftwareUpgrade. Keys come from fixed mnemonics, so simd's test keyring and
 * the xupgrade keyring hold the same accounts.
 *
 * Facts this relies on (verified here, test/peers/README.md): simd v0.50's CLI ignores client.toml's `node`
 * (every command gets --node and --chain-id); its REST gateway answers 503 for ~1.5 s after start (wait for a
 * 200); the node never exits at an upgrade halt (CONSENSUS FAILURE, the process stays up: callers kill it);
 * v0.47's `tx upgrade` has no subcommands (proposals go through `tx gov submit-proposal <json>`).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnCollected, type CollectedChild } from "../../support/child.js";
import { freePorts } from "../../../bindings/base/ports.js";
import { tempDir } from "../../support/temp.js";
import { waitUntil } from "../../support/wait.js";

export const GOV_AUTHORITY = "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn";
export const CHAIN_ID = "xupgrade-interop-1";
export const DENOM = "stake";
export const MIN_DEPOSIT = "10000000stake";

/**
 * Fixed keys (BIP-39 test vectors, coin type 118, m/44'/118'/0'/0/0), imported into simd's test keyring and
 * into the xupgrade keyring: `validator` bonds the only validator and votes, `alice` proposes.
 */
export const KEYS = {
  validator: {
    mnemonic: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    address: "cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4",
  },
  alice: {
    mnemonic: "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
    address: "cosmos1am058pdux3hyulcmfgj4m3hhrlfn8nzm88u80q",
  },
} as const;
export type KeyName = keyof typeof KEYS;

export interface SimdInitOptions {
  binary: string;
  chainId?: string;
  /** gov voting and deposit periods (Go durations), default 6s. */
  votingPeriod?: string;
  /** CometBFT timeout_commit, default 400ms. */
  timeoutCommit?: string;
  /** Where the home goes (default a fresh temporary directory). */
  home?: string;
}

export interface SimdHome {
  home: string;
  chainId: string;
  /** The binary that initialised the home (its version writes the config files). */
  binary: string;
  ports: { rpc: number; p2p: number; grpc: number; api: number };
  rpcUrl: string;
  restUrl: string;
  grpcAddress: string;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `binary args…` to completion (stdin from `input`), bounded by `timeoutMs`. */
export function run(binary: string, args: string[], o: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...o.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on("error", () => undefined); // a program that exits without reading its stdin
    child.stdin.end(o.input ?? "");
  });
}

/** Like run(), but throws with the output unless the command exited 0. */
export async function runOk(binary: string, args: string[], o: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunResult> {
  const r = await run(binary, args, o);
  if (r.code !== 0) throw new Error(`${binary} ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** Sets `key = value` inside `[section]` of a TOML file's text (or at the top when section is ""). */
export function setToml(text: string, section: string, key: string, value: string): string {
  const lines = text.split("\n");
  let current = "";
  let done = false;
  for (let i = 0; i < lines.length; i++) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(lines[i]);
    if (header) {
      current = header[1];
      continue;
    }
    if (current === section && new RegExp(`^\\s*${key.replace(/[.-]/g, "\\$&")}\\s*=`).test(lines[i])) {
      lines[i] = `${key} = ${value}`;
      done = true;
      break;
    }
  }
  if (!done) throw new Error(`no key ${key} in [${section}]`);
  return lines.join("\n");
}

const q = (s: string) => JSON.stringify(s);

/**
 * `simd init`, the two keys recovered from their mnemonics, both funded, a gentx of the validator, and
 * the config written for a loopback test chain: free ports, short gov periods, fast blocks, JSON logs, CORS
 * open (the light-client page reads it from another origin), pprof and grpc-web's own listener off.
 */
export async function initSimd(o: SimdInitOptions): Promise<SimdHome> {
  const home = o.home ?? join(tempDir("xupgrade-interop-simd-"), "home");
  const chainId = o.chainId ?? CHAIN_ID;
  const bin = o.binary;
  const kr = ["--keyring-backend", "test", "--home", home];
  await runOk(bin, ["init", "interop", "--chain-id", chainId, "--home", home]);
  for (const [name, key] of Object.entries(KEYS)) {
    await runOk(bin, ["keys", "add", name, "--recover", ...kr], { input: `${key.mnemonic}\n` });
    await runOk(bin, ["genesis", "add-genesis-account", key.address, `1000000000000${DENOM}`, ...kr]);
  }
  await runOk(bin, ["genesis", "gentx", "validator", `100000000${DENOM}`, "--chain-id", chainId, ...kr]);
  await runOk(bin, ["genesis", "collect-gentxs", "--home", home]);

  const period = o.votingPeriod ?? "6s";
  const genesisFile = join(home, "config/genesis.json");
  const genesis = JSON.parse(readFileSync(genesisFile, "utf8")) as { app_state: { gov: { params: Record<string, unknown> } } };
  const params = genesis.app_state.gov.params;
  params.voting_period = period;
  params.max_deposit_period = period;
  params.min_deposit = [{ denom: DENOM, amount: MIN_DEPOSIT.replace(DENOM, "") }];
  // v0.50 only: the expedited period must stay below the voting period.
  if ("expedited_voting_period" in params) params.expedited_voting_period = "1s";
  writeFileSync(genesisFile, JSON.stringify(genesis, null, 2));

  const [rpc, p2p, grpc, api] = await freePorts(4);
  const cfgFile = join(home, "config/config.toml");
  let cfg = readFileSync(cfgFile, "utf8");
  cfg = setToml(cfg, "", "log_format", q("json"));
  cfg = setToml(cfg, "rpc", "laddr", q(`tcp://127.0.0.1:${rpc}`));
  cfg = setToml(cfg, "rpc", "cors_allowed_origins", '["*"]');
  cfg = setToml(cfg, "rpc", "pprof_laddr", q(""));
  cfg = setToml(cfg, "p2p", "laddr", q(`tcp://127.0.0.1:${p2p}`));
  cfg = setToml(cfg, "consensus", "timeout_commit", q(o.timeoutCommit ?? "400ms"));
  writeFileSync(cfgFile, cfg);
  const appFile = join(home, "config/app.toml");
  let app = readFileSync(appFile, "utf8");
  app = setToml(app, "api", "enable", "true");
  app = setToml(app, "api", "address", q(`tcp://127.0.0.1:${api}`));
  app = setToml(app, "api", "enabled-unsafe-cors", "true");
  app = setToml(app, "grpc", "address", q(`127.0.0.1:${grpc}`));
  // v0.47 has a separate grpc-web listener (default localhost:9091); v0.50 serves grpc-web on the API port.
  if (/^\[grpc-web\][^[]*^address\s*=/ms.test(app)) app = setToml(app, "grpc-web", "enable", "false");
  writeFileSync(appFile, app);
  const client = join(home, "config/client.toml");
  let cl = readFileSync(client, "utf8");
  cl = setToml(cl, "", "chain-id", q(chainId));
  cl = setToml(cl, "", "keyring-backend", q("test"));
  cl = setToml(cl, "", "node", q(`tcp://127.0.0.1:${rpc}`));
  writeFileSync(client, cl);
  return {
    home,
    chainId,
    binary: bin,
    ports: { rpc, p2p, grpc, api },
    rpcUrl: `http://127.0.0.1:${rpc}`,
    restUrl: `http://127.0.0.1:${api}`,
    grpcAddress: `127.0.0.1:${grpc}`,
  };
}

/** One log line of a node: simd's JSON (`level`, `module`, `message`, …), or `{message: <text>}`. */
export interface SimdLog {
  level?: string;
  module?: string;
  message: string;
  height?: number | string;
  /** performance.now() when the line arrived. */
  at: number;
  [k: string]: unknown;
}

export function parseLog(line: string): SimdLog {
  const at = performance.now();
  try {
    const rec = JSON.parse(line) as Record<string, unknown>;
    if (rec && typeof rec === "object") return { ...rec, message: String(rec.message ?? rec.msg ?? ""), at };
  } catch {
    /* plain text */
  }
  return { message: line, at };
}

const running = new Set<CollectedChild<SimdLog>>();

export interface SimdNode extends SimdHome {
  child: CollectedChild<SimdLog>;
  /** Resolves once REST answers 200 (gRPC is up behind it): simd answers 503 for ~1.5 s (v0.50) to ~6 s (v0.47) after start. */
  ready(timeoutMs?: number): Promise<void>;
  /** Resolves once CometBFT RPC reports a committed block (txs and RPC-based CLI queries work from then on). */
  rpcReady(timeoutMs?: number): Promise<void>;
  height(): Promise<number>;
  waitForHeight(h: number, timeoutMs?: number): Promise<number>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** `GET <rpc>/status` → latest_block_height (0 when unreachable). */
export async function rpcHeight(rpcUrl: string): Promise<number> {
  try {
    const res = await fetch(`${rpcUrl}/status`, { signal: AbortSignal.timeout(3000) });
    const j = (await res.json()) as { result: { sync_info: { latest_block_height: string } } };
    return Number(j.result.sync_info.latest_block_height);
  } catch {
    return 0;
  }
}

/** Adds the node's address methods to a running child (simd's own, or a supervisor's running simd). */
export function attach(h: SimdHome, child: CollectedChild<SimdLog>): SimdNode {
  running.add(child);
  void child.exited.then(() => running.delete(child));
  return {
    ...h,
    child,
    ready: (timeoutMs = 60_000) =>
      waitUntil(
        async () => {
          if (child.proc.exitCode !== null) throw new Error(`simd exited (${child.proc.exitCode}) before serving: ${child.stderr().slice(-2000)}`);
          try {
            const res = await fetch(`${h.restUrl}/cosmos/upgrade/v1beta1/authority`, { signal: AbortSignal.timeout(3000) });
            await res.arrayBuffer();
            return res.status === 200 && (await rpcHeight(h.rpcUrl)) >= 1;
          } catch {
            return false;
          }
        },
        timeoutMs,
        `simd REST on ${h.restUrl}`,
      ).then(() => undefined),
    rpcReady: (timeoutMs = 60_000) =>
      waitUntil(
        async () => {
          if (child.proc.exitCode !== null) throw new Error(`simd exited (${child.proc.exitCode}) before serving: ${child.stderr().slice(-2000)}`);
          return (await rpcHeight(h.rpcUrl)) >= 1;
        },
        timeoutMs,
        `simd RPC on ${h.rpcUrl}`,
      ).then(() => undefined),
    height: () => rpcHeight(h.rpcUrl),
    waitForHeight: (target, timeoutMs = 60_000) =>
      waitUntil(
        async () => {
          const n = await rpcHeight(h.rpcUrl);
          return n >= target ? n : undefined;
        },
        timeoutMs,
        `height ${target} on ${h.rpcUrl}`,
      ),
    stop: (graceMs = 10_000) => stopChild(child, graceMs),
  };
}

export async function stopChild(child: CollectedChild<unknown>, graceMs = 10_000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([child.exited, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
  clearTimeout(timer);
  await child.kill();
}

/** `simd start --home <home>` (the given binary, default the one that initialised the home). */
export function startSimd(h: SimdHome, binary = h.binary, extraArgs: string[] = []): SimdNode {
  const child = spawnCollected<SimdLog>(binary, ["start", "--home", h.home, ...extraArgs], {
    parse: parseLog,
    echo: process.env.XUPGRADE_TEST_LOGS === "1" ? "simd" : undefined,
  });
  return attach(h, child);
}

/** SIGKILLs every simd (or supervisor) child still running: afterAll, and after a failure. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((c) => c.kill()));
  running.clear();
}

/** Registers any other child (a supervisor) so killAll() stops it too. */
export function track<T>(child: CollectedChild<T>): CollectedChild<T> {
  running.add(child as unknown as CollectedChild<SimdLog>);
  void child.exited.then(() => running.delete(child as unknown as CollectedChild<SimdLog>));
  return child;
}

// ---- the CLI and gov ----

/** Flags every simd CLI command against this node needs (v0.50 ignores client.toml's node). */
export const nodeFlags = (h: { ports: { rpc: number } }) => ["--node", `tcp://127.0.0.1:${h.ports.rpc}`];
export const txFlags = (h: SimdHome, from: KeyName) => [
  "--from",
  from,
  "--keyring-backend",
  "test",
  "--home",
  h.home,
  "--chain-id",
  h.chainId,
  ...nodeFlags(h),
  "--yes",
  "--output",
  "json",
  "--gas",
  "400000",
];

interface TxResponse {
  code: number;
  txhash: string;
  raw_log?: string;
}

export interface TxResult {
  height: number;
  hash: string;
  events: { type: string; attributes: { key: string; value: string }[] }[];
}

/** The tx with this hash from CometBFT's `/tx` (undefined while it is not in a block). */
export async function rpcTx(rpcUrl: string, hash: string): Promise<(TxResult & { code: number; log: string }) | undefined> {
  const res = await fetch(`${rpcUrl}/tx?hash=0x${hash}`).catch(() => undefined);
  if (!res) return undefined;
  const j = (await res.json()) as { result?: { height: string; hash: string; tx_result: { code: number; log: string; events: TxResult["events"] } } };
  if (!j.result) return undefined;
  const r = j.result;
  return { height: Number(r.height), hash: r.hash, code: r.tx_result.code, log: r.tx_result.log, events: r.tx_result.events };
}

/**
 * Broadcasts with simd's CLI (sync mode) and waits, over CometBFT RPC (up long before simd's gRPC and
 * REST), until the tx is in a block with code 0.
 */
export async function simdTx(h: SimdHome, binary: string, args: string[], from: KeyName): Promise<TxResult> {
  const r = await runOk(binary, [...args, ...txFlags(h, from)]);
  const res = JSON.parse(r.stdout.slice(r.stdout.indexOf("{"))) as TxResponse;
  if (res.code !== 0) throw new Error(`simd ${args.join(" ")}: CheckTx code ${res.code}: ${res.raw_log}`);
  const tx = await waitUntil(() => rpcTx(h.rpcUrl, res.txhash), 30_000, `tx ${res.txhash}`);
  if (tx.code !== 0) throw new Error(`simd ${args.join(" ")}: DeliverTx code ${tx.code}: ${tx.log}`);
  return tx;
}

/** The value of the first event attribute `key` (of an event of type `type`). */
export function eventAttr(tx: TxResult, type: string, key: string): string | undefined {
  for (const e of tx.events) if (e.type === type) for (const a of e.attributes) if (a.key === key) return a.value;
  return undefined;
}

export interface PlanSpec {
  name: string;
  height: number;
  info?: string;
}

/** The gov proposal JSON of `tx gov submit-proposal` (works on v0.47 and v0.50) for one upgrade message. */
export function proposalJson(msg: Record<string, unknown>, title = "interop", summary = "xupgrade interop test"): string {
  return JSON.stringify({ messages: [msg], metadata: "", deposit: MIN_DEPOSIT, title, summary });
}

export const softwareUpgradeMsg = (plan: PlanSpec) => ({
  "@type": "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade",
  authority: GOV_AUTHORITY,
  plan: { name: plan.name, height: String(plan.height), info: plan.info ?? "" },
});
export const cancelUpgradeMsg = () => ({ "@type": "/cosmos.upgrade.v1beta1.MsgCancelUpgrade", authority: GOV_AUTHORITY });

/** A proposal's status through simd's CLI over RPC (`q gov proposal <id>`; v0.50 wraps it in {"proposal":…}). */
export async function proposalStatus(h: SimdHome, binary: string, id: number): Promise<string> {
  const r = await runOk(binary, ["query", "gov", "proposal", String(id), ...nodeFlags(h), "--output", "json"]);
  const j = JSON.parse(r.stdout) as { status?: string; proposal?: { status: string } };
  return String(j.proposal?.status ?? j.status);
}

/**
 * Submits a proposal carrying `msg` from alice (`tx gov submit-proposal <json>`, which v0.47 and v0.50 both
 * have), has the validator vote yes, and waits until it passed. Everything goes over CometBFT RPC, so it
 * works from the first blocks on.
 */
export async function passProposal(h: SimdHome, binary: string, msg: Record<string, unknown>, votingMs = 30_000): Promise<{ id: number; submitted: TxResult }> {
  const file = join(tempDir("xupgrade-interop-proposal-"), "proposal.json");
  writeFileSync(file, proposalJson(msg));
  const submitted = await simdTx(h, binary, ["tx", "gov", "submit-proposal", file], "alice");
  const id = Number(eventAttr(submitted, "submit_proposal", "proposal_id"));
  if (!Number.isSafeInteger(id) || id < 1) throw new Error(`no proposal_id in the submit tx's events: ${JSON.stringify(submitted.events)}`);
  await simdTx(h, binary, ["tx", "gov", "vote", String(id), "yes"], "validator");
  await waitForStatus(h, binary, id, "PROPOSAL_STATUS_PASSED", votingMs);
  return { id, submitted };
}

export async function waitForStatus(h: SimdHome, binary: string, id: number, status: string, timeoutMs = 30_000): Promise<void> {
  let last = "";
  await waitUntil(
    async () => {
      last = await proposalStatus(h, binary, id).catch(() => last);
      if (last === "PROPOSAL_STATUS_FAILED" || last === "PROPOSAL_STATUS_REJECTED") throw new Error(`proposal ${id} ended ${last}`);
      return last === status;
    },
    timeoutMs,
    `proposal ${id} to reach ${status} (it is ${last})`,
  );
}

/** Resolves with the halt log line (`UPGRADE "<name>" NEEDED at height: <h>: <info>`). */
export function waitForHalt(child: CollectedChild<SimdLog>, name: string, timeoutMs = 120_000): Promise<SimdLog> {
  return child.waitFor((r) => r.message.startsWith(`UPGRADE "${name}" NEEDED at height: `), timeoutMs);
}
