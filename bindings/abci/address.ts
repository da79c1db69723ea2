/**
 * Listen addresses in the forms CometBFT's `proxy_app` takes: `tcp://host:port`, `unix:///abs/path.sock`,
 * and, without a scheme, `host:port` (CometBFT reads a bare address as TCP) or a filesystem path.
 */
import { lstat, unlink } from "node:fs/promises";
import { connect } from "node:net";
import { resolve } from "node:path";
import { HostPortError, joinHostPort, parseHostPort, type HostPort } from "../base/host-port.js";
import { AbciAddressError, SocketInUseError } from "./errors.js";

export type ListenAddress = { kind: "tcp"; host: string; port: number } | { kind: "unix"; path: string };

export function parseAddress(address: string): ListenAddress {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(address);
  if (scheme) {
    const [, protocol, rest] = scheme;
    switch (protocol.toLowerCase()) {
      case "tcp":
        return tcpAddress(rest, address);
      case "unix":
        if (rest === "") throw new AbciAddressError(`no socket path in ${JSON.stringify(address)}`);
        return { kind: "unix", path: resolve(rest) };
      default:
        throw new AbciAddressError(`unsupported ABCI address scheme "${protocol}" in ${JSON.stringify(address)} (use tcp:// or unix://)`);
    }
  }
  if (/^(\[[^\]]*\]|[^/:]*):\d+$/.test(address)) return tcpAddress(address, address);
  if (address === "") throw new AbciAddressError("empty ABCI address");
  return { kind: "unix", path: resolve(address) };
}

function tcpAddress(hostPort: string, original: string): ListenAddress {
  let hp: HostPort;
  try {
    hp = parseHostPort(hostPort);
  } catch (e) {
    if (e instanceof HostPortError) throw new AbciAddressError(`${e.reason} in ${JSON.stringify(original)}`, { cause: e });
    throw e;
  }
  // Go listens on every interface for an empty host, as does Node for "::"/unspecified.
  return { kind: "tcp", host: hp.host === "" ? "0.0.0.0" : hp.host, port: hp.port };
}

/** The address in CometBFT's notation, e.g. for its `--proxy_app` flag. */
export function formatAddress(a: ListenAddress): string {
  if (a.kind === "unix") return `unix://${a.path}`;
  return `tcp://${joinHostPort(a.host, a.port)}`;
}

/**
 * Removes a socket file left by a process that died without closing it (Node's listen would fail with
 * EADDRINUSE). A socket something still answers on is left alone, and so is anything that is not a socket.
 */
export async function removeStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch {
    return; // nothing there
  }
  if (!isSocket) throw new SocketInUseError(`${path} exists and is not a socket; refusing to replace it`);
  if (await answers(path)) throw new SocketInUseError(`another process is listening on ${path}`);
  await unlink(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "ENOENT") throw e;
  });
}

function answers(path: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = connect({ path });
    probe.once("connect", () => {
      probe.destroy();
      done(true);
    });
    probe.once("error", () => done(false));
  });
}
