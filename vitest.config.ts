import { defineConfig } from "vitest/config";
import { playwright } from "@vitest/browser-playwright";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./test/support/chromium.js";

// Chromium from the system (Debian's `chromium`), shared with the light-client suite.
const chromium = playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } });

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.browser.test.ts"],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/**/*.browser.test.ts"],
          browser: { enabled: true, headless: true, instances: [{ browser: "chromium" }], provider: chromium },
        },
      },
    ],
  },
});
