/**
 * Devnet keys: secp256k1 account keys from BIP-39 mnemonics on the Cosmos Hub path (what `keys add
 * --recover` imports), and ed25519 consensus keys for the simulated validators' block signatures.
 * Keys are derived from a seed text, so the same `initDevnet` options always give the same keys.
 */
import { createPrivateKey, createPublicKey, pbkdf2Sync, sign as edSign, type KeyObject } from "node:crypto";
import { Bip39, EnglishMnemonic, Random, Secp256k1, Slip10, Slip10Curve, stringToPath } from "@cosmjs/crypto";
import { HD_PATH, addressOfPubkey } from "../../../client/address.js";
import { sha256, utf8 } from "../shared/util.js";
import { DevnetError } from "../shared/errors.js";

export interface AccountKey {
  mnemonic: string;
  privateKey: Uint8Array;
  /** 33-byte compressed secp256k1 public key. */
  publicKey: Uint8Array;
  address: string;
}

/** 24-word mnemonic from 32 bytes of entropy: sha256(seedText), or random bytes when seedText is null. */
export function mnemonicFor(seedText: string | null): string {
  const entropy = seedText === null ? Random.getBytes(32) : sha256(utf8(seedText));
  return Bip39.encode(entropy).toString();
}

/** The secp256k1 key of a mnemonic on m/44'/118'/0'/0/0, and its `cosmos1…` address. */
export async function accountKeyFromMnemonic(mnemonic: string): Promise<AccountKey> {
  // BIP-39 seed with Node's native PBKDF2 (cosmjs' pure-JS one takes about a second per key).
  const normalized = new EnglishMnemonic(mnemonic).toString().normalize("NFKD");
  const seed = new Uint8Array(pbkdf2Sync(normalized, "mnemonic", 2048, 64, "sha512"));
  const { privkey } = Slip10.derivePath(Slip10Curve.Secp256k1, seed, stringToPath(HD_PATH));
  return accountKeyFromPrivateKey(privkey, mnemonic);
}

async function accountKeyFromPrivateKey(privateKey: Uint8Array, mnemonic = ""): Promise<AccountKey> {
  const { pubkey } = Secp256k1.makeKeypair(privateKey);
  const publicKey = Secp256k1.compressPubkey(pubkey);
  return { mnemonic, privateKey, publicKey, address: addressOfPubkey(publicKey) };
}

// ---- ed25519 consensus keys ----

const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");

export interface ConsensusKey {
  /** 32-byte ed25519 seed. */
  seed: Uint8Array;
  publicKey: Uint8Array;
  /** CometBFT validator address: sha256(pubkey)[:20]. */
  address: Uint8Array;
  key: KeyObject;
}

export function consensusKeyFromSeed(seed: Uint8Array): ConsensusKey {
  // The seeds come from the home (devnet.json) or are hashed to 32 bytes here.
  if (seed.length !== 32) throw new DevnetError("home", "an ed25519 seed is 32 bytes");
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
  const spki = createPublicKey(key).export({ format: "der", type: "spki" });
  const publicKey = new Uint8Array(spki.subarray(spki.length - 32));
  return { seed, publicKey, address: sha256(publicKey).subarray(0, 20), key };
}

export function consensusSeed(seedText: string | null): Uint8Array {
  return seedText === null ? Random.getBytes(32) : sha256(utf8(seedText));
}

export function signEd25519(key: ConsensusKey, message: Uint8Array): Uint8Array {
  return new Uint8Array(edSign(null, message, key.key));
}
