/**
 * Child-process entry of the bench (spawned by run.ts): one backend's suite, one cold start, or one
 * memory run in a process of its own. Prints one JSON line prefixed with RESULT.
 *   node --import tsx --expose-gc bench/child.ts suite wasm|js [--quick]
 *   node --import tsx --expose-gc bench/child.ts cold file|inline
 *   node --import tsx --expose-gc bench/child.ts memory wasm|js [--quick]
 */
import type { Backend } from "../bindings/core/contract.js";
import { coldStart } from "./cases/instantiate.js";
import { memoryRun } from "./cases/memory.js";
import { config } from "./config.js";
import { runSuite } from "./suite.js";

const [mode, arg] = process.argv.slice(2);
let result: unknown;
if (mode === "suite") result = await runSuite([arg as Backend], (line) => process.stderr.write(`${line}\n`));
else if (mode === "cold") result = await coldStart(arg as "file" | "inline");
else if (mode === "memory") result = await memoryRun(arg as Backend, config.memoryPreBlocks, config.memoryCycles);
else throw new Error(`unknown mode ${mode}`);
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
