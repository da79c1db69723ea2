/** A key as `keys add|show|list` print it. */
import type { JsonValue } from "../yaml.js";
import { type KeyInfo, pubkeyJson } from "./keyring.js";

export function keyJson(k: KeyInfo): { [key: string]: JsonValue } {
  return { name: k.name, type: k.type, address: k.address, pubkey: pubkeyJson(k.pubkey) };
}
