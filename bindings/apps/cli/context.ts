/**
 * What a command resolves from its flags (flag > `<home>/config/client.toml` > built-in default): the
 * home, the output format, the node's RPC client and the query height. The keyring is added by
 * keys/context.ts for the commands that sign or manage keys, so queries never load it.
 */
import { NodeAddressError } from "../../client/errors.js";
import { CometRpc, DEFAULT_NODE } from "../../client/rpc.js";
import { readClientConfig, type ClientConfig } from "./config.js";
import { httpTransport } from "../../client/http.js";
import { CliError } from "./errors.js";
import { defaultHome, type KeyringOpts, type QueryOpts, integerValue } from "./flags.js";
import { parseOutput, type OutputFormat } from "./output.js";
import { QUERY_HEIGHT } from "../../go/option.js";

export class Context {
  readonly home: string;
  readonly config: ClientConfig;

  constructor(readonly opts: QueryOpts & KeyringOpts) {
    this.home = opts.home ?? defaultHome();
    if (this.home === "") throw new CliError("invalid --home: must not be empty");
    this.config = readClientConfig(this.home);
    void this.output; // an invalid --output fails before anything else happens
  }

  get output(): OutputFormat {
    return parseOutput(this.opts.output ?? this.config.output);
  }

  rpc(): CometRpc {
    const node = this.opts.node ?? this.config.node ?? DEFAULT_NODE;
    try {
      return new CometRpc(node, undefined, httpTransport);
    } catch (e) {
      if (e instanceof NodeAddressError) throw new CliError(`invalid --node ${JSON.stringify(node)}: ${e.reason}`);
      throw e;
    }
  }

  /** `--height`: an int64 >= 0 (0 = latest). */
  get height(): bigint {
    const h = this.opts.height;
    if (h === undefined) return 0n;
    return integerValue("--height", h, QUERY_HEIGHT);
  }
}
