/**
 * `host:port` addresses as Go's net.SplitHostPort reads them, with a decimal port of at most 65535:
 * `127.0.0.1:26657`, `localhost:1317`, `[::1]:0` (an IPv6 host in brackets), `:26658` (no host: every
 * interface). Port 0 asks the system for a free port. Callers word the error for their own surface.
 */
export interface HostPort {
  host: string;
  port: number;
}

export class HostPortError extends Error {
  override name = "HostPortError";
  constructor(readonly reason: "expected host:port" | "port out of range") {
    super(reason);
  }
}

const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+(?:%[^\]]+)?)\]|([^:/[\]\s]*)):([0-9]+)$/;

/** The host (without brackets; "" when none is given) and port of `text`; a HostPortError says why not. */
export function parseHostPort(text: string): HostPort {
  const m = HOST_PORT.exec(text);
  if (!m) throw new HostPortError("expected host:port");
  const port = Number(m[3]);
  if (port > 65535) throw new HostPortError("port out of range");
  return { host: m[1] ?? m[2], port };
}

/** `host:port`, an IPv6 host in brackets. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
