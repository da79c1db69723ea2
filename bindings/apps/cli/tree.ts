/** Every command group of `xupgrade`, in the order its help lists them. */
import type { Command } from "commander";
import { registerDevnet } from "./commands/devnet.js";
import { registerKeys } from "./commands/keys.js";
import { registerQueryGroup } from "./commands/query.js";
import { registerTxGroup } from "./commands/tx.js";
import { registerVisor } from "./commands/visor.js";
import { registerWatch } from "./commands/watch.js";

export function registerAll(program: Command): void {
  registerQueryGroup(program);
  registerTxGroup(program);
  registerKeys(program);
  registerDevnet(program);
  registerVisor(program);
  registerWatch(program);
}
