/**
 * Free TCP ports on 127.0.0.1, for programs that must be told a port rather than pick their own (CometBFT, simd).
 * Picked at random below Linux's default ephemeral range (32768–60999): a port the kernel hands to port-0 listeners
 * and to the local end of outgoing connections could be taken by any connection between this check and the
 * program's bind, which on a busy machine with many nodes talking happens; a port below it is taken only by a
 * program told to take it.
 */
import { createServer } from "node:net";

const LOW = 20_000;
const HIGH = 32_000;

/** No free port was found in the range. */
export class NoFreePortError extends Error {
  override name = "NoFreePortError";
}

/** `n` distinct TCP ports that 127.0.0.1 can listen on right now. */
export async function freePorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  for (let tries = 0; out.size < n; tries++) {
    if (tries > 50 * n + 200) throw new NoFreePortError(`could not find ${n} free ports on 127.0.0.1 between ${LOW} and ${HIGH}`);
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (!out.has(port) && (await canListen(port))) out.add(port);
  }
  return [...out];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once("error", () => done(false));
    s.listen({ port, host: "127.0.0.1", exclusive: true }, () => s.close(() => done(true)));
  });
}
