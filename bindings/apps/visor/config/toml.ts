/**
 * The optional TOML file (`-c/--cosmovisor-config`): lower-case variable names, under the environment. The
 * parser is loaded only when a file is given (most visors are configured by the environment alone).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as SmolToml from "smol-toml";
import { VisorError } from "../errors.js";
import { ENV_NAMES, type Source } from "./types.js";
import { statError } from "./validate.js";
import { messageOf } from "../../../base/errors.js";

/** The TOML file's values as variable → text (keys are the lower-case variable names). */
export function readConfigFile(path: string): Source {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new VisorError(`failed to read config file ${JSON.stringify(path)}: ${statError(e, path).replace(/^stat /, "open ")}`);
  }
  let doc: Record<string, unknown>;
  try {
    const { parse } = createRequire(import.meta.url)("smol-toml") as typeof SmolToml;
    doc = parse(text);
  } catch (e) {
    throw new VisorError(`failed to parse config file ${JSON.stringify(path)}: ${messageOf(e).split("\n")[0]}`);
  }
  const out: Source = {};
  for (const name of ENV_NAMES) {
    const v = doc[name.toLowerCase()];
    if (v === undefined || v === null) continue;
    if (typeof v === "string" || typeof v === "boolean" || typeof v === "number" || typeof v === "bigint") out[name] = String(v);
    else throw new VisorError(`invalid config file ${JSON.stringify(path)}: ${name.toLowerCase()} must be a string, a boolean or a number`);
  }
  return out;
}

/**
 * The file's values under the environment's: a variable set (non-empty) in the environment wins; missing
 * everywhere → the default.
 */
export function mergeSources(file: Source, env: Source): Source {
  const out: Source = {};
  for (const name of ENV_NAMES) {
    const e = env[name];
    out[name] = e !== undefined && (e !== "" || file[name] === undefined) ? e : file[name];
  }
  return out;
}
