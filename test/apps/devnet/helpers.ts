/** Shared pieces of the devnet suites: temporary homes, log capture, cosmjs signing and broadcasting, polling. */
import { join } from "node:path";
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
import { appDbPath, initDevnet, readGenesisKeys, type Logger, type GenesisKey, type InitDevnetOptions } from "../../../bindings/apps/devnet/index.js";
import { GOV_AUTHORITY as GOV } from "../../../bindings/module/authority.js";
import { openCommitStore } from "../../../bindings/apps/devnet/chain/app-hash.js";
import { openAppDb } from "../../../bindings/apps/devnet/chain/open.js";
import type { CommitMultiStore } from "../../../bindings/store/rootmulti/store.js";
import { spawnCollected, type CollectedChild } from "../../support/child.js";
import { ROOT } from "../../support/paths.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";
import { waitUntil } from "../../support/wait.js";

export { GOV, ROOT, removeTempDirs, tempDir, waitUntil };

export const V1 = join(ROOT, "examples/apps/v1");
export const V2 = join(ROOT, "examples/apps/v2");
export const fixtureApp = (name: string) => join(ROOT, "test/apps/devnet/fixtures/devnet-apps", `${name}.mjs`);
export const EPHEMERAL = { rpc: "127.0.0.1:0", rest: "127.0.0.1:0", grpc: "127.0.0.1:0" } as const;
/** Fast devnet timings for tests. */
export const FAST = { blockTime: "50ms", votingPeriod: "1s", depositPeriod: "1s" } as const;

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
export function captureLogger(tag = ""): Required<Logger> & { records: LogRecord[]; messages(): string[] } {
  const records: LogRecord[] = [];
  const print = process.env.XUPGRADE_TEST_LOGS === "1";
  const add = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    const rec = { level, msg, ...JSON.parse(JSON.stringify(fields ?? {}, (_k, v) => (typeof v === "bigint" ? v.toString() : v))) };
    records.push(rec);
    if (print) console.log(tag, JSON.stringify(rec));
  };
  return { info: add("info"), error: add("error"), warn: add("warn"), debug: () => {}, records, messages: () => records.map((r) => r.msg) };
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

/** The id the next proposal gets: gov numbers proposals from 1 and never reuses one (through the node's `abci_query`). */
export async function nextProposalId(rpcUrl: string): Promise<bigint> {
  const c = await clients(rpcUrl);
  try {
    const { proposals } = await c.gov.Proposals({ proposalStatus: 0, voter: "", depositor: "" });
    return proposals.reduce((max, p) => (p.id > max ? p.id : max), 0n) + 1n;
  } finally {
    c.comet.disconnect();
  }
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
  const authInfoBytes = makeAuthInfoBytes(
    [{ pubkey: encodePubkey(encodeSecp256k1Pubkey(acc.pubkey)), sequence: Number(sequence) }],
    [],
    o.gas ?? 200000,
    undefined,
    undefined,
  );
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

export type DevnetChild = CollectedChild<LogRecord>;

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
  const parse = (line: string): LogRecord => {
    try {
      return JSON.parse(line) as LogRecord;
    } catch {
      return { level: "text", msg: line };
    }
  };
  return spawnCollected("node", args, { env, parse, echo: process.env.XUPGRADE_TEST_LOGS === "1" ? "child" : undefined });
}

/** A stopped node's application database, opened as the node opens it (close it again). */
export function openNodeStore(home: string): Promise<CommitMultiStore> {
  return openCommitStore(openAppDb(appDbPath(home)));
}

/**
 * The committed state of a stopped node's database: height, app hash, store names, and text values by store
 * and key (read into memory, so `get` works after the database is closed).
 */
export async function committedState(
  home: string,
): Promise<{ height: bigint; appHash: Uint8Array; stores: string[]; get(store: string, key: string | Uint8Array): string | undefined }> {
  const ms = await openNodeStore(home);
  try {
    const stores = ms.committedStores();
    const contents = new Map<string, Map<string, Uint8Array>>();
    const view = ms.at(ms.lastCommittedHeight);
    for (const name of view ? stores : []) {
      const m = new Map<string, Uint8Array>();
      for (const [k, v] of view!.store(name).iterate(new Uint8Array(0), undefined)) m.set(Buffer.from(k).toString("latin1"), v);
      contents.set(name, m);
    }
    const get = (store: string, key: string | Uint8Array) => {
      const v = contents.get(store)?.get(Buffer.from(typeof key === "string" ? new TextEncoder().encode(key) : key).toString("latin1"));
      return v && new TextDecoder().decode(v);
    };
    return { height: ms.lastCommittedHeight, appHash: ms.lastAppHash, stores, get };
  } finally {
    await ms.close();
  }
}
