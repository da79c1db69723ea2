/** What the client reports: one clear sentence naming the node, never a stack. */
export class ClientError extends Error {
  override name = "ClientError";
}

/** A node address that is not a usable URL; `reason` says why (`not a URL`, `scheme must be …`). */
export class NodeAddressError extends ClientError {
  override name = "NodeAddressError";
  constructor(
    readonly node: string,
    readonly reason: string,
  ) {
    super(`invalid node address ${JSON.stringify(node)}: ${reason}`);
  }
}
