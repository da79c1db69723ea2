/**
 * `<home>/config/client.toml`: defaults for `node`, `chain-id`, `keyring-backend` and `output`, as the
 * SDK's client config. Flags override it; a missing file means built-in defaults. Only flat
 * `key = "value"` lines are read; other lines are ignored.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "./errors.js";

export interface ClientConfig {
  node?: string;
  "chain-id"?: string;
  "keyring-backend"?: string;
  output?: string;
}

const KEYS = new Set(["node", "chain-id", "keyring-backend", "output"]);

export function clientConfigPath(home: string): string {
  return join(home, "config", "client.toml");
}

export function readClientConfig(home: string): ClientConfig {
  const path = clientConfigPath(home);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT" || (e as { code?: string }).code === "ENOTDIR") return {};
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
  const config: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(#.*)?$/.exec(line);
    if (!m || !KEYS.has(m[1])) continue;
    config[m[1]] = m[2] !== undefined ? JSON.parse(`"${m[2]}"`) : m[3];
  }
  return config;
}
