/**
 * secp256k1 keys the Cosmos way, with the cosmjs packages: BIP-39 mnemonics, SLIP-10 derivation on
 * m/44'/118'/0'/0/0, compressed public keys and `cosmos` bech32 addresses (ripemd160(sha256(pubkey))).
 */
import { Bip39, EnglishMnemonic, Random, Secp256k1, Slip10, Slip10Curve, stringToPath } from "@cosmjs/crypto";
import { HD_PATH, addressOfPubkey } from "../../../client/address.js";
import { CliError } from "../errors.js";

export { HD_PATH as DEFAULT_HD_PATH, addressProblem } from "../../../client/address.js";

export interface KeyMaterial {
  privkey: Uint8Array;
  /** 33-byte compressed */
  pubkey: Uint8Array;
  address: string;
}

export async function fromPrivkey(privkey: Uint8Array): Promise<KeyMaterial> {
  if (privkey.length !== 32) throw new CliError(`invalid private key: expected 32 bytes, got ${privkey.length}`);
  let uncompressed: Uint8Array;
  try {
    uncompressed = Secp256k1.makeKeypair(privkey).pubkey;
  } catch (e) {
    throw new CliError(`invalid private key: ${(e as Error).message}`);
  }
  const pubkey = Secp256k1.compressPubkey(uncompressed);
  return { privkey, pubkey, address: addressOfPubkey(pubkey) };
}

/** A raw private key in hex (64 digits, optional 0x). */
export function parseHexPrivkey(text: string): Uint8Array {
  const t = text.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(t)) throw new CliError("invalid private key: expected 64 hexadecimal digits");
  return Uint8Array.from(Buffer.from(t, "hex"));
}

/** Normalises and checks a BIP-39 English mnemonic (word list and checksum). */
export function checkMnemonic(text: string): string {
  const list = text
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  if (![12, 15, 18, 21, 24].includes(list.length)) throw new CliError(`invalid mnemonic: expected 12, 15, 18, 21 or 24 words, got ${list.length}`);
  const known = new Set<string>(EnglishMnemonic.wordlist);
  const unknown = list.find((w) => !known.has(w));
  if (unknown !== undefined) throw new CliError(`invalid mnemonic: ${JSON.stringify(unknown)} is not a BIP-39 English word`);
  try {
    return new EnglishMnemonic(list.join(" ")).toString();
  } catch {
    throw new CliError("invalid mnemonic: checksum mismatch (a word is wrong or the words are out of order)");
  }
}

export function newMnemonic(words: 12 | 24 = 24): string {
  return Bip39.encode(Random.getBytes(words === 24 ? 32 : 16)).toString();
}

export function checkHdPath(path: string): string {
  try {
    stringToPath(path);
  } catch (e) {
    throw new CliError(`invalid --hd-path ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
  return path;
}

export async function fromMnemonic(mnemonic: string, hdPath = HD_PATH, bip39Passphrase = ""): Promise<KeyMaterial> {
  const seed = await Bip39.mnemonicToSeed(new EnglishMnemonic(checkMnemonic(mnemonic)), bip39Passphrase);
  const { privkey } = Slip10.derivePath(Slip10Curve.Secp256k1, seed, stringToPath(checkHdPath(hdPath)));
  return fromPrivkey(privkey);
}
