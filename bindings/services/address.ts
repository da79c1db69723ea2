/** `host:port` addresses (`127.0.0.1:9090`, `[::1]:0`, `localhost:1317`); port 0 picks an ephemeral port. */

export interface HostPort {
  host: string;
  port: number;
}

export function parseAddress(address: string, what: string): HostPort {
  if (typeof address !== "string") throw new TypeError(`${what} address must be a string "host:port"`);
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new TypeError(`${what} address must be "host:port" (e.g. 127.0.0.1:0 or [::1]:0), got ${JSON.stringify(address)}`);
  return { host: m[1] ?? m[2], port };
}

export function formatAddress(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
