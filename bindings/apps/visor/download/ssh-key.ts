/**
 * The release keys of `DAEMON_DOWNLOAD_SIGNING_KEYS` (docs/spec/sidecar.md §7.5): OpenSSH public keys as
 * `ssh-keygen` prints them (`ssh-ed25519 AAAAC3Nz… release@chain`), one per line — the lines of an
 * authorized_keys or allowed_signers file (a principal before the key is allowed) — given inline (newlines
 * or commas between keys) or as an absolute path to such a file. Only ed25519 keys: the one type OpenSSH
 * recommends for signing and the one this visor verifies (signature.ts); any other type is refused by name.
 */
import { readFileSync } from "node:fs";
import { SshReader } from "./ssh-wire.js";
import { SigningKeyError } from "../errors.js";

export const ED25519 = "ssh-ed25519";

export interface SigningKey {
  /** The 32-byte ed25519 public key. */
  key: Uint8Array;
  /** The SSH wire form (`string "ssh-ed25519" ‖ string key`), what a signature names its signer by. */
  blob: Uint8Array;
  comment: string;
  /** `ssh-ed25519 <base64> [comment]`. */
  line: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * One public key line (`[principals] ssh-ed25519 <base64> [comment]`); a SigningKeyError (an SshEncodingError
 * for a blob cut short or running on) says what is wrong.
 */
export function parseSigningKey(text: string): SigningKey {
  const words = text.trim().split(/\s+/);
  const at = words.findIndex((w) => /^(ssh-|ecdsa-|sk-|rsa-)/.test(w));
  if (at < 0 || at + 1 >= words.length) throw new SigningKeyError(`not an OpenSSH public key: ${JSON.stringify(text.trim().slice(0, 60))}`);
  const type = words[at];
  if (type !== ED25519) throw new SigningKeyError(`unsupported key type ${type}: only ${ED25519} keys are supported`);
  const b64 = words[at + 1];
  if (!BASE64.test(b64)) throw new SigningKeyError(`the ${ED25519} key is not base64: ${JSON.stringify(b64.slice(0, 20))}`);
  const blob = new Uint8Array(Buffer.from(b64, "base64"));
  const r = new SshReader(blob, "public key");
  const inner = r.text();
  if (inner !== ED25519) throw new SigningKeyError(`the key's blob says ${JSON.stringify(inner)}, not ${ED25519}`);
  const key = r.bytes();
  if (key.length !== 32) throw new SigningKeyError(`an ${ED25519} key has 32 bytes, this one ${key.length}`);
  r.end();
  const comment = words.slice(at + 2).join(" ");
  return { key, blob, comment, line: `${ED25519} ${b64}${comment ? ` ${comment}` : ""}` };
}

/** The keys of the variable's value: inline, or the file an absolute path names (blank and `#` lines skipped). */
export function readSigningKeys(value: string): SigningKey[] {
  const v = value.trim();
  let lines: string[];
  if (v.startsWith("/")) {
    let text: string;
    try {
      text = readFileSync(v, "utf8");
    } catch (e) {
      throw new SigningKeyError(`cannot read ${v}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
    }
    lines = text.split("\n");
  } else lines = v.split(/[\n,]/);
  const keys = lines
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map(parseSigningKey);
  if (keys.length === 0) throw new SigningKeyError(`no key in ${v.startsWith("/") ? v : "the value"}`);
  return keys;
}
