/**
 * Where the comparison suites get a peer's answers: the recorded fixture of its SDK line (test/interop/fixtures/,
 * written by `node scripts/capture-simd.mjs`), or — under `npm run test:interop` — the capture the interop run
 * made a moment ago from the real binaries (test/interop/global-setup.ts provides the paths). The same suites
 * thus run without Go against the recordings, and live against the peers.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { ROOT } from "../../support/paths.js";
import { FIXTURE_NAME, type SimdFixture } from "./capture.js";
import { LINES, lineByKey, type LineKey, type SdkLine } from "./lines.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Each line's live capture (a JSON file), set by test/interop/global-setup.ts. */
    liveCaptures?: Partial<Record<LineKey, string>>;
  }
}

export const FIXTURES_DIR = join(ROOT, "test/interop/fixtures");
export const FIXTURE_PATH = join(FIXTURES_DIR, FIXTURE_NAME);

export const fixturePath = (line: SdkLine): string => join(FIXTURES_DIR, line.fixtureName);

export function loadFixture(path = FIXTURE_PATH): SimdFixture {
  if (!existsSync(path)) throw new Error(`${path} is missing: record it with \`node scripts/capture-simd.mjs\` (needs the peers: npm run peers)`);
  return JSON.parse(readFileSync(path, "utf8")) as SimdFixture;
}

export interface SimdSource {
  line: SdkLine;
  capture: SimdFixture;
  source: "fixture" | "live";
  /** How tests name the source in their titles. */
  label: string;
}

/** The live capture of a line when the interop run made one, else its committed fixture. */
export function lineSource(line: SdkLine): SimdSource {
  let live: string | undefined;
  try {
    live = inject("liveCaptures")?.[line.key];
  } catch {
    live = undefined;
  }
  if (live) return { line, capture: loadFixture(live), source: "live", label: `${line.label} (live)` };
  return { line, capture: loadFixture(fixturePath(line)), source: "fixture", label: `${line.label} (recorded)` };
}

/** simd v0.50's answers (the first line). */
export const simdSource = (): SimdSource => lineSource(lineByKey("simd-v050"));

/** Every line's answers, in the order of LINES. */
export const lineSources = (): SimdSource[] => LINES.map(lineSource);
