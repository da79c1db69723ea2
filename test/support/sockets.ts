/**
 * Real TCP clients that misbehave, for the HTTP-hardening suites: slowloris clients (a request line, then
 * one header line every interval, never the blank line), idle ones (connect and say nothing), and raw
 * exchanges. Each records when the server closed it and what it answered.
 */
import { connect, type Socket } from "node:net";

export interface WatchedSocket {
  socket: Socket;
  /** ms after `t0` when the server closed the connection; undefined while open. */
  closedAfter: number | undefined;
  /** Everything the server sent. */
  received(): string;
  /** Resolves once the connection is closed. */
  closed: Promise<void>;
}

function watch(socket: Socket, t0: number, onClose?: () => void): WatchedSocket {
  const chunks: Buffer[] = [];
  const w: WatchedSocket = {
    socket,
    closedAfter: undefined,
    received: () => Buffer.concat(chunks).toString("latin1"),
    closed: new Promise<void>((resolve) => {
      socket.on("close", () => {
        w.closedAfter = performance.now() - t0;
        onClose?.();
        resolve();
      });
    }),
  };
  socket.on("data", (c: Buffer) => chunks.push(c));
  socket.on("error", () => undefined);
  return w;
}

function opened(port: number, host: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, host, () => resolve(s));
    s.once("error", reject);
  });
}

/** `n` connections that send nothing at all. */
export async function idleClients(port: number, n: number, t0 = performance.now(), host = "127.0.0.1"): Promise<WatchedSocket[]> {
  const out: WatchedSocket[] = [];
  for (let i = 0; i < n; i++) out.push(watch(await opened(port, host), t0));
  return out;
}

/**
 * `n` slowloris connections: `GET <path> HTTP/1.1`, then one `X-Slow-<k>: <k>` header line every
 * `intervalMs` (1 s by default), never the blank line that ends the head.
 */
export async function slowlorisClients(
  port: number,
  n: number,
  o: { path?: string; intervalMs?: number; t0?: number; host?: string } = {},
): Promise<WatchedSocket[]> {
  const t0 = o.t0 ?? performance.now();
  const out: WatchedSocket[] = [];
  for (let i = 0; i < n; i++) {
    const s = await opened(port, o.host ?? "127.0.0.1");
    let k = 0;
    const timer = setInterval(() => {
      if (s.writable) s.write(`X-Slow-${k}: ${k++}\r\n`);
    }, o.intervalMs ?? 1000);
    s.write(`GET ${o.path ?? "/"} HTTP/1.1\r\nHost: x\r\n`);
    out.push(watch(s, t0, () => clearInterval(timer)));
  }
  return out;
}

/** Closes whatever is still open (test cleanup). */
export function destroyAll(sockets: readonly WatchedSocket[]): void {
  for (const w of sockets) w.socket.destroy();
}

/** Sends `payload` on a fresh connection and collects the answer until the server closes or `timeoutMs` passes. */
export async function exchange(port: number, payload: string | Buffer, timeoutMs = 5000, host = "127.0.0.1"): Promise<string> {
  const w = watch(await opened(port, host), performance.now());
  w.socket.write(payload);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([w.closed, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
  w.socket.destroy();
  return w.received();
}
