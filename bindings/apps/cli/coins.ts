/**
 * Coin lists for `--deposit` and `--fees` (`<amount><denom>[,…]`). Each coin is parsed and range-checked
 * by the core (Core.parseCoin: as-bignum u256 in the .wasm, BigInt in the TS twin); the list is then
 * sorted by denom, duplicates refused and zero amounts dropped, as the SDK's ParseCoinsNormalized.
 */
import type { Core } from "../../core/contract.js";
import { InvalidCoinError } from "../../core/coin.js";
import { CliError } from "./errors.js";
import type { Coin } from "./tx/proto.js";

/** `label` words the error: `invalid deposit "1.5stake": amount must be a whole number`. */
export function parseCoinList(core: Core, text: string, label: string): Coin[] {
  if (text.trim() === "") return [];
  const coins: Coin[] = [];
  for (const part of text.split(",")) {
    let coin;
    try {
      coin = core.parseCoin(part);
    } catch (e) {
      if (e instanceof InvalidCoinError) throw new CliError(`${label} ${JSON.stringify(part.trim())}: ${e.reason}`);
      throw e;
    }
    coins.push(coin);
  }
  coins.sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
  for (let i = 1; i < coins.length; i++) {
    if (coins[i].denom === coins[i - 1].denom) throw new CliError(`${label} ${JSON.stringify(text)}: duplicate denomination ${coins[i].denom}`);
  }
  return coins.filter((c) => c.amount !== "0");
}

/** True when `have` covers every denom of `need` (the SDK's IsAllGTE). */
export function coversAll(have: Coin[], need: Coin[]): boolean {
  return need.every((n) => BigInt(have.find((h) => h.denom === n.denom)?.amount ?? "0") >= BigInt(n.amount));
}

export function coinsText(coins: Coin[]): string {
  return coins.map((c) => c.amount + c.denom).join(",");
}
