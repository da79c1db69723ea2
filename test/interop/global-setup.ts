/**
 * `npm run test:interop`: before any suite runs, simd's answers are captured live from the real binaries
 * (the same capture scripts/capture-simd.mjs records into the fixture), written to
 * test-output/interop/simd-live.json, and handed to the comparison suites, which then compare the devnet with
 * simd as it answers now. drift.interop.ts compares this capture with the committed fixture.
 *
 * XUPGRADE_INTEROP_REUSE=1 reuses the previous live capture (for working on the suites themselves).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { removeTempDirs } from "../apps/cli/helpers.js";
import { ROOT } from "../support/paths.js";
import { captureAll } from "./support/capture.js";
import { builtWithGo, interopPeers } from "./support/peers.js";
import { killAll } from "./support/simd.js";

export const LIVE_CAPTURE = join(ROOT, "test-output/interop/simd-live.json");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const peers = interopPeers();
  if (!(process.env.XUPGRADE_INTEROP_REUSE === "1" && existsSync(LIVE_CAPTURE))) {
    const started = Date.now();
    try {
      const capture = await captureAll(peers, builtWithGo());
      mkdirSync(join(ROOT, "test-output/interop"), { recursive: true });
      writeFileSync(LIVE_CAPTURE, `${JSON.stringify(capture, null, 2)}\n`);
      console.log(`interop: captured simd live in ${((Date.now() - started) / 1000).toFixed(1)} s → ${LIVE_CAPTURE}`);
    } finally {
      await killAll();
      removeTempDirs();
    }
  }
  project.provide("simdLiveCapture", LIVE_CAPTURE);
  return async () => {
    await killAll();
  };
}
