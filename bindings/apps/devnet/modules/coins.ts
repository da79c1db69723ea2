/**
 * Coins for the modules' arithmetic (`10000000stake`): amounts as bigint (the chain's JSON and protobuf coin, amounts
 * as digits, is core/types.ts Coin), and the 18-decimal `sdk.Dec` strings of gov params.
 */
import { MAX_UINT256, parseCoinList } from "../../../core/coin.js";
import type { Core } from "../../../core/contract.js";
import { InvalidDecimalError } from "../shared/errors.js";

export interface Coin {
  denom: string;
  amount: bigint;
}

const DENOM = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;

export function isDenom(denom: string): boolean {
  return DENOM.test(denom);
}

/** `<amount><denom>[,…]` → coins sorted by denom (the core parses each coin; see parseCoinList). */
export function parseCoins(core: Pick<Core, "parseCoin">, text: string): Coin[] {
  if (typeof text !== "string") throw new TypeError("coins must be a string");
  return parseCoinList(core, text).map((c) => ({ denom: c.denom, amount: BigInt(c.amount) }));
}

/** Merges duplicates, drops zero amounts, sorts by denom. */
export function normalize(coins: readonly Coin[]): Coin[] {
  const map = new Map<string, bigint>();
  for (const c of coins) map.set(c.denom, (map.get(c.denom) ?? 0n) + c.amount);
  return [...map]
    .filter(([, a]) => a !== 0n)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([denom, amount]) => ({ denom, amount }));
}

export function coinsToString(coins: readonly Coin[]): string {
  return coins.map((c) => `${c.amount}${c.denom}`).join(",");
}

/** Coins from protobuf `{denom, amount: string}`; invalid → throws `<coins>: invalid coins`. */
export function fromProtoCoins(coins: readonly { denom: string; amount: string }[]): Coin[] {
  const out: Coin[] = [];
  const seen = new Set<string>();
  for (const c of coins) {
    if (!isDenom(c.denom) || !/^[0-9]+$/.test(c.amount) || BigInt(c.amount) > MAX_UINT256 || seen.has(c.denom)) {
      throw new InvalidCoinsError(coins.map((x) => `${x.amount}${x.denom}`).join(","));
    }
    seen.add(c.denom);
    out.push({ denom: c.denom, amount: BigInt(c.amount) });
  }
  return normalize(out);
}

export class InvalidCoinsError extends Error {
  constructor(readonly coins: string) {
    super(`${coins}: invalid coins`);
  }
}

export function toProtoCoins(coins: readonly Coin[]): { denom: string; amount: string }[] {
  return coins.map((c) => ({ denom: c.denom, amount: c.amount.toString() }));
}

// ---- sdk.Dec (18 decimals) ----

export const DEC_ONE = 10n ** 18n;

/** "0.334" / "0.334000000000000000" / "1" → value × 10^18. */
export function parseDec(text: string): bigint {
  const m = /^([0-9]+)(?:\.([0-9]{1,18}))?$/.exec(text);
  if (!m) throw new InvalidDecimalError(`invalid decimal "${text}"`);
  return BigInt(m[1]) * DEC_ONE + BigInt((m[2] ?? "").padEnd(18, "0") || "0");
}

/** value × 10^18 → "0.334000000000000000" (LegacyDec.String()). */
export function formatDec(v: bigint): string {
  const neg = v < 0n;
  const u = neg ? -v : v;
  return `${neg ? "-" : ""}${u / DEC_ONE}.${(u % DEC_ONE).toString().padStart(18, "0")}`;
}
