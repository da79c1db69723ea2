/**
 * `npm run test:interop`: before any suite runs, every SDK line's answers (support/lines.ts: simd v0.50, appd
 * v0.53 and v0.54) are captured live from the real binaries (the same capture scripts/capture-simd.mjs records
 * into the fixtures), written to test-output/interop/<line>-live.json, and handed to the comparison suites,
 * which then compare the devnet with each peer as it answers now. drift.interop.ts compares these captures
 * with the committed fixtures.
 *
 * XUPGRADE_INTEROP_REUSE=1 reuses the previous live captures (for working on the suites themselves).
 * XUPGRADE_INTEROP_LIVE_LINES=simd-v050 captures only the lines it names (comma-separated keys); the others are
 * compared with their recorded fixtures and their drift is not checked. CI (scripts/ci.mjs) captures simd v0.50
 * for the run holding the drift check and none (`none`) for the others, to stay in its time.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { removeTempDirs } from "../apps/cli/helpers.js";
import { ROOT } from "../support/paths.js";
import { captureLine } from "./support/capture.js";
import { LINES, type LineKey } from "./support/lines.js";
import { builtWithGo, interopPeers } from "./support/peers.js";
import { killAll } from "./support/simd.js";

export const liveCapturePath = (line: LineKey): string => join(ROOT, `test-output/interop/${line}-live.json`);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  interopPeers();
  const captures: Partial<Record<LineKey, string>> = {};
  const live = process.env.XUPGRADE_INTEROP_LIVE_LINES?.split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  for (const line of LINES) {
    if (live && !live.includes(line.key)) {
      console.log(`interop: ${line.label}: compared with its recorded fixture (XUPGRADE_INTEROP_LIVE_LINES), drift not checked`);
      continue;
    }
    const file = liveCapturePath(line.key);
    captures[line.key] = file;
    if (process.env.XUPGRADE_INTEROP_REUSE === "1" && existsSync(file)) continue;
    const started = Date.now();
    try {
      const capture = await captureLine(line, builtWithGo(line.needs[line.needs.length - 1]));
      mkdirSync(join(ROOT, "test-output/interop"), { recursive: true });
      writeFileSync(file, `${JSON.stringify(capture, null, 2)}\n`);
      console.log(`interop: captured ${line.label} live in ${((Date.now() - started) / 1000).toFixed(1)} s → ${file}`);
    } finally {
      await killAll();
      removeTempDirs();
    }
  }
  project.provide("liveCaptures", captures);
  return async () => {
    await killAll();
  };
}
