/** Shared pieces of the devnet suites: temporary homes, log capture, cosmjs signing and broadcasting, polling. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeSecp256k1Pubkey } from "@cosmjs/amino";
import { fromBase64, fromHex, toHex } from "@cosmjs/encoding";
import { DirectSecp256k1Wallet, encodePubkey, makeAuthInfoBytes, makeSignDoc } from "@cosmjs/proto-signing";
import { QueryClient, createProtobufRpcClient, setupBankExtension, type BankExtension } from "@cosmjs/stargate";
import { connectComet, type CometClient } from "@cosmjs/tendermint-rpc";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import { QueryClientImpl as AuthQuery } from "cosmjs-types/cosmos/auth/v1beta1/query";
import { QueryClientImpl as GovQuery } from "cosmjs-types/cosmos/gov/v1/query";
import { MsgDeposit, MsgSubmitProposal, MsgVote } from "cosmjs-types/cosmos/gov/v1/tx";
import { TxBody, TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { QueryClientImpl as UpgradeQuery } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { MsgCancelUpgrade, MsgSoftwareUpgrade } from "cosmjs-types/cosmos/upgrade/v1beta1/tx";
import type { Any } from "cosmjs-types/google/protobuf/any";
import { appDbPath, initDevnet, readGenesisKeys, type DevnetLogger, type GenesisKey, type InitDevnetOptions } from "../../../bindings/apps/devnet/index.js";
import { openNodeMultiStore } from "../../../bindings/store/level-node.js";

export const GOV = "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn";
export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const V1 = join(ROOT, "examples/apps/v1");
export const V2 = join(ROOT, "examples/apps/v2");
export const fixtureApp = (name: string) => join(ROOT, "test/apps/devnet/fixtures/devnet-apps", `${name}.mjs`);
export const EPHEMERAL = { rpc: "127.0.0.1:0", rest: "127.0.0.1:0", grpc: "127.0.0.1:0" } as const;
/** Fast devnet timings for tests. */
export const FAST = { blockTime: "50ms", votingPeriod: "1s", depositPeriod: "1s" } as const;

const dirs: string[] = [];
export function tempDir(prefix = "xupgrade-devnet-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function newHome(options: Partial<InitDevnetOptions> = {}): Promise<{ home: string; keys: GenesisKey[] }> {
  const home = tempDir();
  await initDevnet({ home, ...FAST, ...options });
  return { home, keys: (await readGenesisKeys(home)).keys };
}

export interface LogRecord {
  level: string;
  msg: string;
  [k: string]: unknown;
}

/** A logger keeping every record; `print` echoes them (XUPGRADE_TEST_LOGS=1). */
export function captureLogger(tag = ""): DevnetLogger & { records: LogRecord[]; messages(): string[] } {
  const records: LogRecord[] = [];
  const print = process.env.XUPGRADE_TEST_LOGS === "1";
  const add = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    const rec = { level, msg, ...JSON.parse(JSON.stringify(fields ?? {}, (_k, v) => (typeof v === "bigint" ? v.toString() : v))) };
    records.push(rec);
    if (print) console.log(tag, JSON.stringify(rec));
  };
  return { info: add("info"), error: add("error"), warn: add("warn"), debug: () => {}, records, messages: () => records.map((r) => r.msg) };
}

/** Polls `fn` until it returns a value other than undefined/false, for at most `timeoutMs`. */
export async function waitUntil<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** cosmjs clients against a devnet's RPC: connectComet + QueryClient + cosmjs-types QueryClientImpls. */
export async function clients(
  rpcUrl: string,
): Promise<{ comet: CometClient; upgrade: UpgradeQuery; gov: GovQuery; auth: AuthQuery; query: QueryClient & BankExtension }> {
  const comet = await connectComet(rpcUrl);
  const query = QueryClient.withExtensions(comet, setupBankExtension);
  const rpc = createProtobufRpcClient(query);
  return { comet, query, upgrade: new UpgradeQuery(rpc), gov: new GovQuery(rpc), auth: new AuthQuery(rpc) };
}

export interface SignOptions {
  chainId?: string;
  accountNumber?: bigint;
  sequence?: bigint;
  /** Sign with this private key instead of the key's own (the public key in the tx stays the key's). */
  signWith?: string;
  gas?: number;
  memo?: string;
}

/** A tx signed with cosmjs' DirectSecp256k1Wallet in SIGN_MODE_DIRECT (account number and sequence from the chain). */
export async function signTx(auth: AuthQuery, key: GenesisKey, msgs: Any[], o: SignOptions = {}): Promise<Uint8Array> {
  const wallet = await DirectSecp256k1Wallet.fromKey(fromHex(key.private_key));
  const [acc] = await wallet.getAccounts();
  let accountNumber = o.accountNumber;
  let sequence = o.sequence;
  if (accountNumber === undefined || sequence === undefined) {
    const base = BaseAccount.decode((await auth.Account({ address: key.address })).account!.value);
    accountNumber ??= base.accountNumber;
    sequence ??= base.sequence;
  }
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: msgs, memo: o.memo ?? "" })).finish();
  const authInfoBytes = makeAuthInfoBytes([{ pubkey: encodePubkey(encodeSecp256k1Pubkey(acc.pubkey)), sequence: Number(sequence) }], [], o.gas ?? 200000, undefined, undefined);
  const doc = makeSignDoc(bodyBytes, authInfoBytes, o.chainId ?? "xupgrade-devnet-1", Number(accountNumber));
  const signer = o.signWith ? await DirectSecp256k1Wallet.fromKey(fromHex(o.signWith)) : wallet;
  const signerAddress = (await signer.getAccounts())[0].address;
  const { signature } = await signer.signDirect(signerAddress, doc);
  return TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [fromBase64(signature.signature)] }).finish();
}

export function softwareUpgradeAny(name: string, height: bigint, info = "", authority = GOV): Any {
  const value = MsgSoftwareUpgrade.encode({
    authority,
    // The zero time must be explicit (docs/spec/interfaces.md §8).
    plan: { name, time: { seconds: -62135596800n, nanos: 0 }, height, info, upgradedClientState: undefined },
  }).finish();
  return { typeUrl: "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade", value };
}

export function cancelUpgradeAny(authority = GOV): Any {
  return { typeUrl: "/cosmos.upgrade.v1beta1.MsgCancelUpgrade", value: MsgCancelUpgrade.encode({ authority }).finish() };
}

export function submitProposalAny(proposer: string, messages: Any[], deposit = "10000000", title = "Upgrade to v2", summary = "Switch to v2"): Any {
  const value = MsgSubmitProposal.encode(
    MsgSubmitProposal.fromPartial({ messages, initialDeposit: deposit === "" ? [] : [{ denom: "stake", amount: deposit }], proposer, title, summary }),
  ).finish();
  return { typeUrl: "/cosmos.gov.v1.MsgSubmitProposal", value };
}

export function voteAny(proposalId: bigint, voter: string, option = 1): Any {
  return { typeUrl: "/cosmos.gov.v1.MsgVote", value: MsgVote.encode({ proposalId, voter, option, metadata: "" }).finish() };
}

export function depositAny(proposalId: bigint, depositor: string, amount: string): Any {
  return { typeUrl: "/cosmos.gov.v1.MsgDeposit", value: MsgDeposit.encode({ proposalId, depositor, amount: [{ denom: "stake", amount }] }).finish() };
}

/** Broadcasts with broadcast_tx_sync and waits for inclusion via `tx`; returns the DeliverTx result. */
export async function broadcastAndWait(comet: CometClient, tx: Uint8Array, timeoutMs = 15_000) {
  const res = await comet.broadcastTxSync({ tx });
  if (res.code !== 0) throw new Error(`CheckTx failed (${res.codespace} ${res.code}): ${res.log}`);
  return waitUntil(
    async () => {
      try {
        return await comet.tx({ hash: res.hash });
      } catch {
        return undefined;
      }
    },
    timeoutMs,
    `tx ${toHex(res.hash)}`,
  );
}

/** Submits an upgrade proposal from `proposer` and has the validators vote yes; returns the proposal id. */
export async function proposeAndPass(
  c: { comet: CometClient; auth: AuthQuery },
  keys: GenesisKey[],
  msgs: Any[],
  voters = ["validator0", "validator1", "validator2"],
): Promise<bigint> {
  const alice = keys.find((k) => k.name === "alice")!;
  const included = await broadcastAndWait(c.comet, await signTx(c.auth, alice, [submitProposalAny(alice.address, msgs)]));
  if (included.result.code !== 0) throw new Error(`proposal failed: ${included.result.log}`);
  const attr = included.result.events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!;
  const id = BigInt(attr.value);
  for (const name of voters) {
    const v = keys.find((k) => k.name === name)!;
    const r = await c.comet.broadcastTxSync({ tx: await signTx(c.auth, v, [voteAny(id, v.address)]) });
    if (r.code !== 0) throw new Error(`vote of ${name} failed: ${r.log}`);
  }
  return id;
}

// ---- child processes ----

export interface DevnetChild {
  proc: ChildProcess;
  records: LogRecord[];
  /** What the child wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the first log record matching `test`; rejects if the child exits first or on timeout. */
  waitFor(test: (r: LogRecord) => boolean, timeoutMs?: number): Promise<LogRecord>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  kill(): Promise<void>;
}

const CHILD = join(ROOT, "test/apps/devnet/fixtures/devnet-child.ts");

/** A devnet node in a child process through test/apps/devnet/fixtures/devnet-child.ts (runDevnet, ephemeral ports). */
export function startChild(home: string, app: string | undefined, env: Record<string, string> = {}): DevnetChild {
  return spawnLogged(["--import", "tsx", CHILD, home, app ?? "-"], env);
}

/**
 * `node <args>` whose stdout is JSON log lines (a devnet node: the fixture above, or the real CLI's
 * `xupgrade devnet start`), collected as records.
 */
export function spawnLogged(args: string[], env: Record<string, string> = {}): DevnetChild {
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const records: LogRecord[] = [];
  const waiters: { test: (r: LogRecord) => boolean; resolve: (r: LogRecord) => void; reject: (e: Error) => void }[] = [];
  let stderr = "";
  let partial = "";
  proc.stderr!.on("data", (d) => (stderr += d));
  proc.stdout!.on("data", (d) => {
    const parts = (partial + d).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      if (line.trim() === "") continue;
      let rec: LogRecord;
      try {
        rec = JSON.parse(line) as LogRecord;
      } catch {
        rec = { level: "text", msg: line };
      }
      records.push(rec);
      if (process.env.XUPGRADE_TEST_LOGS === "1") console.log("child", line);
      for (const w of [...waiters]) {
        if (w.test(rec)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(rec);
        }
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => proc.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  void exited.then((code) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${code}) before the expected log line; stderr: ${stderr}`));
  });
  return {
    proc,
    records,
    stderr: () => stderr,
    exited,
    waitFor: (test, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const seen = records.find(test);
        if (seen) return resolve(seen);
        if (proc.exitCode !== null || proc.signalCode !== null) return reject(new Error(`child already exited: ${stderr}`));
        const timer = setTimeout(() => reject(new Error(`timed out waiting for a log line; stderr: ${stderr}`)), timeoutMs);
        waiters.push({
          test,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
      }),
    kill: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * The committed state of a stopped node's database: height, store names, and text values by store and key
 * (the multistore keeps its committed contents in memory, so `get` works after the database is closed).
 */
export async function committedState(home: string): Promise<{ height: bigint; stores: string[]; get(store: string, key: string): string | undefined }> {
  const ms = await openNodeMultiStore(appDbPath(home));
  try {
    const stores = ms.committedStores();
    const get = (store: string, key: string) => {
      if (!stores.includes(store)) return undefined;
      const v = ms.store(store).get(new TextEncoder().encode(key));
      return v && new TextDecoder().decode(v);
    };
    return { height: ms.lastCommittedHeight, stores, get };
  } finally {
    await ms.close();
  }
}
