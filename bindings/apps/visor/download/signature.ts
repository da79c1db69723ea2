/**
 * Trust beyond the checksum (docs/spec/sidecar.md §7.5): a downloaded binary must carry an SSH signature
 * (OpenSSH's SSHSIG, what `ssh-keygen -Y sign -f <key> -n <namespace> <file>` writes to `<file>.sig`) made by
 * one of the release keys in `DAEMON_DOWNLOAD_SIGNING_KEYS`. The checksum in Plan.Info only says the file is
 * the one the proposal named; the signature says a key the operator chose vouches for it.
 *
 * The checks, in order, each with its own reason (`SignatureError.check`): the armor; the blob's preamble and
 * version; the signer is one of the configured keys; the namespace; the hash algorithm (sha256 or sha512);
 * the ed25519 signature over the SSHSIG signed data (RFC 8032, strict: non-canonical encodings refused, as
 * OpenSSH refuses them). Loaded only when signing keys are configured.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { ed25519 } from "@noble/curves/ed25519.js";
import { ED25519, type SigningKey } from "./ssh-key.js";
import { SshReader, sshString } from "./ssh-wire.js";

export type SignatureCheck = "armor" | "format" | "signer" | "namespace" | "hash" | "signature" | "missing";

export class SignatureError extends Error {
  override name = "SignatureError";
  constructor(
    readonly check: SignatureCheck,
    message: string,
  ) {
    super(message);
  }
}

const BEGIN = "-----BEGIN SSH SIGNATURE-----";
const END = "-----END SSH SIGNATURE-----";
const MAGIC = new TextEncoder().encode("SSHSIG");
const HASHES = new Set(["sha256", "sha512"]);

export interface SshSignature {
  signer: Uint8Array;
  namespace: string;
  hash: "sha256" | "sha512";
  /** The 64-byte ed25519 signature. */
  sig: Uint8Array;
  sigType: string;
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The armored SSHSIG text → its fields; a SignatureError (armor or format) says what is wrong. */
function parseSshSignature(text: string): SshSignature {
  const t = text.trim();
  if (!t.startsWith(BEGIN) || !t.endsWith(END)) throw new SignatureError("armor", `not an SSH signature (no ${BEGIN} … ${END} armor)`);
  const b64 = t.slice(BEGIN.length, t.length - END.length).replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw new SignatureError("armor", "the SSH signature's armor is not base64");
  const blob = new Uint8Array(Buffer.from(b64, "base64"));
  try {
    const r = new SshReader(blob, "SSH signature");
    if (!equal(r.raw(6), MAGIC)) throw new SignatureError("format", "the SSH signature does not start with SSHSIG");
    const version = r.u32();
    if (version !== 1) throw new SignatureError("format", `unsupported SSH signature version ${version}`);
    const signer = r.bytes();
    const namespace = r.text();
    r.bytes(); // reserved
    const hash = r.text();
    const wrapped = r.bytes();
    r.end();
    const w = new SshReader(wrapped, "signature");
    const sigType = w.text();
    const sig = w.bytes();
    w.end();
    if (!HASHES.has(hash)) throw new SignatureError("hash", `unsupported hash algorithm ${JSON.stringify(hash)} (sha256 or sha512)`);
    return { signer, namespace, hash: hash as "sha256" | "sha512", sig, sigType };
  } catch (e) {
    if (e instanceof SignatureError) throw e;
    throw new SignatureError("format", (e as Error).message);
  }
}

/** The bytes an SSHSIG signature signs: the preamble, the namespace, the reserved field, the hash name and the message's hash. */
function signedData(namespace: string, hash: string, digest: Uint8Array): Uint8Array {
  const parts = [MAGIC, sshString(namespace), sshString(new Uint8Array(0)), sshString(hash), sshString(digest)];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

async function digestOf(file: string, hash: "sha256" | "sha512"): Promise<Uint8Array> {
  const h = createHash(hash);
  await pipeline(createReadStream(file), h);
  return new Uint8Array(h.digest());
}

/**
 * Verifies `file` against the armored signature: made by one of `keys`, in `namespace`. Resolves with the key
 * that signed; a SignatureError says which check failed.
 */
export async function verifyFileSignature(file: string, signatureText: string, keys: readonly SigningKey[], namespace: string): Promise<SigningKey> {
  const s = parseSshSignature(signatureText);
  const key = keys.find((k) => equal(k.blob, s.signer));
  if (!key) {
    let who = "an unknown key";
    try {
      const r = new SshReader(s.signer, "signer");
      const type = r.text();
      who = type === ED25519 ? `the ${ED25519} key ${Buffer.from(s.signer).toString("base64")}` : `a ${type} key`;
    } catch {
      /* an unreadable signer stays "an unknown key" */
    }
    throw new SignatureError("signer", `signed by ${who}, which is not one of DAEMON_DOWNLOAD_SIGNING_KEYS`);
  }
  if (s.namespace !== namespace)
    throw new SignatureError("namespace", `signature namespace ${JSON.stringify(s.namespace)}, expected ${JSON.stringify(namespace)}`);
  if (s.sigType !== ED25519 || s.sig.length !== 64)
    throw new SignatureError("signature", `a ${s.sigType} signature of ${s.sig.length} bytes where ${ED25519} (64) was expected`);
  const data = signedData(s.namespace, s.hash, await digestOf(file, s.hash));
  let ok: boolean;
  try {
    ok = ed25519.verify(s.sig, data, key.key, { zip215: false });
  } catch {
    ok = false;
  }
  if (!ok) throw new SignatureError("signature", `the ${ED25519} signature does not verify: the file is not the one ${key.comment || "the key"} signed`);
  return key;
}

/** Where a binary's signature is looked for: its URL with `.sig` appended to the path (the query, e.g. `?checksum=`, dropped). */
export function signatureUrlOf(binaryUrl: string): string {
  const u = new URL(binaryUrl);
  u.search = "";
  u.hash = "";
  u.pathname = `${u.pathname}.sig`;
  return u.toString();
}
