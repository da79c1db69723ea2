/**
 * Protobuf bytes of the transaction envelope (docs/spec/interfaces.md §8), written as Go's gogoproto does: fields in
 * number order, proto3 defaults omitted, message fields written when set. The @bufbuild/protobuf wire
 * writer is used rather than cosmjs-types' encoders, which write uint64/int64 values in [2^31, 2^32)
 * wrongly (gas limits, account numbers, proposal ids); cosmjs-types is used for decoding only.
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Coin } from "../../../core/types.js";

export const TYPE_URL = {
  submitProposal: "/cosmos.gov.v1.MsgSubmitProposal",
  submitProposalResponse: "/cosmos.gov.v1.MsgSubmitProposalResponse",
  vote: "/cosmos.gov.v1.MsgVote",
  send: "/cosmos.bank.v1beta1.MsgSend",
  secp256k1PubKey: "/cosmos.crypto.secp256k1.PubKey",
  baseAccount: "/cosmos.auth.v1beta1.BaseAccount",
} as const;

export const SIGN_MODE_DIRECT = 1;

export interface AnyMsg {
  typeUrl: string;
  value: Uint8Array;
}

export interface MsgSubmitProposal {
  messages: AnyMsg[];
  initialDeposit: Coin[];
  proposer: string;
  metadata: string;
  title: string;
  summary: string;
  expedited: boolean;
}

export interface MsgVote {
  proposalId: bigint;
  voter: string;
  /** VoteOption: 1 yes, 2 abstain, 3 no, 4 no_with_veto */
  option: number;
  metadata: string;
}

export interface MsgSend {
  fromAddress: string;
  toAddress: string;
  amount: Coin[];
}

export interface TxBody {
  messages: AnyMsg[];
  memo: string;
  timeoutHeight: bigint;
}

export interface Fee {
  amount: Coin[];
  gasLimit: bigint;
  payer: string;
  granter: string;
}

export interface SignerInfo {
  /** 33-byte compressed secp256k1 key */
  pubkey: Uint8Array;
  sequence: bigint;
}

export interface AuthInfo {
  signerInfos: SignerInfo[];
  fee: Fee;
}

export interface SignDoc {
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  chainId: string;
  accountNumber: bigint;
}

export interface TxRaw {
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  signatures: Uint8Array[];
}

type Write = (w: BinaryWriter) => void;

function message(field: number, w: BinaryWriter, write: Write): void {
  const inner = new BinaryWriter();
  write(inner);
  w.tag(field, WireType.LengthDelimited).bytes(inner.finish());
}

function str(w: BinaryWriter, field: number, v: string): void {
  if (v !== "") w.tag(field, WireType.LengthDelimited).string(v);
}

function bytes(w: BinaryWriter, field: number, v: Uint8Array): void {
  if (v.length > 0) w.tag(field, WireType.LengthDelimited).bytes(v);
}

function u64(w: BinaryWriter, field: number, v: bigint): void {
  if (v !== 0n) w.tag(field, WireType.Varint).uint64(v);
}

const finish = (write: Write): Uint8Array => {
  const w = new BinaryWriter();
  write(w);
  return w.finish();
};

const writeAny =
  (a: AnyMsg): Write =>
  (w) => {
    str(w, 1, a.typeUrl);
    bytes(w, 2, a.value);
  };

const writeCoin =
  (c: Coin): Write =>
  (w) => {
    str(w, 1, c.denom);
    str(w, 2, c.amount);
  };

export function encodeMsgSubmitProposal(m: MsgSubmitProposal): Uint8Array {
  return finish((w) => {
    for (const a of m.messages) message(1, w, writeAny(a));
    for (const c of m.initialDeposit) message(2, w, writeCoin(c));
    str(w, 3, m.proposer);
    str(w, 4, m.metadata);
    str(w, 5, m.title);
    str(w, 6, m.summary);
    if (m.expedited) w.tag(7, WireType.Varint).bool(true);
  });
}

export function encodeMsgVote(m: MsgVote): Uint8Array {
  return finish((w) => {
    u64(w, 1, m.proposalId);
    str(w, 2, m.voter);
    if (m.option !== 0) w.tag(3, WireType.Varint).int32(m.option);
    str(w, 4, m.metadata);
  });
}

export function encodeMsgSend(m: MsgSend): Uint8Array {
  return finish((w) => {
    str(w, 1, m.fromAddress);
    str(w, 2, m.toAddress);
    for (const c of m.amount) message(3, w, writeCoin(c));
  });
}

export function encodeTxBody(b: TxBody): Uint8Array {
  return finish((w) => {
    for (const a of b.messages) message(1, w, writeAny(a));
    str(w, 2, b.memo);
    u64(w, 3, b.timeoutHeight);
  });
}

export function encodePubKey(key: Uint8Array): Uint8Array {
  return finish((w) => bytes(w, 1, key));
}

export function encodeAuthInfo(a: AuthInfo): Uint8Array {
  return finish((w) => {
    for (const s of a.signerInfos) {
      message(1, w, (si) => {
        message(1, si, writeAny({ typeUrl: TYPE_URL.secp256k1PubKey, value: encodePubKey(s.pubkey) }));
        message(2, si, (mi) => message(1, mi, (single) => single.tag(1, WireType.Varint).int32(SIGN_MODE_DIRECT)));
        u64(si, 3, s.sequence);
      });
    }
    message(2, w, (f) => {
      for (const c of a.fee.amount) message(1, f, writeCoin(c));
      u64(f, 2, a.fee.gasLimit);
      str(f, 3, a.fee.payer);
      str(f, 4, a.fee.granter);
    });
  });
}

export function encodeSignDoc(d: SignDoc): Uint8Array {
  return finish((w) => {
    bytes(w, 1, d.bodyBytes);
    bytes(w, 2, d.authInfoBytes);
    str(w, 3, d.chainId);
    u64(w, 4, d.accountNumber);
  });
}

export function encodeTxRaw(t: TxRaw): Uint8Array {
  return finish((w) => {
    bytes(w, 1, t.bodyBytes);
    bytes(w, 2, t.authInfoBytes);
    for (const s of t.signatures) w.tag(3, WireType.LengthDelimited).bytes(s);
  });
}
