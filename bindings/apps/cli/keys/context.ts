/** The command context of the commands that sign or manage keys: the keyring from `--keyring-*` and client.toml. */
import { Context } from "../context.js";
import { Keyring, parseKeyringBackend, type KeyringBackend } from "./keyring.js";
import { passphraseSource } from "./passphrase.js";

export class KeyringContext extends Context {
  get keyringBackend(): KeyringBackend {
    return parseKeyringBackend(this.opts.keyringBackend ?? this.config["keyring-backend"] ?? "file");
  }

  keyring(): Keyring {
    return new Keyring(this.opts.keyringDir ?? this.home, this.keyringBackend, passphraseSource(this.opts.passphraseFile));
  }
}
