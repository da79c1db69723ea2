/**
 * `watch`'s HTTP server (docs/spec/watch.md §8–§9), GET and HEAD only, with the project's HTTP hardening:
 *
 * | path | what |
 * | --- | --- |
 * | `/` | redirects to `/fleet.html` |
 * | `/fleet.html`, `/index.html`, `/assets/<file>` | the built pages (`npm run build:ui`: the fleet view, and the single-chain page its rows link to) |
 * | `/fleet.json` | the fleet's rows (./fleet.ts); any origin may read it, so a fleet page hosted elsewhere can |
 * | `/calendar.ics`, `/chains/<name>.ics` | the calendar feeds (./ics.ts) |
 * | `/metrics` | Prometheus text (./metrics.ts) |
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { IncomingMessage, ServerResponse } from "node:http";
import { joinHostPort, parseHostPort } from "../../base/host-port.js";
import { closeGracefully, createHardenedServer, listen, resolveHttpLimits } from "../../services/http.js";
import { serveStaticFile } from "../../services/static.js";

export interface Answer {
  status: number;
  type: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface WatchRoutes {
  fleet(): string;
  calendar(chain?: string): string | undefined;
  metrics(): Promise<{ type: string; text: string }>;
}

export interface WatchServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Where `npm run build:ui` writes the pages: the package's dist/ui, found from the bundles, dist/ and the sources. */
export function defaultUiDir(): string {
  const candidates = [new URL("../../ui/", import.meta.url), new URL("../../../ui/", import.meta.url), new URL("../../../../dist/ui/", import.meta.url)].map(
    (u) => fileURLToPath(u),
  );
  return candidates.find((dir) => existsSync(join(dir, "fleet.html"))) ?? candidates[0];
}

/** A percent-decoded path segment ("" when it does not decode: no file or chain has that name). */
const decoded = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return "";
  }
};

const text = (status: number, body: string): Answer => ({ status, type: "text/plain; charset=utf-8", body: `${body}\n` });

async function answer(path: string, routes: WatchRoutes, uiDir: string): Promise<Answer> {
  if (path === "/") return { status: 302, type: "text/plain; charset=utf-8", body: "", headers: { Location: "/fleet.html" } };
  if (path === "/fleet.json") return { status: 200, type: "application/json", body: routes.fleet(), headers: { "Access-Control-Allow-Origin": "*" } };
  if (path === "/metrics") {
    const m = await routes.metrics();
    return { status: 200, type: m.type, body: m.text };
  }
  const chain = /^\/chains\/([^/]+)\.ics$/.exec(path)?.[1];
  const ics = path === "/calendar.ics" ? routes.calendar() : chain !== undefined ? routes.calendar(decoded(chain)) : null;
  if (ics !== null) {
    if (ics === undefined) return text(404, "no such chain");
    return { status: 200, type: "text/calendar; charset=utf-8", body: ics, headers: { "Access-Control-Allow-Origin": "*" } };
  }
  const m = /^\/(?:(assets)\/)?([^/]+)$/.exec(path);
  if (m && (m[1] === "assets" || m[2] === "fleet.html" || m[2] === "index.html")) {
    const r = await serveStaticFile(decoded(m[2]), {
      root: uiDir,
      sub: m[1] ?? "",
      missing: () => ({ status: 404, body: "not built: run npm run build:ui\n", headers: { "Content-Type": "text/plain; charset=utf-8" } }),
    });
    const body = typeof r.body === "string" || r.body instanceof Uint8Array ? r.body : JSON.stringify(r.body);
    return { status: r.status ?? 200, type: r.headers?.["Content-Type"] ?? "application/octet-stream", body, headers: r.headers };
  }
  return text(404, `not found: ${path}`);
}

export async function startWatchServer(address: string, routes: WatchRoutes, o: { uiDir?: string; onError?: (e: unknown) => void } = {}): Promise<WatchServer> {
  const { host, port } = parseHostPort(address);
  const uiDir = o.uiDir ?? process.env.XUPGRADE_UI_DIR ?? defaultUiDir();
  const send = (res: ServerResponse, a: Answer, head: boolean) => {
    const body = typeof a.body === "string" ? Buffer.from(a.body) : a.body;
    res.writeHead(a.status, { "Cache-Control": "no-store", ...a.headers, "Content-Type": a.type, "Content-Length": body.byteLength });
    res.end(head ? undefined : body);
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const head = req.method === "HEAD";
    if (req.method !== "GET" && !head) {
      res.setHeader("Allow", "GET, HEAD");
      return send(res, text(405, "method not allowed"), false);
    }
    const path = (req.url ?? "/").split("?")[0];
    answer(path, routes, uiDir).then(
      (a) => send(res, a, head),
      (e: unknown) => {
        o.onError?.(e);
        send(res, text(500, "internal error"), head);
      },
    );
  };
  const server = createHardenedServer(resolveHttpLimits({ maxConnections: 256, maxBodyBytes: 1 }), handler, (res, message) =>
    send(res, text(413, message), false),
  );
  const bound = await listen(server, host, port);
  return { url: `http://${joinHostPort(host, bound)}`, close: () => closeGracefully(server, 1000) };
}
