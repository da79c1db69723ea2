/**
 * The light-client page (examples/light-client, built by `npm run build:ui`) served by the devnet's REST
 * gateway under `/ui`: `/ui` redirects to `/ui/index.html` (query kept); `/ui/<file>` and `/ui/assets/<file>` are files of
 * the built page with their MIME types; `/ui/config.json` tells the page where this node's RPC is (the page
 * uses the REST address it was loaded from). The page's .wasm core is inlined in its script, so everything
 * served is static text except what a future build may add.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RestRoute, RestRouteResult } from "../../../services/rest-gateway.js";
import { notFound, serveStaticFile } from "../../../services/static.js";

/**
 * Where `npm run build:ui` writes the page: `dist/ui/`, inside the package, so an installed `xupgrade
 * devnet start` serves it. Found from the CLI's bundles in dist/apps/cli/, from dist/apps/devnet/node/ (the
 * package) and from bindings/apps/devnet/node/ (a clone running the sources).
 */
export function defaultUiDir(): string {
  const candidates = [new URL("../../ui/", import.meta.url), new URL("../../../ui/", import.meta.url), new URL("../../../../dist/ui/", import.meta.url)].map(
    (u) => fileURLToPath(u),
  );
  return candidates.find((dir) => existsSync(join(dir, "index.html"))) ?? candidates[0];
}

export interface UiRoutesOptions {
  /** The built page, default {@link defaultUiDir} (env `XUPGRADE_UI_DIR` overrides it). */
  dir?: string;
  /**
   * This node's facts for the page: the RPC URL is known only once the RPC server listens; the engine says
   * whether a light client can verify its headers (CometBFT's: yes; the single-process engine's: no).
   */
  config(): { chain_id: string; rpc: string; engine?: "local" | "cometbft" };
}

/** The `/ui` routes for `startRestGateway`'s / `serveQueries`' `rest.routes`. */
export function devnetUiRoutes(options: UiRoutesOptions): RestRoute[] {
  const dir = options.dir ?? process.env.XUPGRADE_UI_DIR ?? defaultUiDir();
  const file = (sub: string, name: string) => serveFile(dir, sub, name);
  return [
    {
      path: "/ui",
      handler: ({ query }) => {
        const q = query.toString();
        return { status: 302, body: "", headers: { Location: `/ui/index.html${q ? `?${q}` : ""}`, "Content-Type": "text/plain" } };
      },
    },
    {
      path: "/ui/{file}",
      handler: ({ params }) =>
        params.file === "config.json" ? { body: JSON.stringify(options.config()), headers: { "Cache-Control": "no-store" } } : file("", params.file),
    },
    { path: "/ui/assets/{file}", handler: ({ params }) => file("assets", params.file) },
  ];
}

/** One file of the page (docs/spec/interfaces.md §12.1: names checked, every "no such file" a 404 without a path). */
function serveFile(dir: string, sub: string, name: string): Promise<RestRouteResult> {
  return serveStaticFile(name, {
    root: dir,
    sub,
    // Vite puts a content hash in every asset name; index.html must be re-read.
    headers: { "Cache-Control": sub === "assets" ? "public, max-age=31536000, immutable" : "no-cache" },
    missing: (n) =>
      sub === "" && n === "index.html"
        ? notFound("the light-client page is not built: run `npm run build:ui` in the xupgrade repository (or set XUPGRADE_UI_DIR)")
        : notFound(`no such file: ${sub ? `${sub}/` : ""}${n}`),
  });
}
