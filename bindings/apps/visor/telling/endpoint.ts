/**
 * The visor's one HTTP endpoint (docs/spec/sidecar.md §11.2): a small server on a loopback address
 * (`DAEMON_HTTP_ADDRESS`, off by default) on which each feature registers its routes — `/metrics` (the
 * Prometheus text), and whatever else the visor serves to this machine's monitoring. GET and HEAD only, no
 * bodies, the project's HTTP hardening (services/http.ts); an unknown path answers 404 with the routes there
 * are. Loaded only when the address is set.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { joinHostPort } from "../../../base/host-port.js";
import { parseAddress } from "../../../services/address.js";
import { closeGracefully, createHardenedServer, listen, resolveHttpLimits } from "../../../services/http.js";
import type { VisorLogger } from "../log.js";

/** What a route answers: a status, a content type and a body. */
export interface RouteAnswer {
  status: number;
  type: string;
  body: string;
}

export type Route = (req: IncomingMessage) => RouteAnswer | Promise<RouteAnswer>;

export interface VisorEndpoint {
  /** `host:port` as bound (port 0 resolved). */
  readonly address: string;
  readonly url: string;
  /** Serves `path` (exactly, query ignored) with `route`; a later registration of the same path replaces it. */
  route(path: string, route: Route): void;
  close(): Promise<void>;
}

const json = (status: number, v: unknown): RouteAnswer => ({ status, type: "application/json", body: JSON.stringify(v) + "\n" });

export async function startEndpoint(address: string, log: VisorLogger): Promise<VisorEndpoint> {
  const { host, port } = parseAddress(address, "DAEMON_HTTP_ADDRESS");
  const routes = new Map<string, Route>();
  const send = (res: ServerResponse, a: RouteAnswer, head: boolean) => {
    res.writeHead(a.status, { "Content-Type": a.type, "Cache-Control": "no-store", "Content-Length": Buffer.byteLength(a.body) });
    res.end(head ? undefined : a.body);
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    const head = req.method === "HEAD";
    if (req.method !== "GET" && !head) {
      res.setHeader("Allow", "GET, HEAD");
      return send(res, json(405, { error: "method not allowed" }), false);
    }
    const route = routes.get(path);
    if (!route) return send(res, json(404, { error: `not found: ${path}`, routes: [...routes.keys()].sort() }), head);
    Promise.resolve()
      .then(() => route(req))
      .then(
        (a) => send(res, a, head),
        (e: unknown) => send(res, json(500, { error: (e as Error).message }), head),
      );
  };
  const server = createHardenedServer(resolveHttpLimits({ maxConnections: 64, maxBodyBytes: 1 }), handler, (res, message) =>
    send(res, json(413, { error: message }), false),
  );
  const bound = await listen(server, host, port);
  const hostPort = joinHostPort(host, bound);
  log.info(`serving the visor's endpoint at http://${hostPort}`);
  return {
    address: hostPort,
    url: `http://${hostPort}`,
    route: (path, r) => void routes.set(path, r),
    close: () => closeGracefully(server, 1000),
  };
}
