/**
 * Coin expressions (`<amount><denom>`, e.g. a deposit `10000000stake`): the result codes of the
 * AssemblyScript core (assembly/coin.ts, generated into constants.generated.ts as CoinStatus) and the
 * pure-TS core (js/coin.ts), and their translation into one typed error, so both backends word failures
 * identically.
 */
import type { Core } from "./contract.js";
import { UpgradeError } from "./errors.js";
import { CoinStatus } from "./constants.generated.js";
import type { Coin } from "./types.js";

export type { Coin };

/** Whether `have` holds at least `need` of every denom of `need` (the SDK's IsAllGTE); amounts as digits or bigints. */
export function coversAll(have: readonly { denom: string; amount: string | bigint }[], need: readonly { denom: string; amount: string | bigint }[]): boolean {
  return need.every((n) => BigInt(have.find((h) => h.denom === n.denom)?.amount ?? 0n) >= BigInt(n.amount));
}

export { CoinStatus };

export const MAX_UINT256 = (1n << 256n) - 1n;

/** Why a coin expression was refused, in words (the part after `invalid coin "<text>": `). */
export function coinReason(status: number, denom: string): string {
  switch (status) {
    case CoinStatus.Empty:
      return "empty coin expression";
    case CoinStatus.Negative:
      return "amount must not be negative";
    case CoinStatus.NotWhole:
      return "amount must be a whole number";
    case CoinStatus.NoAmount:
      return "amount must start with decimal digits";
    case CoinStatus.Overflow:
      return "amount exceeds 2^256-1";
    case CoinStatus.NoDenom:
      return "missing denom";
    case CoinStatus.BadDenom:
      return `invalid denom ${JSON.stringify(denom)}: must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}`;
    default:
      // An invariant: both cores return only the statuses above.
      throw new Error(`core returned unknown coin status ${status}`);
  }
}

/** An invalid coin expression: `invalid coin "<text>": <reason>`; `reason` alone is kept for callers that re-word it. */
export class InvalidCoinError extends UpgradeError {
  constructor(
    readonly text: string,
    readonly reason: string,
  ) {
    super("xupgrade", 4, `invalid coin ${JSON.stringify(text)}: ${reason}`, "invalid-request");
  }
}

export function coinError(text: string, status: number, denom: string): InvalidCoinError {
  return new InvalidCoinError(text, coinReason(status, denom));
}

/** 32 big-endian bytes → decimal digits. */
export function amountFromBE32(bytes: Uint8Array): string {
  let v = 0n;
  for (let i = 0; i < bytes.length; i++) v = (v << 8n) | BigInt(bytes[i]);
  return v.toString();
}

/** A coin list naming one denomination twice. */
export class DuplicateDenomError extends UpgradeError {
  constructor(
    readonly text: string,
    readonly denom: string,
  ) {
    super("xupgrade", 4, `invalid coins ${JSON.stringify(text)}: duplicate denomination ${denom}`, "invalid-request");
  }
}

/**
 * `<coin>[,<coin>…]` as the SDK's ParseCoinsNormalized reads it: each coin parsed by the core, the list
 * sorted by denom, a repeated denom refused, zero amounts dropped. Blank text is the empty list.
 */
export function parseCoinList(core: Pick<Core, "parseCoin">, text: string): Coin[] {
  if (text.trim() === "") return [];
  const coins = text.split(",").map((part) => core.parseCoin(part));
  coins.sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
  for (let i = 1; i < coins.length; i++) {
    if (coins[i].denom === coins[i - 1].denom) throw new DuplicateDenomError(text, coins[i].denom);
  }
  return coins.filter((c) => c.amount !== "0");
}
