/**
 * The bin's fast path for `xupgrade query …` / `xupgrade q …` (bin.ts): the same root program with the `query`
 * group alone. An operator's shell loop or a monitoring script runs these over and over, so they get a bundle
 * of their own that holds only what a query runs (commander, the query commands, the RPC client, the message
 * types), compiled from a V8 code cache. Every other command line goes through main.ts.
 */
import { registerQueryGroup } from "./commands/query.js";
import { run } from "./program.js";

/** Runs `xupgrade <argv…>` where argv[0] is `query` or `q`; returns the exit code. */
export const runQuery = (argv: string[]): Promise<number> => run(argv, registerQueryGroup);
