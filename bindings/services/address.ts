/** Listen addresses of the servers: `host:port` (`127.0.0.1:9090`, `[::1]:0`, `localhost:1317`); port 0 picks an ephemeral port. */
import { parseHostPort, type HostPort } from "../base/host-port.js";

/** A server's listen address; a host is required (`:1317` is refused). Misuse is a TypeError naming the server. */
export function parseAddress(address: string, what: string): HostPort {
  if (typeof address !== "string") throw new TypeError(`${what} address must be a string "host:port"`);
  let hp: HostPort | undefined;
  try {
    hp = parseHostPort(address);
  } catch {
    // worded below
  }
  if (!hp || hp.host === "") throw new TypeError(`${what} address must be "host:port" (e.g. 127.0.0.1:0 or [::1]:0), got ${JSON.stringify(address)}`);
  return hp;
}
