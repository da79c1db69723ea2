/** The wasm side of parseCoin: the text goes into IO as UTF-8, the core answers a status, the amount (32 big-endian bytes in OUT) and the denom (header name fields). */
import { CoinStatus, amountFromBE32, coinError, type ParsedCoin } from "../coin.js";
import type { CoreInstance } from "./instance.js";
import { H_NAME_LEN, H_NAME_PTR } from "./layout.js";

interface CoinExports {
  parseCoin(len: number): number;
}

export function wasmParseCoin(c: CoreInstance, text: string): ParsedCoin {
  const status = (c.x as unknown as CoinExports).parseCoin(c.putName(text));
  if (status !== CoinStatus.Ok) {
    throw coinError(text, status, status === CoinStatus.BadDenom ? c.str(H_NAME_PTR, H_NAME_LEN) : "");
  }
  return { amount: amountFromBE32(c.out()), denom: c.str(H_NAME_PTR, H_NAME_LEN) };
}
