/**
 * Cosmos account addresses: bech32 `cosmos` of ripemd160(sha256(compressed secp256k1 key)) for keys,
 * of sha256(name)[:20] for module accounts, and the Cosmos Hub derivation path keys are made on.
 */
import { ripemd160, sha256 } from "@cosmjs/crypto";
import { fromBech32, toBech32 } from "@cosmjs/encoding";

import { messageOf } from "../base/errors.js";
import { BECH32_PREFIX } from "./chain.js";
import { InvalidAddressError } from "./errors.js";

export { BECH32_PREFIX, HD_PATH } from "./chain.js";

/** bech32(`cosmos`, ripemd160(sha256(compressed pubkey))). */
export function addressOfPubkey(compressed: Uint8Array): string {
  return toBech32(BECH32_PREFIX, ripemd160(sha256(compressed)));
}

/** bech32 of the first 20 bytes of sha256(name): module account addresses (`gov`, `fee_collector`). */
export function moduleAddress(name: string): string {
  return toBech32(BECH32_PREFIX, sha256(new TextEncoder().encode(name)).subarray(0, 20));
}

/** The raw bytes of a `cosmos1…` address (20 or 32); else an InvalidAddressError with the bech32 decoder's or the SDK's reason. */
export function addressBytes(address: string): Uint8Array {
  if (typeof address !== "string" || address.length > 1023) throw new InvalidAddressError("invalid address");
  let decoded: { prefix: string; data: Uint8Array };
  try {
    // The SDK decodes with a limit of 1023 characters (cosmjs' default, Infinity, is refused by @scure/base 2.x).
    decoded = fromBech32(address, 1023);
  } catch (e) {
    throw new InvalidAddressError(messageOf(e), { cause: e });
  }
  const { prefix, data } = decoded;
  if (prefix !== BECH32_PREFIX) throw new InvalidAddressError(`invalid Bech32 prefix; expected ${BECH32_PREFIX}, got ${prefix}`);
  if (data.length !== 20 && data.length !== 32) throw new InvalidAddressError(`address length must be 20 or 32 bytes, got ${data.length}`);
  return data;
}

/** Why `address` is not a `cosmos` account address, or undefined when it is one. */
export function addressProblem(address: string): string | undefined {
  try {
    addressBytes(address);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export const isAddress = (address: string): boolean => addressProblem(address) === undefined;
