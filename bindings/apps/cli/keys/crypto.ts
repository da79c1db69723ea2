/**
 * Encryption of private keys in the `file` keyring: scrypt (N=2^15, r=8, p=1) derives a 256-bit key from
 * the passphrase and a random salt; AES-256-GCM seals the key with a random 96-bit IV, the key's address
 * as associated data (so a sealed key cannot be moved to another record). node:crypto only.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { CliError } from "../errors.js";

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  salt: string; // base64
}

export interface Sealed {
  kdf: "scrypt";
  kdfparams: ScryptParams;
  cipher: "aes-256-gcm";
  iv: string;
  ciphertext: string;
  tag: string;
}

export const DEFAULT_SCRYPT = { N: 1 << 15, r: 8, p: 1 };

function deriveKey(passphrase: string, params: ScryptParams): Promise<Buffer> {
  if (!Number.isInteger(params.N) || params.N < 2 || params.N > 1 << 20 || (params.N & (params.N - 1)) !== 0) {
    return Promise.reject(new Error("unsupported scrypt parameters"));
  }
  return new Promise((resolve, reject) =>
    scrypt(
      passphrase.normalize("NFKC"),
      Buffer.from(params.salt, "base64"),
      32,
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + (1 << 20) },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

export async function seal(secret: Uint8Array, passphrase: string, aad: string): Promise<Sealed> {
  const kdfparams = { ...DEFAULT_SCRYPT, salt: randomBytes(16).toString("base64") };
  const key = await deriveKey(passphrase, kdfparams);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return {
    kdf: "scrypt",
    kdfparams,
    cipher: "aes-256-gcm",
    iv: iv.toString("base64"),
    ciphertext: ciphertext.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
  };
}

/** The secret, or undefined when the passphrase is wrong (or the record was tampered with). */
export async function open(sealed: Sealed, passphrase: string, aad: string): Promise<Uint8Array | undefined> {
  if (sealed.kdf !== "scrypt" || sealed.cipher !== "aes-256-gcm") throw new CliError(`unsupported key encryption ${sealed.kdf}/${sealed.cipher}`);
  const key = await deriveKey(passphrase, sealed.kdfparams);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    return new Uint8Array(Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, "base64")), decipher.final()]));
  } catch {
    return undefined;
  }
}

/** A passphrase verifier for the whole keyring (the `keyhash` file). */
export async function makeVerifier(passphrase: string): Promise<ScryptParams & { hash: string }> {
  const params = { ...DEFAULT_SCRYPT, salt: randomBytes(16).toString("base64") };
  return { ...params, hash: (await deriveKey(passphrase, params)).toString("base64") };
}

export async function checkVerifier(v: ScryptParams & { hash: string }, passphrase: string): Promise<boolean> {
  const got = await deriveKey(passphrase, v);
  const want = Buffer.from(v.hash, "base64");
  return got.length === want.length && timingSafeEqual(got, want);
}
