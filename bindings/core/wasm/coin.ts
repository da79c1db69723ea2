/**
 * The wasm side of parseCoin (assembly/coin.ts): the text (checked by the caller, index.ts) goes into IO as
 * UTF-8, the core answers a status, the amount (32 big-endian bytes in OUT) and the denom (header name fields).
 */
import { CoinStatus, amountFromBE32, coinError, type Coin } from "../coin.js";
import { H_NAME_LEN, H_NAME_PTR } from "../constants.generated.js";
import type { CoreInstance } from "./instance.js";

export function parseCoin(c: CoreInstance, text: string): Coin {
  const status = c.x.parseCoin(c.putName(text));
  if (status !== CoinStatus.Ok) {
    throw coinError(text, status, status === CoinStatus.BadDenom ? c.str(H_NAME_PTR, H_NAME_LEN) : "");
  }
  return { amount: amountFromBE32(c.out()), denom: c.str(H_NAME_PTR, H_NAME_LEN) };
}
