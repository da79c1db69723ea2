/** Store keys of the seed's layout (docs/spec/keeper.md §2). Twin of assembly/keys.ts, whose prefixes these are. */
import { Status, statusError } from "../status.js";
import { readUtf8, utf8Length, writeUtf8 } from "../utf8.js";
import { DONE_PREFIX, PLAN_PREFIX, PROTOCOL_VERSION_PREFIX, VERSION_PREFIX } from "../constants.generated.js";

export { DONE_PREFIX, PLAN_PREFIX, PROTOCOL_VERSION_PREFIX, VERSION_PREFIX };

export const PLAN_KEY = Uint8Array.of(PLAN_PREFIX);
export const PROTOCOL_VERSION_KEY = Uint8Array.of(PROTOCOL_VERSION_PREFIX);
export const DONE_START = Uint8Array.of(DONE_PREFIX);
export const DONE_END = Uint8Array.of(DONE_PREFIX + 1);
export const VERSION_START = Uint8Array.of(VERSION_PREFIX);
export const VERSION_END = Uint8Array.of(VERSION_PREFIX + 1);

/** prefix ‖ utf8(name) */
export function prefixedKey(prefix: number, name: string): Uint8Array {
  const key = new Uint8Array(1 + utf8Length(name));
  key[0] = prefix;
  writeUtf8(name, key, 1);
  return key;
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Deprecated IBC keys: `upgradedIBCState/<height>/upgradedClient` and `…/upgradedConsState`. */
export function ibcClientKey(height: bigint): Uint8Array {
  return ascii(`upgradedIBCState/${height}/upgradedClient`);
}

export function ibcConsStateKey(height: bigint): Uint8Array {
  return ascii(`upgradedIBCState/${height}/upgradedConsState`);
}

/** The name part of a prefixed key (from byte `at`: 1, or 9 in the SDK's done layout); keys written by other software may hold invalid UTF-8. */
export function nameOfKey(key: Uint8Array, at = 1): string {
  try {
    return readUtf8(key, at, key.length);
  } catch {
    throw statusError(Status.CorruptName, { key });
  }
}
