import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { playwright } from "@vitest/browser-playwright";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./test/support/chromium.js";

// Chromium from the system (Debian's `chromium`), shared with the light-client suite.
const chromium = playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } });

// The suites that start networks — CometBFT testnets, devnet nodes, visors — and mostly wait on their blocks. npm test
// (scripts/test.mjs) runs them as their own lane, one file at a time, beside the other suites.
const CHAINS = [
  "test/e2e/**/*.test.ts",
  "test/apps/devnet/**/*.test.ts",
  "test/apps/cli/devnet.test.ts",
  "test/apps/visor/{demo,container,rehearse,readiness}.test.ts",
  "test/apps/watch/watch.test.ts",
  "test/examples/light-client/{verified,page}.test.ts",
  "test/light/cometbft.test.ts",
  "test/abci/cometbft.test.ts",
];

// A bound that catches a hung test, not a slow one: the two lanes share two cores, and a CPU-bound property test
// that takes 10 s alone took 31 s beside the network suites.
const TEST_TIMEOUT = 120_000;

export default defineConfig({
  // The light-client page imports the package by name, as a consumer would: in tests, its browser entry's sources.
  resolve: {
    alias: [
      { find: /^xupgrade\/light$/, replacement: fileURLToPath(new URL("./bindings/light/index.ts", import.meta.url)) },
      { find: /^xupgrade$/, replacement: fileURLToPath(new URL("./bindings/browser.ts", import.meta.url)) },
    ],
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "chains",
          include: CHAINS,
          testTimeout: TEST_TIMEOUT,
        },
      },
      {
        extends: true,
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.browser.test.ts", ...CHAINS],
          testTimeout: TEST_TIMEOUT,
        },
      },
      {
        extends: true,
        test: {
          name: "browser",
          include: ["test/**/*.browser.test.ts"],
          browser: { enabled: true, headless: true, instances: [{ browser: "chromium" }], provider: chromium },
        },
      },
    ],
  },
});
