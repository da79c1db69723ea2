/** The core the CLI uses: the WebAssembly core, or its TypeScript twin with XUPGRADE_CORE=js. */
import { loadCore } from "../../core/index.js";
import type { Core } from "../../core/contract.js";
import { CliError } from "./errors.js";

export function cliCore(env: NodeJS.ProcessEnv = process.env): Promise<Core> {
  const backend = env.XUPGRADE_CORE ?? "wasm";
  if (backend !== "wasm" && backend !== "js") throw new CliError(`invalid XUPGRADE_CORE ${JSON.stringify(backend)}: must be wasm or js`);
  return loadCore(backend);
}
