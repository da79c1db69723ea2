/**
 * The visor's configuration (docs/spec/sidecar.md §3): environment variables, optionally a TOML file underneath them
 * (`-c/--cosmovisor-config`, lower-case variable names, defaults for missing keys), every problem collected
 * and reported at once with cosmovisor's wording, and the `visor config` listing.
 */
import { VisorError } from "../errors.js";
import { parseConfig } from "./env.js";
import { mergeSources, readConfigFile } from "./toml.js";
import type { VisorConfig } from "./types.js";
import { validateConfig } from "./validate.js";

export * from "./types.js";
export { parseConfig } from "./env.js";
export { detailString } from "./print.js";
export { mergeSources, readConfigFile } from "./toml.js";
export { validateConfig } from "./validate.js";

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** `-c/--cosmovisor-config`; "" or undefined: environment only. */
  configFile?: string;
  /** Skip Config.validate (init: the root does not exist yet). */
  validate?: boolean;
}

/** The configuration, or one VisorError listing every problem (one per line). */
export function loadConfig(o: LoadOptions = {}): VisorConfig {
  const env = o.env ?? process.env;
  const src = o.configFile ? mergeSources(readConfigFile(o.configFile), env) : env;
  const { cfg, errors } = parseConfig(src);
  if (o.validate !== false) errors.push(...validateConfig(cfg));
  if (errors.length > 0) throw new VisorError(errors.join("\n"));
  return cfg;
}
