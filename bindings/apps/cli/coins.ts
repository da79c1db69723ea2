/**
 * Coin lists for `--deposit` and `--fees` (`<amount><denom>[,…]`). Each coin is parsed and range-checked
 * by the core (Core.parseCoin: as-bignum u256 in the .wasm, BigInt in the TS twin); the list is then
 * sorted by denom, duplicates refused and zero amounts dropped, as the SDK's ParseCoinsNormalized.
 */
import type { Core } from "../../core/contract.js";
import { DuplicateDenomError, InvalidCoinError, parseCoinList as parseCoins } from "../../core/coin.js";
import { CliError } from "./errors.js";
import type { Coin } from "../../core/types.js";

/** `label` words the error: `invalid deposit "1.5stake": amount must be a whole number`. */
export function parseCoinList(core: Core, text: string, label: string): Coin[] {
  try {
    return parseCoins(core, text);
  } catch (e) {
    if (e instanceof InvalidCoinError) throw new CliError(`${label} ${JSON.stringify(e.text.trim())}: ${e.reason}`);
    if (e instanceof DuplicateDenomError) throw new CliError(`${label} ${JSON.stringify(text)}: duplicate denomination ${e.denom}`);
    throw e;
  }
}
