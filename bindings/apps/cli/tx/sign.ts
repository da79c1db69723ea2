/**
 * SIGN_MODE_DIRECT signatures with the cosmjs signer (DirectSecp256k1Wallet): secp256k1 ECDSA over
 * sha256(SignDoc bytes), 64-byte r‖s, low-S, RFC 6979 deterministic.
 */
import { Secp256k1, sha256 } from "@cosmjs/crypto";
import { fromBase64 } from "@cosmjs/encoding";
import { DirectSecp256k1Wallet, makeSignBytes } from "@cosmjs/proto-signing";
import { encodeSignDoc, type SignDoc } from "./proto.js";

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The signature over the SignDoc; `signBytes` are the exact bytes signed (our Go-identical encoding). */
export async function signDirect(privkey: Uint8Array, doc: SignDoc): Promise<{ signature: Uint8Array; signBytes: Uint8Array }> {
  const signBytes = encodeSignDoc(doc);
  const wallet = await DirectSecp256k1Wallet.fromKey(privkey, "cosmos");
  const [account] = await wallet.getAccounts();
  const cosmjsDoc = { ...doc };
  // cosmjs-types encodes account numbers in [2^31, 2^32) wrongly; sign exactly our bytes in that case,
  // with the same primitive the wallet uses.
  if (equal(makeSignBytes(cosmjsDoc), signBytes)) {
    const { signature } = await wallet.signDirect(account.address, cosmjsDoc);
    return { signature: fromBase64(signature.signature), signBytes };
  }
  const sig = Secp256k1.createSignature(sha256(signBytes), privkey);
  return { signature: new Uint8Array([...sig.r(32), ...sig.s(32)]), signBytes };
}
