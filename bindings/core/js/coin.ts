/** The pure-TS twin of assembly/coin.ts: the same checks in the same order, with BigInt for the range. The text is checked by the caller (index.ts). */
import { CoinStatus, MAX_UINT256, coinError, type Coin } from "../coin.js";

const MAX_DIGITS = 78; // 2^256 - 1 has 78 decimal digits
const DENOM = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

export function parseCoin(text: string): Coin {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (start === end) throw coinError(text, CoinStatus.Empty, "");
  if (text.charCodeAt(start) === 0x2d) throw coinError(text, CoinStatus.Negative, "");

  let i = start;
  while (i < end && isDigit(text.charCodeAt(i))) i++;
  const digitsEnd = i;
  if (i < end && text.charCodeAt(i) === 0x2e) throw coinError(text, CoinStatus.NotWhole, "");
  if (digitsEnd === start) throw coinError(text, CoinStatus.NoAmount, "");

  let d = start;
  while (d < digitsEnd - 1 && text.charCodeAt(d) === 0x30) d++;
  if (digitsEnd - d > MAX_DIGITS) throw coinError(text, CoinStatus.Overflow, "");
  const amount = BigInt(text.slice(d, digitsEnd));
  if (amount > MAX_UINT256) throw coinError(text, CoinStatus.Overflow, "");

  while (i < end && isSpace(text.charCodeAt(i))) i++;
  const denom = text.slice(i, end);
  if (denom === "") throw coinError(text, CoinStatus.NoDenom, "");
  if (!DENOM.test(denom)) throw coinError(text, CoinStatus.BadDenom, denom);
  return { amount: amount.toString(), denom };
}
