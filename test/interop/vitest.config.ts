/**
 * `npm run test:interop` (through test/interop/run.mjs): the side-by-side suites against the real peers.
 * The comparison suites (*.test.ts, which `npm test` runs against the recorded fixture) run here against a
 * live capture (global-setup.ts), followed by the live-only suites (*.interop.ts). One file at a time: the
 * chains and the timed upgrades share two cores.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("../..", import.meta.url));

export default defineConfig({
  root,
  resolve: {
    alias: [
      { find: /^xupgrade\/light$/, replacement: fileURLToPath(new URL("../../bindings/light/index.ts", import.meta.url)) },
      { find: /^xupgrade$/, replacement: fileURLToPath(new URL("../../bindings/browser.ts", import.meta.url)) },
    ],
  },
  test: {
    name: "interop",
    include: ["test/interop/**/*.test.ts", "test/interop/**/*.interop.ts", "test/e2e/**/*.interop.ts"],
    globalSetup: ["test/interop/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
    sequence: { shuffle: false },
  },
});
