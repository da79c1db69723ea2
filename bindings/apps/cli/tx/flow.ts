/**
 * Signing and broadcasting (docs/spec/interfaces.md §7.2 flow, docs/spec/interfaces.md §8): account number and sequence from
 * /cosmos.auth.v1beta1.Query/Account, TxBody/AuthInfo/SignDoc, confirmation, SIGN_MODE_DIRECT signature,
 * then broadcast and followed into a block across an upgrade halt (client/broadcast.ts, §7.3).
 */
import { sha256 } from "@cosmjs/crypto";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import { QueryAccountResponse } from "cosmjs-types/cosmos/auth/v1beta1/query";
import { TxMsgData } from "cosmjs-types/cosmos/base/abci/v1beta1/abci";
import { MsgSubmitProposalResponse } from "cosmjs-types/cosmos/gov/v1/tx";
import { AbciError, abciQuery, decodeWith } from "../../../client/abci.js";
import { CliError } from "../errors.js";
import type { KeyringContext as Context } from "../keys/context.js";
import { confirm } from "../io.js";
import type { KeyInfo } from "../keys/keyring.js";
import { addressProblem } from "../../../client/address.js";
import { print, toJson } from "../output.js";
import { type CometRpc, int, isObject, obj, str } from "../../../client/rpc.js";
import { broadcastTx, type BroadcastProgress } from "../../../client/broadcast.js";
import { UpgradeHaltError } from "../../../client/tx-errors.js";
import { formatGoDuration } from "../../../go/duration.js";
import type { JsonValue } from "../yaml.js";
import type { TxOpts } from "./flags.js";
import { type TxSettings, offlineAccount } from "./settings.js";
import { type Msg, unsignedTxJson } from "./msgs.js";
import { TYPE_URL, encodeAuthInfo, encodeTxBody, encodeTxRaw } from "./proto.js";
import { signDirect } from "./sign.js";

export interface Signer {
  address: string;
  /** the keyring entry; absent for `--generate-only` with a bare address */
  key?: KeyInfo;
}

/** `--from`: a key of the keyring (by name or address), or — for `--generate-only` only — any address. */
export async function resolveSigner(ctx: Context, from: string, generateOnly: boolean): Promise<Signer> {
  const key = await ctx.keyring().find(from);
  if (key) return { address: key.address, key };
  if (generateOnly && addressProblem(from) === undefined) return { address: from };
  return { address: "", key: await ctx.keyring().get(from) }; // throws: unknown key
}

export interface NodeStatus {
  network: string;
  height: bigint;
}

export async function nodeStatus(rpc: CometRpc): Promise<NodeStatus> {
  const res = await rpc.call("status");
  const nodeInfo = obj(rpc, "status", res, "node_info");
  const sync = obj(rpc, "status", res, "sync_info");
  return { network: str(rpc, "status", nodeInfo, "network"), height: int(rpc, "status", sync, "latest_block_height") };
}

export interface Account {
  accountNumber: bigint;
  sequence: bigint;
  pubkey: Uint8Array | undefined;
}

export async function queryAccount(rpc: CometRpc, address: string): Promise<Account> {
  const path = "/cosmos.auth.v1beta1.Query/Account";
  const req = new BinaryWriter().tag(1, WireType.LengthDelimited).string(address).finish();
  let value: Uint8Array;
  try {
    ({ value } = await abciQuery(rpc, path, req));
  } catch (e) {
    if (e instanceof AbciError && e.code === 22) throw new CliError(`account ${address} not found on the chain (it must receive funds before it can sign)`);
    throw e;
  }
  const any = decodeWith(rpc, path, (b) => QueryAccountResponse.decode(b), value).account;
  if (!any) throw new CliError(`account ${address} not found on the chain (it must receive funds before it can sign)`);
  if (any.typeUrl !== TYPE_URL.baseAccount) throw new CliError(`account ${address} is a ${any.typeUrl}; only ${TYPE_URL.baseAccount} can sign here`);
  const acc = decodeWith(rpc, path, (b) => BaseAccount.decode(b), any.value);
  let pubkey: Uint8Array | undefined;
  if (acc.pubKey && acc.pubKey.typeUrl === TYPE_URL.secp256k1PubKey) {
    const r = acc.pubKey.value;
    if (r.length >= 2 && r[0] === 0x0a) pubkey = r.slice(2, 2 + r[1]);
  }
  return { accountNumber: acc.accountNumber, sequence: acc.sequence, pubkey };
}

export interface Included {
  txhash: string;
  code: number;
  height: bigint;
  proposalId: string | undefined;
}

export interface BroadcastInput {
  ctx: Context;
  rpc: CometRpc;
  signer: Signer;
  msgs: Msg[];
  settings: TxSettings;
  chainId: string;
  yes: boolean;
}

export interface SignInput {
  ctx: Context;
  signer: Signer;
  msgs: Msg[];
  settings: TxSettings;
  chainId: string;
  yes: boolean;
  account: { accountNumber: bigint; sequence: bigint };
}

export interface SignedTx {
  txBytes: Uint8Array;
  /** upper-case hex sha256 of the TxRaw bytes */
  txhash: string;
}

/** Builds the TxBody and AuthInfo, asks for confirmation (unless --yes) and signs SIGN_MODE_DIRECT. */
export async function buildAndSign(input: SignInput): Promise<SignedTx> {
  const { ctx, signer, msgs, settings, chainId, account } = input;
  const key = signer.key;
  if (!key) throw new CliError(`cannot sign for ${signer.address}: it is not a key of the ${ctx.keyringBackend} keyring`);
  const bodyBytes = encodeTxBody({ messages: msgs.map((m) => m.any), memo: settings.memo, timeoutHeight: 0n });
  const authInfoBytes = encodeAuthInfo({
    signerInfos: [{ pubkey: key.pubkey, sequence: account.sequence }],
    fee: { amount: settings.fees, gasLimit: settings.gas, payer: "", granter: "" },
  });
  if (!input.yes) {
    process.stderr.write(toJson(unsignedTxJson(msgs, settings.memo, { amount: settings.fees, gasLimit: settings.gas })) + "\n\n");
    if (!(await confirm("confirm transaction before signing and broadcasting [y/N]: "))) throw new CliError("canceled transaction");
  }
  const privkey = await ctx.keyring().privkey(key.name);
  const { signature } = await signDirect(privkey, { bodyBytes, authInfoBytes, chainId, accountNumber: account.accountNumber });
  privkey.fill(0);
  const txBytes = encodeTxRaw({ bodyBytes, authInfoBytes, signatures: [signature] });
  return { txBytes, txhash: Buffer.from(sha256(txBytes)).toString("hex").toUpperCase() };
}

export async function signAndBroadcast(input: BroadcastInput): Promise<Included> {
  const { rpc, signer } = input;
  const key = signer.key;
  if (!key) throw new CliError(`cannot sign for ${signer.address}: it is not a key of the ${input.ctx.keyringBackend} keyring`);
  const account = await queryAccount(rpc, signer.address);
  if (account.pubkey && Buffer.compare(Buffer.from(account.pubkey), Buffer.from(key.pubkey)) !== 0) {
    throw new CliError(`key ${JSON.stringify(key.name)} does not match the public key of account ${signer.address} on the chain`);
  }
  const { txBytes, txhash } = await buildAndSign({ ...input, account });
  const { timeoutMs, waitUpgradeMs } = input.settings;
  let tx;
  try {
    tx = await broadcastTx(rpc, txBytes, {
      timeoutMs,
      waitUpgradeMs,
      onProgress: (e) => {
        const line = progressLine(e, waitUpgradeMs);
        if (line) process.stderr.write(line + "\n");
      },
    });
  } catch (e) {
    if (e instanceof UpgradeHaltError) throw new CliError(e.message + (e.waitedMs === undefined ? haltHint(e) : ""));
    throw e;
  }
  return included(rpc, txhash, { height: tx.height.toString(), tx_result: tx.result });
}

/** What to do about a transaction the halt caught, when the user did not ask to wait. */
function haltHint(e: UpgradeHaltError): string {
  if (e.stage === "halt-block") return "; to wait for its result, pass --wait-upgrade <duration>";
  if (e.stage === "not-sent") return "; to wait for the switch and broadcast it then, pass --wait-upgrade <duration>";
  return "; to wait for the switch and rebroadcast this same signed transaction (the same sequence: it is committed at most once), pass --wait-upgrade <duration>";
}

/** A line on stderr for each thing the broadcast sees while it waits through an upgrade halt (nothing otherwise). */
function progressLine(e: BroadcastProgress, waitMs: number): string | undefined {
  switch (e.kind) {
    case "accepted":
      return undefined;
    case "halted":
      return `the chain halted at height ${e.plan.height} for upgrade ${JSON.stringify(e.plan.name)}: waiting up to ${formatGoDuration(BigInt(waitMs) * 1_000_000n)} for it to resume on the new binary`;
    case "node-down":
      return "the node does not answer (its binary is being switched?): waiting";
    case "resumed":
      return `the chain resumed: height ${e.height}`;
    case "rebroadcast":
      return `rebroadcast tx ${e.txhash} (the same signed bytes): ${e.outcome === "accepted" ? "accepted" : e.outcome === "already-known" ? "the node already has it" : "its sequence is used: looking for it in the blocks"}`;
  }
}

const textField = (v: unknown): string => (typeof v === "string" ? v : "");

function included(rpc: CometRpc, txhash: string, res: Record<string, unknown>): Included {
  const result = obj(rpc, "tx", res, "tx_result");
  const code = result.code === undefined ? 0 : result.code;
  if (typeof code !== "number") throw rpc.garbage("tx", "tx_result.code is not a number");
  if (code !== 0) throw new CliError(`tx ${txhash} failed (codespace ${textField(result.codespace)} code ${code}): ${textField(result.log)}`);
  return { txhash, code, height: int(rpc, "tx", res, "height"), proposalId: proposalIdOf(result) };
}

/** From TxMsgData.msg_responses[0] (MsgSubmitProposalResponse), else the submit_proposal event. */
function proposalIdOf(result: Record<string, unknown>): string | undefined {
  if (typeof result.data === "string" && result.data !== "") {
    try {
      const data = TxMsgData.decode(Buffer.from(result.data, "base64"));
      const first = data.msgResponses[0];
      if (first?.typeUrl === TYPE_URL.submitProposalResponse) return MsgSubmitProposalResponse.decode(first.value).proposalId.toString();
    } catch {
      /* fall back to the events */
    }
  }
  if (Array.isArray(result.events)) {
    for (const ev of result.events) {
      if (!isObject(ev) || ev.type !== "submit_proposal" || !Array.isArray(ev.attributes)) continue;
      for (const a of ev.attributes) {
        if (isObject(a) && a.key === "proposal_id" && typeof a.value === "string") return a.value;
      }
    }
  }
  return undefined;
}

/** The printed result: txhash, code, height (and proposal_id for a proposal). */
/** `--offline`: the signed transaction, not broadcast. */
export function signedTxJson(t: SignedTx): JsonValue {
  return { txhash: t.txhash, tx_bytes: Buffer.from(t.txBytes).toString("base64") };
}

export function txResultJson(r: Included, withProposal: boolean): JsonValue {
  const out: { [k: string]: JsonValue } = { txhash: r.txhash, code: r.code, height: r.height.toString() };
  if (withProposal) out.proposal_id = r.proposalId ?? "";
  return out;
}

/**
 * The end of every tx command: `--generate-only` prints the unsigned tx; `--offline` signs with the given
 * account number and sequence and prints the signed tx; otherwise status → command checks → account →
 * sign → broadcast → wait → print.
 */
export async function runTx(
  ctx: Context,
  opts: TxOpts,
  signer: Signer,
  msgs: Msg[],
  settings: TxSettings,
  kind: { proposal: boolean; checks?: (rpc: CometRpc, height: bigint) => Promise<void> },
): Promise<void> {
  const offline = offlineAccount(opts);
  if (opts.generateOnly) {
    process.stdout.write(toJson(unsignedTxJson(msgs, settings.memo, { amount: settings.fees, gasLimit: settings.gas })) + "\n");
    return;
  }
  const yes = Boolean(opts.yes);
  if (offline) {
    const signed = await buildAndSign({ ctx, signer, msgs, settings, chainId: opts.chainId!, yes, account: offline });
    print(signedTxJson(signed), ctx.output);
    return;
  }
  const rpc = ctx.rpc();
  const status = await nodeStatus(rpc);
  await kind.checks?.(rpc, status.height);
  const chainId = opts.chainId ?? ctx.config["chain-id"] ?? status.network;
  const result = await signAndBroadcast({ ctx, rpc, signer, msgs, settings, chainId, yes });
  print(txResultJson(result, kind.proposal), ctx.output);
}
