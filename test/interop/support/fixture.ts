/**
 * Where the comparison suites get simd's answers: the recorded fixture (test/interop/fixtures/, written by
 * `node scripts/capture-simd.mjs`), or — under `npm run test:interop` — the capture the interop run made a
 * moment ago from the real binaries (test/interop/global-setup.ts provides its path). The same suites thus
 * run without Go against the recording, and live against simd.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { ROOT } from "../../support/paths.js";
import { FIXTURE_NAME, type SimdFixture } from "./capture.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The live capture's JSON file, set by test/interop/global-setup.ts. */
    simdLiveCapture?: string;
  }
}

export const FIXTURES_DIR = join(ROOT, "test/interop/fixtures");
export const FIXTURE_PATH = join(FIXTURES_DIR, FIXTURE_NAME);

export function loadFixture(path = FIXTURE_PATH): SimdFixture {
  if (!existsSync(path)) throw new Error(`${path} is missing: record it with \`node scripts/capture-simd.mjs\` (needs the peers: npm run peers)`);
  return JSON.parse(readFileSync(path, "utf8")) as SimdFixture;
}

export interface SimdSource {
  capture: SimdFixture;
  source: "fixture" | "live";
  /** How tests name the source in their titles. */
  label: string;
}

/** The live capture when the interop run made one, else the committed fixture. */
export function simdSource(): SimdSource {
  let live: string | undefined;
  try {
    live = inject("simdLiveCapture");
  } catch {
    live = undefined;
  }
  if (live) return { capture: loadFixture(live), source: "live", label: "simd (live)" };
  return { capture: loadFixture(), source: "fixture", label: `simd ${FIXTURE_NAME.replace(/\.json$/, "")} (recorded)` };
}
