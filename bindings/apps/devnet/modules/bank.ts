/**
 * x/bank, minimal: balances, transfers, the supply, burning.
 * Store `bank`: `02 ‖ len(addr) ‖ addr ‖ denom` → decimal amount; `00 ‖ denom` → decimal supply.
 */
import type { KVStore } from "../../../core/kv.js";
import { AUTH_STORE, ensureAccount } from "./auth.js";
import type { StoreView } from "../shared/branch.js";
import { coinsToString, normalize, type Coin } from "./coins.js";
import { txErrors } from "../shared/errors.js";
import type { ChainEvent } from "../shared/events.js";
import { addressBytes } from "../../../client/address.js";
import { fromUtf8, utf8 } from "../shared/util.js";
import { concatBytes } from "../../../base/bytes.js";

const BANK_STORE = "bank";
const BALANCE = 0x02;
const SUPPLY = 0x00;

function addrPrefix(address: string): Uint8Array {
  const a = addressBytes(address);
  return concatBytes(Uint8Array.of(BALANCE, a.length), a);
}

function balanceKey(address: string, denom: string): Uint8Array {
  return concatBytes(addrPrefix(address), utf8(denom));
}

const readAmount = (raw: Uint8Array | undefined) => (raw === undefined ? 0n : BigInt(fromUtf8(raw)));
const writeAmount = (store: KVStore, key: Uint8Array, v: bigint) => (v === 0n ? store.delete(key) : store.set(key, utf8(v.toString())));

export function balance(view: StoreView, address: string, denom: string): bigint {
  return readAmount(view.store(BANK_STORE).get(balanceKey(address, denom)));
}

export function balances(view: StoreView, address: string): Coin[] {
  const prefix = addrPrefix(address);
  const end = prefix.slice();
  end[end.length - 1]++;
  const out: Coin[] = [];
  for (const [k, v] of view.store(BANK_STORE).iterate(prefix, end)) {
    if (k.length <= prefix.length) continue;
    out.push({ denom: fromUtf8(k.subarray(prefix.length)), amount: readAmount(v) });
  }
  return out;
}

export function supply(view: StoreView, denom: string): bigint {
  return readAmount(view.store(BANK_STORE).get(concatBytes(Uint8Array.of(SUPPLY), utf8(denom))));
}

/** Subtracts coins; throws sdk/5 `spendable balance <b> is smaller than <c>: insufficient funds`. */
function subtract(view: StoreView, address: string, coins: readonly Coin[]): void {
  const store = view.store(BANK_STORE);
  for (const c of coins) {
    const have = balance(view, address, c.denom);
    if (have < c.amount) {
      throw txErrors.insufficientFunds(`spendable balance ${have}${c.denom} is smaller than ${c.amount}${c.denom}`);
    }
  }
  for (const c of coins) writeAmount(store, balanceKey(address, c.denom), balance(view, address, c.denom) - c.amount);
}

function add(view: StoreView, address: string, coins: readonly Coin[]): void {
  const store = view.store(BANK_STORE);
  for (const c of coins) writeAmount(store, balanceKey(address, c.denom), balance(view, address, c.denom) + c.amount);
  ensureAccount(view.store(AUTH_STORE), address);
}

/** Moves coins; the recipient's account is created if missing (as the SDK's SendCoins). Returns transfer events. */
export function send(view: StoreView, from: string, to: string, coins: readonly Coin[]): ChainEvent[] {
  const c = normalize(coins);
  subtract(view, from, c);
  add(view, to, c);
  const amount = coinsToString(c);
  return [
    {
      type: "coin_spent",
      attributes: [
        ["spender", from],
        ["amount", amount],
      ],
    },
    {
      type: "coin_received",
      attributes: [
        ["receiver", to],
        ["amount", amount],
      ],
    },
    {
      type: "transfer",
      attributes: [
        ["recipient", to],
        ["sender", from],
        ["amount", amount],
      ],
    },
  ];
}

export function mint(view: StoreView, to: string, coins: readonly Coin[]): void {
  const store = view.store(BANK_STORE);
  for (const c of normalize(coins)) {
    writeAmount(store, concatBytes(Uint8Array.of(SUPPLY), utf8(c.denom)), supply(view, c.denom) + c.amount);
  }
  add(view, to, normalize(coins));
}

export function burn(view: StoreView, from: string, coins: readonly Coin[]): ChainEvent[] {
  const c = normalize(coins);
  subtract(view, from, c);
  const store = view.store(BANK_STORE);
  for (const x of c) writeAmount(store, concatBytes(Uint8Array.of(SUPPLY), utf8(x.denom)), supply(view, x.denom) - x.amount);
  return [
    {
      type: "burn",
      attributes: [
        ["burner", from],
        ["amount", coinsToString(c)],
      ],
    },
  ];
}
