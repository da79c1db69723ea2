#!/usr/bin/env node
/** The `xupgrade` executable. */
import { run } from "./program.js";

const code = await run(process.argv.slice(2));
process.exitCode = code;
// Exit even when an idle keep-alive socket would hold the event loop open (the timer itself does not).
setTimeout(() => process.exit(code), 50).unref();
