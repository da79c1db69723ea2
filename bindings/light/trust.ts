/**
 * The trust root (docs/spec/light-client.md §2): a header the user accepts without proof — its chain, height
 * and hash, obtained out of band (a validator, an explorer, a friend) or on first use — and for how long a
 * verified header may vouch for later ones.
 */
import { fromHex } from "@cosmjs/encoding";
import { HOUR, SECOND } from "../go/duration.js";
import { TrustOptionsError } from "./errors.js";
import { parseDurationOption } from "../go/option.js";
import { messageOf } from "../base/errors.js";

/** Two weeks: CometBFT's advice for a chain whose unbonding period is three. */
export const DEFAULT_TRUSTING_PERIOD_NS = 14n * 24n * HOUR;
/** How far a header's time may run ahead of this clock (CometBFT's default). */
export const DEFAULT_MAX_CLOCK_DRIFT_NS = 10n * SECOND;
/** How long a witness may lag behind the primary before it counts as not answering (CometBFT's maxBlockLag). */
export const DEFAULT_MAX_BLOCK_LAG_MS = 10_000;

export interface TrustOptions {
  /** The trusted height. */
  height: bigint | number;
  /** The trusted header's hash: 32 bytes, or 64 hex digits. */
  hash: Uint8Array | string;
  /** The trusting period: nanoseconds, or a Go duration ("336h"); default two weeks. */
  period?: bigint | string;
}

export interface TrustRoot {
  height: bigint;
  hash: Uint8Array;
  periodNs: bigint;
}

/** TrustOptions.ValidateBasic, with the inputs a person types read too. */
export function trustRoot(o: TrustOptions): TrustRoot {
  let height: bigint;
  if (typeof o.height === "bigint") height = o.height;
  else if (Number.isSafeInteger(o.height)) height = BigInt(o.height);
  else throw new TrustOptionsError(`trust height ${String(o.height)} is not an integer`);
  if (height <= 0n) throw new TrustOptionsError(`trust height must be positive, got ${height}`);
  let hash: Uint8Array;
  if (typeof o.hash === "string") {
    const text = o.hash.replace(/^0x/i, "");
    if (!/^[0-9A-Fa-f]*$/.test(text) || text.length % 2 !== 0) throw new TrustOptionsError(`trust hash ${JSON.stringify(o.hash)} is not hex`);
    hash = fromHex(text);
  } else hash = o.hash;
  if (hash.length !== 32) throw new TrustOptionsError(`trust hash must be 32 bytes (64 hex digits), got ${hash.length} bytes`);
  let periodNs = DEFAULT_TRUSTING_PERIOD_NS;
  if (typeof o.period === "bigint") periodNs = o.period;
  else if (typeof o.period === "string") {
    try {
      periodNs = parseDurationOption(o.period, "timeout");
    } catch (e) {
      throw new TrustOptionsError(`trusting period: ${messageOf(e)}`);
    }
  }
  if (periodNs <= 0n) throw new TrustOptionsError("the trusting period must be positive");
  return { height, hash, periodNs };
}
