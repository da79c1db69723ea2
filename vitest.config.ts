import { defineConfig } from "vitest/config";
import { playwright } from "@vitest/browser-playwright";

// Chromium from the system (Debian's `chromium`); the flags keep it quiet on a machine without a network.
const chromium = playwright({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  },
});

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
