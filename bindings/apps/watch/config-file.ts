/**
 * Reads the watch's config file (TOML, or JSON by its `.json` name) and the chain-registry files it names (a path,
 * relative to the config file, or an https:// URL), then parses it (./config.ts). Node only.
 */
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { WatchConfigError } from "./errors.js";
import { parseWatchConfig, registryRefs, type WatchConfig } from "./config.js";

async function readRegistry(ref: string, base: string): Promise<unknown> {
  if (/^https?:\/\//.test(ref)) {
    const res = await fetch(ref, { signal: AbortSignal.timeout(15_000) });
    if (!res.ok) throw new WatchConfigError([`HTTP ${res.status}`]);
    return res.json();
  }
  return JSON.parse(await readFile(isAbsolute(ref) ? ref : join(base, ref), "utf8"));
}

export async function loadWatchConfig(path: string): Promise<WatchConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new WatchConfigError([`cannot read the watch config ${path}: ${(e as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = path.endsWith(".json") ? JSON.parse(text) : parseToml(text);
  } catch (e) {
    throw new WatchConfigError([`${path} is not valid ${path.endsWith(".json") ? "JSON" : "TOML"}: ${(e as Error).message}`]);
  }
  const registries = new Map<string, unknown>();
  const problems: string[] = [];
  for (const ref of new Set(registryRefs(raw))) {
    try {
      registries.set(ref, await readRegistry(ref, dirname(path)));
    } catch (e) {
      problems.push(`registry ${ref}: ${(e as Error).message}`);
    }
  }
  try {
    return parseWatchConfig(raw, registries);
  } catch (e) {
    if (e instanceof WatchConfigError) throw new WatchConfigError([...problems, ...e.problems]);
    throw e;
  }
}
