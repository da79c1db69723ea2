/**
 * Free TCP ports on 127.0.0.1, for programs that cannot be told to pick their own (`:0`) and report it
 * (simd, CometBFT). All ports of one call are held open together while they are chosen, so they differ;
 * another process may still take one before the program binds it, which callers turn into a retry.
 */
import { createServer, type Server } from "node:net";

export async function freePorts(n: number, host = "127.0.0.1"): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = createServer();
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        s.listen(0, host, () => resolve());
      });
      servers.push(s);
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
