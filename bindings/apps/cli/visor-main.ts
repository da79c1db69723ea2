/**
 * The bin's entry for `xupgrade visor …` (bin.ts): the root program with the `visor` group alone. The sidecar
 * runs beside the node for months, so its process holds neither the other command groups nor their flags.
 */
import { registerVisor } from "./commands/visor.js";
import { run } from "./program.js";

const code = await run(process.argv.slice(2), registerVisor);
process.exitCode = code;
// Exit even when an idle keep-alive socket would hold the event loop open (the timer itself does not).
setTimeout(() => process.exit(code), 50).unref();
