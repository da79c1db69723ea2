/**
 * The local keyring in `<keyring-dir>/keyring-<backend>/`: one `<name>.json` record per key (mode 0600,
 * written atomically). Backend `test` keeps the private key in clear (devnets only); backend `file` seals
 * it with the keyring passphrase (keys/crypto.ts) and keeps a `keyhash` verifier so every key of the
 * keyring shares one passphrase. Names and addresses are public in both.
 */
import { mkdir, readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../../base/file.js";
import { toBase64 } from "@cosmjs/encoding";
import { CliError } from "../errors.js";
import { checkVerifier, makeVerifier, open, seal, type Sealed, type ScryptParams } from "./crypto.js";
import { addressOfPubkey } from "../../../client/address.js";
import type { KeyMaterial } from "./derive.js";

export type KeyringBackend = "test" | "file";

export interface KeyInfo {
  name: string;
  type: "local";
  address: string;
  /** 33-byte compressed secp256k1 public key */
  pubkey: Uint8Array;
}

interface KeyRecord {
  version: 1;
  name: string;
  type: "local";
  algo: "secp256k1";
  address: string;
  pubkey: string; // base64
  privkey?: string; // hex, test backend
  sealed?: Sealed; // file backend
}

/** Where the passphrase of a `file` keyring comes from. */
export interface PassphraseSource {
  /** `create`: the keyring is new, the passphrase chosen now (asked twice at a terminal). */
  get(purpose: "unlock" | "create", attempt: number): Promise<string>;
  /** How many tries a person gets (1 for scripts). */
  readonly attempts: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MIN_PASSPHRASE = 8;

export function checkKeyName(name: string): string {
  if (!NAME.test(name)) {
    throw new CliError(`invalid key name ${JSON.stringify(name)}: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  }
  return name;
}

export function parseKeyringBackend(value: string): KeyringBackend {
  if (value !== "test" && value !== "file") throw new CliError(`invalid --keyring-backend ${JSON.stringify(value)}: must be test or file`);
  return value;
}

/** `{"@type":"/cosmos.crypto.secp256k1.PubKey","key":"<base64>"}`, the SDK's text form of a public key. */
export function pubkeyJson(pubkey: Uint8Array): string {
  return `{"@type":"/cosmos.crypto.secp256k1.PubKey","key":"${toBase64(pubkey)}"}`;
}

export class Keyring {
  readonly dir: string;
  private unlocked: string | undefined;

  constructor(
    root: string,
    readonly backend: KeyringBackend,
    private readonly passphrases: PassphraseSource,
  ) {
    this.dir = join(root, `keyring-${backend}`);
  }

  private notFound(nameOrAddress: string): CliError {
    return new CliError(`key ${JSON.stringify(nameOrAddress)} not found in the ${this.backend} keyring at ${this.dir}`);
  }

  private async records(): Promise<KeyRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw new CliError(`cannot read keyring ${this.dir}: ${(e as Error).message}`);
    }
    const out: KeyRecord[] = [];
    for (const file of names.filter((n) => n.endsWith(".json")).sort()) {
      out.push(await this.readRecord(join(this.dir, file)));
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private async readRecord(path: string): Promise<KeyRecord> {
    let rec: KeyRecord;
    try {
      rec = JSON.parse(await readFile(path, "utf8")) as KeyRecord;
    } catch (e) {
      throw new CliError(`cannot read key record ${path}: ${(e as Error).message}`);
    }
    if (rec?.version !== 1 || typeof rec.name !== "string" || typeof rec.address !== "string" || typeof rec.pubkey !== "string") {
      throw new CliError(`cannot read key record ${path}: not a key record of this keyring`);
    }
    return rec;
  }

  private info(rec: KeyRecord): KeyInfo {
    const pubkey = new Uint8Array(Buffer.from(rec.pubkey, "base64"));
    if (addressOfPubkey(pubkey) !== rec.address)
      throw new CliError(`key record ${JSON.stringify(rec.name)} is corrupt: its address does not match its public key`);
    return { name: rec.name, type: "local", address: rec.address, pubkey };
  }

  async list(): Promise<KeyInfo[]> {
    return (await this.records()).map((r) => this.info(r));
  }

  /** By name first, then by address. */
  async find(nameOrAddress: string): Promise<KeyInfo | undefined> {
    const recs = await this.records();
    const rec = recs.find((r) => r.name === nameOrAddress) ?? recs.find((r) => r.address === nameOrAddress);
    return rec && this.info(rec);
  }

  async get(nameOrAddress: string): Promise<KeyInfo> {
    const info = await this.find(nameOrAddress);
    if (!info) throw this.notFound(nameOrAddress);
    return info;
  }

  async add(name: string, key: KeyMaterial): Promise<KeyInfo> {
    checkKeyName(name);
    const recs = await this.records();
    if (recs.some((r) => r.name === name))
      throw new CliError(`key ${JSON.stringify(name)} already exists in the ${this.backend} keyring; delete it first or choose another name`);
    const same = recs.find((r) => r.address === key.address);
    if (same) throw new CliError(`a key with address ${key.address} already exists as ${JSON.stringify(same.name)}`);
    const rec: KeyRecord = { version: 1, name, type: "local", algo: "secp256k1", address: key.address, pubkey: toBase64(key.pubkey) };
    if (this.backend === "test") rec.privkey = Buffer.from(key.privkey).toString("hex");
    else rec.sealed = await seal(key.privkey, await this.passphrase(recs.length === 0), key.address);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(join(this.dir, `${name}.json`), JSON.stringify(rec, null, 2) + "\n", { mode: 0o600 });
    return this.info(rec);
  }

  async privkey(nameOrAddress: string): Promise<Uint8Array> {
    const recs = await this.records();
    const rec = recs.find((r) => r.name === nameOrAddress) ?? recs.find((r) => r.address === nameOrAddress);
    if (!rec) throw this.notFound(nameOrAddress);
    if (this.backend === "test") {
      if (typeof rec.privkey !== "string" || !/^[0-9a-f]{64}$/.test(rec.privkey))
        throw new CliError(`key record ${JSON.stringify(rec.name)} has no usable private key`);
      return new Uint8Array(Buffer.from(rec.privkey, "hex"));
    }
    if (!rec.sealed) throw new CliError(`key record ${JSON.stringify(rec.name)} has no sealed private key`);
    const secret = await open(rec.sealed, await this.passphrase(false), rec.address);
    if (!secret) throw new CliError(`incorrect passphrase for key ${JSON.stringify(rec.name)}`);
    return secret;
  }

  async delete(nameOrAddress: string): Promise<KeyInfo> {
    const info = await this.get(nameOrAddress);
    await rm(join(this.dir, `${info.name}.json`));
    return info;
  }

  /** The keyring passphrase, checked against `keyhash` (created with the first key). */
  private async passphrase(firstKey: boolean): Promise<string> {
    if (this.unlocked !== undefined) return this.unlocked;
    const hashFile = join(this.dir, "keyhash");
    let verifier: (ScryptParams & { hash: string }) | undefined;
    try {
      verifier = JSON.parse(await readFile(hashFile, "utf8"));
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw new CliError(`cannot read ${hashFile}: ${(e as Error).message}`);
    }
    if (!verifier) {
      if (!firstKey) throw new CliError(`the file keyring at ${this.dir} has no keyhash; it was not created by this tool`);
      const pass = await this.passphrases.get("create", 1);
      if (pass.length < MIN_PASSPHRASE) throw new CliError(`passphrase must be at least ${MIN_PASSPHRASE} characters`);
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(hashFile, JSON.stringify(await makeVerifier(pass)) + "\n", { mode: 0o600 });
      this.unlocked = pass;
      return pass;
    }
    for (let attempt = 1; attempt <= this.passphrases.attempts; attempt++) {
      const pass = await this.passphrases.get("unlock", attempt);
      if (await checkVerifier(verifier, pass)) {
        this.unlocked = pass;
        return pass;
      }
      if (attempt < this.passphrases.attempts) process.stderr.write("incorrect passphrase\n");
    }
    throw new CliError(`incorrect passphrase for the file keyring at ${this.dir}`);
  }
}
