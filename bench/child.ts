/**
 * Child-process entry of the bench (spawned by run.ts): one backend's suite, one cold start, or one
 * memory run in a process of its own. Prints one JSON line prefixed with RESULT.
 *   node --import tsx --expose-gc bench/child.ts suite wasm|js [--quick]
 *   node --import tsx --expose-gc bench/child.ts cold file|inline
 *   node --import tsx --expose-gc bench/child.ts memory wasm|js [--quick]
 *   node --import tsx --expose-gc bench/child.ts state-build <dir> <keys>
 *   node --import tsx --expose-gc bench/child.ts state-measure <dir> <keys> <blocks> <proofs> <warm-up blocks>
 */
import type { Backend } from "../bindings/core/contract.js";
import { coldStart } from "./cases/instantiate.js";
import { memoryRun } from "./cases/memory.js";
import { buildState, measureState } from "./cases/state.js";
import { config } from "./config.js";
import { runSuite } from "./suite.js";

const [mode, arg, ...rest] = process.argv.slice(2);
let result: unknown;
if (mode === "suite") result = await runSuite([arg as Backend], (line) => process.stderr.write(`${line}\n`));
else if (mode === "cold") result = await coldStart(arg as "file" | "inline");
else if (mode === "memory") result = await memoryRun(arg as Backend, config.memoryPreBlocks, config.memoryCycles);
else if (mode === "state-build") result = await buildState(arg, Number(rest[0]));
else if (mode === "state-measure") result = await measureState(arg, Number(rest[0]), Number(rest[1]), Number(rest[2]), Number(rest[3]));
else throw new Error(`unknown mode ${mode}`);
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
