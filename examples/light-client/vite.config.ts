// `npm run build:ui`: builds the light-client page into the package's dist/ui, which
// `xupgrade devnet start` serves at /ui (an installed package too). Relative asset paths (base "./"), so the same build also works
// from any other static server or path.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here("."),
  base: "./",
  // The package's browser entry and its light client, imported as a consumer of the published package would.
  resolve: {
    alias: [
      { find: /^xupgrade\/light$/, replacement: here("../../bindings/light/index.ts") },
      { find: /^xupgrade$/, replacement: here("../../bindings/browser.ts") },
    ],
  },
  logLevel: "warn",
  build: {
    outDir: here("../../dist/ui"),
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
    // The .wasm core is inlined (base64) in the package's browser entry: no separate fetch (the two pages share it in one chunk).
    modulePreload: false,
    // The single-chain page, and the fleet view `xupgrade watch` serves (its rows link to the first).
    rollupOptions: { input: { index: here("index.html"), fleet: here("fleet.html") } },
  },
});
