/**
 * Commit signatures as CometBFT checks them (crypto/ed25519, crypto/secp256k1): ed25519 under ZIP-215 rules
 * (@noble/curves), secp256k1 as 64-byte r ‖ s over sha256(message) with a low S. WebCrypto's Ed25519 is a
 * fast path only: it is RFC 8032-strict, and anything strict verification accepts ZIP-215 accepts too, so its
 * "valid" stands; its "invalid" (or no Ed25519 in this runtime) is decided again by noble.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { toHex } from "@cosmjs/encoding";
import type { KeyType } from "./validators.js";

export interface SignatureCheck {
  type: KeyType;
  key: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

export type SignatureEngine = "webcrypto+noble" | "noble";

/** ed25519 with ZIP-215 (CometBFT's VerifyOptionsZIP_215): @noble/curves' default, said explicitly. */
export function verifyEd25519Noble(key: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (key.length !== 32 || signature.length !== 64) return false;
  try {
    return ed25519.verify(signature, message, key, { zip215: true });
  } catch {
    return false;
  }
}

/** secp256k1: compact r ‖ s, S in the lower half (CometBFT rejects malleable signatures), over sha256(message). */
export function verifySecp256k1(key: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (key.length !== 33 || signature.length !== 64) return false;
  try {
    return secp256k1.verify(signature, message, key, { prehash: true, lowS: true, format: "compact" });
  } catch {
    return false;
  }
}

type Subtle = Pick<SubtleCrypto, "importKey" | "verify">;

const subtle: Subtle | undefined = (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle;
/** Imported WebCrypto keys by hex key (a validator set is verified again and again). */
const imported = new Map<string, Promise<CryptoKey | undefined>>();
let webCryptoWorks: boolean | undefined;

function importEd25519(key: Uint8Array): Promise<CryptoKey | undefined> {
  const id = toHex(key);
  let p = imported.get(id);
  if (!p) {
    p = subtle!.importKey("raw", key as Uint8Array<ArrayBuffer>, { name: "Ed25519" }, false, ["verify"]).then(
      (k) => k,
      () => undefined,
    );
    if (imported.size > 10_000) imported.clear();
    imported.set(id, p);
  }
  return p;
}

async function verifyEd25519Fast(key: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  if (subtle && webCryptoWorks !== false && key.length === 32 && signature.length === 64) {
    try {
      const k = await importEd25519(key);
      if (k && (await subtle.verify("Ed25519", k, signature as Uint8Array<ArrayBuffer>, message as Uint8Array<ArrayBuffer>))) {
        webCryptoWorks = true;
        return true;
      }
    } catch {
      // A runtime without Ed25519 in WebCrypto: noble from now on.
      if (webCryptoWorks === undefined) webCryptoWorks = false;
    }
  }
  return verifyEd25519Noble(key, message, signature);
}

/**
 * Verifies each check; resolves to one verdict per check, in order. `engine: "noble"` skips WebCrypto (the
 * benchmark compares both; the verdicts are the same by construction).
 */
export function verifySignatures(checks: readonly SignatureCheck[], engine: SignatureEngine = "webcrypto+noble"): Promise<boolean[]> {
  return Promise.all(
    checks.map(async (c) => {
      if (c.type === "secp256k1") return verifySecp256k1(c.key, c.message, c.signature);
      return engine === "noble" ? verifyEd25519Noble(c.key, c.message, c.signature) : verifyEd25519Fast(c.key, c.message, c.signature);
    }),
  );
}
