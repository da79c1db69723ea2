/**
 * Cosmos transactions: decoding TxRaw (docs/spec/interfaces.md §8) and the ante handler — signer accounts,
 * public keys, sequences, secp256k1 SIGN_MODE_DIRECT signature verification, fees — with the SDK's
 * error codes and logs (docs/spec/interfaces.md §7).
 */
import { Secp256k1, Secp256k1Signature } from "@cosmjs/crypto";
import { AuthInfo, SignDoc, TxBody, TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { SignMode } from "cosmjs-types/cosmos/tx/signing/v1beta1/signing";
import { PubKey } from "cosmjs-types/cosmos/crypto/secp256k1/keys";
import { MsgDeposit, MsgSubmitProposal, MsgVote } from "cosmjs-types/cosmos/gov/v1/tx";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { AUTH_STORE, SECP256K1_PUBKEY_TYPE_URL, getAccount, setAccount } from "../modules/auth.js";
import { send } from "../modules/bank.js";
import type { StoreView } from "../shared/branch.js";
import { coinsToString, fromProtoCoins, InvalidCoinsError, type Coin } from "../modules/coins.js";
import { MalformedMessageError, TxError, txErrors } from "../shared/errors.js";
import type { ChainEvent } from "../shared/events.js";
import { addressOfPubkey, isAddress, moduleAddress } from "../../../client/address.js";
import { MSG_CANCEL_UPGRADE_TYPE_URL, MSG_SOFTWARE_UPGRADE_TYPE_URL } from "../../../module/msgs.js";
import { base64, hexUpper, sha256 } from "../shared/util.js";
import { messageOf } from "../../../base/errors.js";

export const MSG_SUBMIT_PROPOSAL = "/cosmos.gov.v1.MsgSubmitProposal";
export const MSG_VOTE = "/cosmos.gov.v1.MsgVote";
export const MSG_DEPOSIT = "/cosmos.gov.v1.MsgDeposit";
export const MSG_SEND = "/cosmos.bank.v1beta1.MsgSend";
export const FEE_COLLECTOR = moduleAddress("fee_collector");

const MAX_TX_BYTES = 1024 * 1024;
const MAX_MEMO_CHARS = 256;
const TX_SIZE_COST_PER_BYTE = 10n;
const SIG_VERIFY_COST_SECP256K1 = 1000n;
const GAS_PER_MSG = 10_000n;
/** secp256k1 group order / 2: signatures with a larger S are malleable and refused, as in the SDK. */
const HALF_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n >> 1n;

export interface TxMsg {
  typeUrl: string;
  value: Uint8Array;
  /** The address that must sign this message. */
  signer: string;
}

export interface DecodedTx {
  bytes: Uint8Array;
  hash: Uint8Array;
  /** Uppercase hex of sha256(TxRaw bytes). */
  hashHex: string;
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  signatures: Uint8Array[];
  body: TxBody;
  authInfo: AuthInfo;
  msgs: TxMsg[];
  /** Unique signers in order of first appearance; the first pays the fee. */
  signers: string[];
}

/** Decodes TxRaw bytes; anything malformed is sdk/2 `…: tx parse error`. */
export function decodeTx(bytes: Uint8Array): DecodedTx {
  if (bytes.length === 0) throw txErrors.txDecode("tx bytes are empty");
  if (bytes.length > MAX_TX_BYTES) throw txErrors.txTooLarge(`tx bytes ${bytes.length} exceed ${MAX_TX_BYTES}`);
  let raw: TxRaw;
  let body: TxBody;
  let authInfo: AuthInfo;
  try {
    raw = TxRaw.decode(bytes);
    body = TxBody.decode(raw.bodyBytes);
    authInfo = AuthInfo.decode(raw.authInfoBytes);
  } catch (e) {
    throw txErrors.txDecode(messageOf(e));
  }
  if (body.messages.length === 0) throw txErrors.invalidRequest("must contain at least one message");
  const msgs = body.messages.map((any) => ({ typeUrl: any.typeUrl, value: any.value, signer: signerOf(any.typeUrl, any.value) }));
  const signers: string[] = [];
  for (const m of msgs) if (!signers.includes(m.signer)) signers.push(m.signer);
  const hash = sha256(bytes);
  return {
    bytes,
    hash,
    hashHex: hexUpper(hash),
    bodyBytes: raw.bodyBytes,
    authInfoBytes: raw.authInfoBytes,
    signatures: raw.signatures,
    body,
    authInfo,
    msgs,
    signers,
  };
}

function signerOf(typeUrl: string, value: Uint8Array): string {
  let signer: string;
  let what: string;
  try {
    switch (typeUrl) {
      case MSG_SUBMIT_PROPOSAL:
        [signer, what] = [MsgSubmitProposal.decode(value).proposer, "proposer"];
        break;
      case MSG_VOTE:
        [signer, what] = [MsgVote.decode(value).voter, "voter"];
        break;
      case MSG_DEPOSIT:
        [signer, what] = [MsgDeposit.decode(value).depositor, "depositor"];
        break;
      case MSG_SEND:
        [signer, what] = [MsgSend.decode(value).fromAddress, "from"];
        break;
      case MSG_SOFTWARE_UPGRADE_TYPE_URL:
      case MSG_CANCEL_UPGRADE_TYPE_URL:
        [signer, what] = [authorityOf(value), "authority"];
        break;
      default:
        throw txErrors.txDecode(`unable to resolve type URL ${typeUrl}`);
    }
  } catch (e) {
    if (e instanceof TxError) throw e;
    throw txErrors.txDecode(`${typeUrl}: ${messageOf(e)}`);
  }
  if (!isAddress(signer)) throw txErrors.invalidAddress(`invalid ${what} address ${JSON.stringify(signer)}`);
  return signer;
}

/** Field 1 (authority) of MsgSoftwareUpgrade / MsgCancelUpgrade, read without decoding the plan. */
export function authorityOf(value: Uint8Array): string {
  // Both messages start with `string authority = 1`; a tolerant scan finds it wherever it is.
  let authority = "";
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      if (i >= value.length) throw new MalformedMessageError("unexpected end of message");
      const b = value[i++];
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
      if (shift > 63) throw new MalformedMessageError("varint overflow");
    }
  };
  while (i < value.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) varint();
    else if (wire === 2) {
      const len = varint();
      if (i + len > value.length) throw new MalformedMessageError("length past the end of the message");
      if (field === 1) authority = new TextDecoder("utf-8", { fatal: true }).decode(value.subarray(i, i + len));
      i += len;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new MalformedMessageError(`illegal wire type ${wire}`);
  }
  return authority;
}

export interface AnteResult {
  gasWanted: bigint;
  gasUsed: bigint;
  events: ChainEvent[];
}

export interface AnteOptions {
  chainId: string;
  height: bigint;
  /** Simulation (`/cosmos.tx.v1beta1.Service/Simulate`): signatures are not verified, as in the SDK. */
  simulate?: boolean;
}

/**
 * The ante handler, in the SDK's order: basic checks, timeout height, memo, tx-size gas, fee deduction,
 * public keys, signature count, sequences and signatures, sequence increments. Throws a TxError; the
 * caller runs it on a branch and discards the branch on failure.
 */
export function runAnte(view: StoreView, tx: DecodedTx, options: AnteOptions): AnteResult {
  const { body, authInfo } = tx;
  if (body.extensionOptions.length > 0) throw txErrors.unknownExtensionOptions();
  if (tx.signatures.length === 0) throw txErrors.noSignatures();
  if (tx.signatures.length !== tx.signers.length) {
    throw txErrors.unauthorized(`wrong number of signers; expected ${tx.signers.length}, got ${tx.signatures.length}`);
  }
  if (authInfo.signerInfos.length !== tx.signers.length) {
    throw txErrors.unauthorized(`wrong number of signers; expected ${tx.signers.length}, got ${authInfo.signerInfos.length}`);
  }
  const fee = authInfo.fee;
  let feeCoins: Coin[];
  try {
    feeCoins = fromProtoCoins(fee?.amount ?? []);
  } catch (e) {
    if (e instanceof InvalidCoinsError) throw txErrors.insufficientFee(`invalid fee amount ${e.coins}`);
    throw e;
  }
  const gasWanted = fee?.gasLimit ?? 0n;
  if (fee?.granter) throw txErrors.notSupported("fee grants are not supported by the devnet");
  if (fee?.payer && fee.payer !== tx.signers[0]) throw txErrors.notSupported("a fee payer other than the first signer is not supported by the devnet");

  if (body.timeoutHeight !== 0n && options.height > body.timeoutHeight) {
    throw txErrors.txTimeoutHeight(`block height: ${options.height}, timeout height: ${body.timeoutHeight}`);
  }
  const memoChars = [...body.memo].length;
  if (memoChars > MAX_MEMO_CHARS) {
    throw txErrors.memoTooLarge(`maximum number of characters is ${MAX_MEMO_CHARS} but received ${memoChars} characters`);
  }
  let gasUsed = TX_SIZE_COST_PER_BYTE * BigInt(tx.bytes.length);
  const outOfGas = (where: string) => txErrors.outOfGas(`out of gas in location: ${where}; gasWanted: ${gasWanted}, gasUsed: ${gasUsed}`);
  // Simulation runs on an infinite gas meter (the SDK's), so the limit is not checked there.
  const limited = !options.simulate;
  if (limited && gasUsed > gasWanted) throw outOfGas("txSize");

  const auth = view.store(AUTH_STORE);
  const events: ChainEvent[] = [];
  // Fees.
  const payer = tx.signers[0];
  if (!getAccount(auth, payer)) throw txErrors.unknownAddress(`fee payer address: ${payer} does not exist`);
  if (feeCoins.length > 0) send(view, payer, FEE_COLLECTOR, feeCoins);
  events.push({
    type: "tx",
    attributes: [
      ["fee", coinsToString(feeCoins)],
      ["fee_payer", payer],
    ],
  });

  // Public keys.
  const pubKeys: Uint8Array[] = [];
  for (const [i, signer] of tx.signers.entries()) {
    const acc = getAccount(auth, signer);
    if (!acc) throw txErrors.unknownAddress(`account ${signer} does not exist`);
    const info = authInfo.signerInfos[i];
    let pk: Uint8Array | undefined;
    if (info.publicKey) {
      if (info.publicKey.typeUrl !== SECP256K1_PUBKEY_TYPE_URL) {
        throw txErrors.invalidPubKey(`can only accept ${SECP256K1_PUBKEY_TYPE_URL} public keys, got ${info.publicKey.typeUrl}`);
      }
      try {
        pk = PubKey.decode(info.publicKey.value).key;
      } catch (e) {
        throw txErrors.txDecode(messageOf(e));
      }
      if (pk.length !== 33 || addressOfSafe(pk) !== signer) {
        throw txErrors.invalidPubKey(`pubKey does not match signer address ${signer} with signer index: ${i}`);
      }
    }
    const key = acc.pubKey ?? pk;
    if (!key) throw txErrors.invalidPubKey(`pubKey on account is not set and tx has no public key for signer index ${i}`);
    if (!acc.pubKey) setAccount(auth, { ...acc, pubKey: key });
    pubKeys.push(key);
  }

  // Sequences and signatures.
  for (const [i, signer] of tx.signers.entries()) {
    const acc = getAccount(auth, signer)!;
    const info = authInfo.signerInfos[i];
    gasUsed += SIG_VERIFY_COST_SECP256K1;
    if (limited && gasUsed > gasWanted) throw outOfGas("verify signature");
    if (info.sequence !== acc.sequence) {
      throw txErrors.wrongSequence(`account sequence mismatch, expected ${acc.sequence}, got ${info.sequence}`);
    }
    const mode = info.modeInfo?.single?.mode;
    if (mode !== SignMode.SIGN_MODE_DIRECT && !options.simulate) {
      throw txErrors.unauthorized(
        `unsupported sign mode ${mode === undefined ? "(multi or none)" : (SignMode[mode] ?? mode)}; the devnet verifies SIGN_MODE_DIRECT`,
      );
    }
    const signDoc = SignDoc.encode({
      bodyBytes: tx.bodyBytes,
      authInfoBytes: tx.authInfoBytes,
      chainId: options.chainId,
      accountNumber: acc.accountNumber,
    }).finish();
    if (!options.simulate && !verifySecp256k1(pubKeys[i], sha256(signDoc), tx.signatures[i])) {
      throw txErrors.unauthorized(
        `signature verification failed; please verify account number (${acc.accountNumber}), sequence (${acc.sequence}) and chain-id (${options.chainId})`,
      );
    }
    events.push({ type: "tx", attributes: [["acc_seq", `${signer}/${acc.sequence}`]] });
    events.push({ type: "tx", attributes: [["signature", base64(tx.signatures[i])]] });
  }
  for (const signer of tx.signers) {
    const acc = getAccount(auth, signer)!;
    setAccount(auth, { ...acc, sequence: acc.sequence + 1n });
  }
  return { gasWanted, gasUsed, events };
}

/** Gas the messages cost on top of the ante handler's. */
export function messageGas(tx: DecodedTx): bigint {
  return GAS_PER_MSG * BigInt(tx.msgs.length);
}

function addressOfSafe(pk: Uint8Array): string | undefined {
  try {
    return addressOfPubkey(pk);
  } catch {
    return undefined;
  }
}

/** A 64-byte r‖s signature over a 32-byte hash, with a low S as the SDK requires. */
export function verifySecp256k1(pubKey: Uint8Array, hash: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  try {
    const sig = Secp256k1Signature.fromFixedLength(signature);
    const s = BigInt("0x" + Buffer.from(sig.s()).toString("hex"));
    if (s > HALF_N) return false;
    return Secp256k1.verifySignature(sig, hash, pubKey);
  } catch {
    return false;
  }
}
