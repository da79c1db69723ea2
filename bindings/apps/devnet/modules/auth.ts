/**
 * x/auth, minimal: accounts with numbers, sequences and secp256k1 public keys; module accounts.
 * Store `auth`: `01 ‖ address bytes` → the account as a protobuf Any (BaseAccount or ModuleAccount, as the
 * SDK stores it); `02` → BE64 next account number.
 */
import { Any } from "cosmjs-types/google/protobuf/any";
import { BaseAccount, ModuleAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import { PubKey } from "cosmjs-types/cosmos/crypto/secp256k1/keys";
import type { KVStore } from "../../../core/kv.js";
import { addressBytes } from "../../../client/address.js";
import { be64, readBe64 } from "../shared/util.js";
import { concatBytes } from "../../../base/bytes.js";
import { CorruptStoreError } from "../../../store/errors.js";

export const AUTH_STORE = "auth";
const BASE_ACCOUNT_TYPE_URL = "/cosmos.auth.v1beta1.BaseAccount";
const MODULE_ACCOUNT_TYPE_URL = "/cosmos.auth.v1beta1.ModuleAccount";
export const SECP256K1_PUBKEY_TYPE_URL = "/cosmos.crypto.secp256k1.PubKey";

export interface Account {
  address: string;
  /** 33-byte compressed secp256k1 key, once the account has signed. */
  pubKey?: Uint8Array;
  accountNumber: bigint;
  sequence: bigint;
  /** Set for module accounts. */
  module?: { name: string; permissions: string[] };
}

const NEXT_NUMBER_KEY = Uint8Array.of(0x02);
const accountKey = (address: string) => concatBytes(Uint8Array.of(0x01), addressBytes(address));

function encodeAccountAny(acc: Account): Any {
  const base = BaseAccount.fromPartial({
    address: acc.address,
    pubKey: acc.pubKey ? { typeUrl: SECP256K1_PUBKEY_TYPE_URL, value: PubKey.encode({ key: acc.pubKey }).finish() } : undefined,
    accountNumber: acc.accountNumber,
    sequence: acc.sequence,
  });
  if (acc.module) {
    return {
      typeUrl: MODULE_ACCOUNT_TYPE_URL,
      value: ModuleAccount.encode({ baseAccount: base, name: acc.module.name, permissions: acc.module.permissions }).finish(),
    };
  }
  return { typeUrl: BASE_ACCOUNT_TYPE_URL, value: BaseAccount.encode(base).finish() };
}

function decodeAccountAny(any: Any): Account {
  let base: BaseAccount | undefined;
  let module: Account["module"];
  if (any.typeUrl === MODULE_ACCOUNT_TYPE_URL) {
    const m = ModuleAccount.decode(any.value);
    base = m.baseAccount;
    module = { name: m.name, permissions: m.permissions };
  } else base = BaseAccount.decode(any.value);
  if (!base) throw new CorruptStoreError("module account without a base account");
  return {
    address: base.address,
    pubKey: base.pubKey ? PubKey.decode(base.pubKey.value).key : undefined,
    accountNumber: base.accountNumber,
    sequence: base.sequence,
    module,
  };
}

/** The raw Any bytes of an account (what Query/Account returns), or undefined. */
export function getAccountAnyBytes(store: KVStore, address: string): Uint8Array | undefined {
  return store.get(accountKey(address));
}

export function getAccount(store: KVStore, address: string): Account | undefined {
  const raw = store.get(accountKey(address));
  return raw === undefined ? undefined : decodeAccountAny(Any.decode(raw));
}

export function setAccount(store: KVStore, acc: Account): void {
  store.set(accountKey(acc.address), Any.encode(encodeAccountAny(acc)).finish());
}

function nextAccountNumber(store: KVStore): bigint {
  const raw = store.get(NEXT_NUMBER_KEY);
  const n = raw === undefined ? 0n : readBe64(raw);
  store.set(NEXT_NUMBER_KEY, be64(n + 1n));
  return n;
}

/** Creates an account with the next number (the SDK does this when an address first receives coins). */
export function newAccount(store: KVStore, address: string, module?: Account["module"]): Account {
  const acc: Account = { address, accountNumber: nextAccountNumber(store), sequence: 0n, module };
  setAccount(store, acc);
  return acc;
}

export function ensureAccount(store: KVStore, address: string): Account {
  return getAccount(store, address) ?? newAccount(store, address);
}

/** Genesis: an account with a fixed number; the next-number counter moves past it. */
export function initGenesisAccount(store: KVStore, address: string, accountNumber: bigint, module?: Account["module"]): void {
  setAccount(store, { address, accountNumber, sequence: 0n, module });
  const raw = store.get(NEXT_NUMBER_KEY);
  const next = raw === undefined ? 0n : readBe64(raw);
  if (accountNumber >= next) store.set(NEXT_NUMBER_KEY, be64(accountNumber + 1n));
}
