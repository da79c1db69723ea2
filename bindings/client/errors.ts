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

/** A string that is not a `cosmos` account address: the bech32 decoder's or the SDK's reason, as they word it. */
export class InvalidAddressError extends ClientError {
  override name = "InvalidAddressError";
}
