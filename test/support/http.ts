/** A throwaway HTTP server on 127.0.0.1 with a random port; an async handler that throws answers 502. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => unknown): Promise<TestServer> {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
