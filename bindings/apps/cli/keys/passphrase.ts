/**
 * Passphrase of a `file` keyring: `--passphrase-file <path>` (its first line), the environment variable
 * XUPGRADE_KEYRING_PASSPHRASE, or the terminal (hidden; asked twice when the keyring is created). With
 * neither a terminal nor one of the first two, a line of stdin is used.
 */
import { readFile } from "node:fs/promises";
import { CliError } from "../errors.js";
import { isInteractive, requireLine } from "../io.js";
import type { PassphraseSource } from "./keyring.js";

export const PASSPHRASE_ENV = "XUPGRADE_KEYRING_PASSPHRASE";

export function passphraseSource(passphraseFile: string | undefined, env: NodeJS.ProcessEnv = process.env): PassphraseSource {
  if (passphraseFile !== undefined) {
    return {
      attempts: 1,
      async get() {
        let text: string;
        try {
          text = await readFile(passphraseFile, "utf8");
        } catch (e) {
          throw new CliError(`cannot read --passphrase-file ${passphraseFile}: ${(e as Error).message}`);
        }
        return text.split(/\r?\n/, 1)[0];
      },
    };
  }
  const fromEnv = env[PASSPHRASE_ENV];
  if (fromEnv !== undefined && fromEnv !== "") return { attempts: 1, get: async () => fromEnv };
  const tty = isInteractive();
  return {
    attempts: tty ? 3 : 1,
    async get(purpose) {
      if (purpose === "create") {
        const pass = await requireLine("Enter keyring passphrase (at least 8 characters): ", "passphrase", true);
        if (tty) {
          const again = await requireLine("Re-enter keyring passphrase: ", "passphrase", true);
          if (again !== pass) throw new CliError("passphrases do not match");
        }
        return pass;
      }
      return requireLine("Enter keyring passphrase: ", "passphrase", true);
    },
  };
}
