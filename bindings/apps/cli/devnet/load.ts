/** The devnet host, loaded when a devnet command runs (typed lazy import), with a clear error when a build has none. */
import type * as Devnet from "../../devnet/index.js";
import { CliError } from "../errors.js";
import { messageOf } from "../../../base/errors.js";

/** Loads the devnet host; a clear error when this build has none. */
export async function loadDevnet(): Promise<typeof Devnet> {
  try {
    return await import("../../devnet/index.js");
  } catch (e) {
    const code = (e as { code?: string }).code;
    const text = messageOf(e);
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && /devnet[\\/]index/.test(text)) {
      throw new CliError("the devnet host is not available in this build (bindings/apps/devnet/index.js is missing)");
    }
    throw new CliError(`cannot load the devnet host: ${text}`);
  }
}
