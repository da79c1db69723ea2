#!/usr/bin/env node
// node scripts/capture-simd.mjs [--line simd-v050|app-v053|app-v054] [--out <file>]
//
// Records the peers' answers for the side-by-side suites (test/interop/, docs/spec/interop.md), for each SDK line
// (test/interop/support/lines.ts; all of them unless --line names one): a fresh chain of the line with no plan and
// with a plan scheduled, then a real upgrade into the line (simd v0.47 → v0.50 at `v047-to-v050`, appd v0.50 →
// v0.53 at `v050-to-v053`, appd v0.53 → v0.54 at `v053-to-v054`) with the upgrade applied — REST, gRPC and CLI
// answers in each state — and the upgrade-info.json files both binaries wrote at their halts. Everything runs on
// loopback with free ports; every process is stopped at the end.
//
// Writes test/interop/fixtures/<the line's fixture>.json (or --out, with one --line). The binaries are the
// ones `npm run peers` builds; without them this says which command builds them and exits 2.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { register } from "tsx/esm/api";
import { REPO_ROOT, missingPeerReason } from "./peers/paths.mjs";

const USAGE = "usage: node scripts/capture-simd.mjs [--line simd-v050|app-v053|app-v054] [--out <file>]";
const args = process.argv.slice(2);
let out;
let only;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--out" && args[i + 1]) out = args[++i];
  else if (args[i] === "--line" && args[i + 1]) only = args[++i];
  else {
    console.error(USAGE);
    process.exit(64);
  }
}

register(); // tsx: the sources below are TypeScript, imported by their .js names as they import each other
const { captureLine } = await import("../test/interop/support/capture.js");
const { LINES } = await import("../test/interop/support/lines.js");
const { builtWithGo } = await import("../test/interop/support/peers.js");
const { killAll } = await import("../test/interop/support/simd.js");
const { removeTempDirs } = await import("../test/apps/cli/helpers.js");

const lines = LINES.filter((l) => !only || l.key === only);
if (lines.length === 0 || (out && lines.length > 1)) {
  console.error(lines.length === 0 ? `capture-simd: no line ${only}\n${USAGE}` : `capture-simd: --out needs one --line\n${USAGE}`);
  process.exit(64);
}
const missing = [...new Set(lines.flatMap((l) => l.needs))].map((k) => missingPeerReason(k)).filter(Boolean);
if (missing.length > 0) {
  console.error(`capture-simd: the real peer binaries are not built:\n  ${missing.join("\n  ")}`);
  process.exit(2);
}
const stop = async (code) => {
  await killAll();
  removeTempDirs();
  process.exit(code);
};
process.once("SIGINT", () => void stop(130));
process.once("SIGTERM", () => void stop(143));

try {
  for (const line of lines) {
    const started = Date.now();
    const target = out ?? join(REPO_ROOT, "test/interop/fixtures", line.fixtureName);
    const fixture = await captureLine(line, builtWithGo(line.needs[line.needs.length - 1]));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(fixture, null, 2)}\n`);
    console.log(`capture-simd: ${line.label}: wrote ${relative(process.cwd(), target)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  await stop(0);
} catch (e) {
  console.error(`capture-simd: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  await stop(1);
}
