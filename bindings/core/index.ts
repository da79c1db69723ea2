/** Chooses a core. "wasm" is the default; "js" is its pure-TypeScript twin. */
import type { Backend, Core } from "./contract.js";
import { jsCore } from "./js/index.js";
import { compileCore, createWasmCore } from "./wasm/index.js";

let wasmCore: Promise<Core> | undefined;

export async function loadCore(backend: Backend = "wasm"): Promise<Core> {
  if (backend === "js") return jsCore;
  if (backend !== "wasm") throw new TypeError(`unknown backend ${JSON.stringify(backend)}: expected "wasm" or "js"`);
  wasmCore ??= compileCore().then(createWasmCore);
  return wasmCore;
}

export type { Backend, Core, CoreSession, PreBlockDecision } from "./contract.js";
