/** What the ABCI server refuses, one class per cause; messages are whole sentences for the operator. */

/** A listen address that is not one CometBFT's `proxy_app` takes: no socket path, another scheme, a bad host:port. */
export class AbciAddressError extends Error {
  override name = "AbciAddressError";
}

/** The socket's path is taken: by something that is not a socket, or by a socket another process listens on. */
export class SocketInUseError extends Error {
  override name = "SocketInUseError";
}

/**
 * The application answered what CometBFT v0.38 panics on or fails the block for (a status other than ACCEPT or
 * REJECT, a tx result count that differs from the block's, a negative height): the server halts with this reason.
 */
export class AbciAnswerError extends Error {
  override name = "AbciAnswerError";
}
