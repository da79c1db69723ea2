#!/usr/bin/env node
/** The `xupgrade` executable (the package's bin is its bundle, see query-main.ts). */
import { run } from "./program.js";
import { registerAll } from "./tree.js";

const code = await run(process.argv.slice(2), registerAll);
process.exitCode = code;
// Exit even when an idle keep-alive socket would hold the event loop open (the timer itself does not).
setTimeout(() => process.exit(code), 50).unref();
