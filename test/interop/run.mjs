#!/usr/bin/env node
// npm run test:interop [-- <vitest arguments>]
//
// The side-by-side suites against the real Cosmos SDK (docs/spec/interop.md):
//   1. the real peers: simd v0.47 and v0.50 and cosmovisor v1.5.0, built by `npm run peers` into its cache, or
//      found there (a warm cache takes well under a second); without Go this stops here with what to install;
//   2. the .wasm core (as `npm test` does) and the system Chromium (the light-client page);
//   3. vitest with test/interop/vitest.config.ts: a live capture of simd first (global-setup.ts), then the
//      comparison suites against it, the drift check against the recorded fixture, and the live-only suites
//      (transactions, upgrade-info.json, the light-client page, real upgrades under the visor and cosmovisor).
// Exits non-zero when anything is missing or fails.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../../scripts/peers/paths.mjs";

const NEEDED = "simd-v047,simd-v050,cosmovisor,cometbft,light-oracle,app-v050,app-v053,app-v054";

function step(what, cmd, args) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, stdio: "inherit", env: process.env });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.error) {
    console.error(`test:interop: ${what} could not start: ${r.error.message}`);
    process.exit(1);
  }
  if (r.status !== 0) console.error(`test:interop: ${what} failed (exit ${r.status ?? r.signal}) after ${secs} s`);
  else console.log(`test:interop: ${what} done in ${secs} s`);
  return r.status ?? 1;
}

const peers = step(`the peers (${NEEDED})`, process.execPath, [join(REPO_ROOT, "scripts/peers.mjs"), "--only", NEEDED]);
if (peers !== 0) {
  console.error(
    peers === 2
      ? "test:interop: the real peers cannot be built without Go (scripts/peers.mjs said what to install, above).\n" +
          "  The comparisons against the recorded simd answers run without Go in `npm test`; this command needs the live peers."
      : `test:interop: building the peers failed; see the build logs named above (re-run: npm run peers -- --only ${NEEDED}).`,
  );
  process.exit(1);
}

if (step("the .wasm core", "npm", ["run", "--silent", "build:wasm"]) !== 0) process.exit(1);
if (step("Chromium", process.execPath, [join(REPO_ROOT, "scripts/ensure-chromium.mjs")]) !== 0) process.exit(1);

const vitest = join(REPO_ROOT, "node_modules/vitest/vitest.mjs");
const code = step("the interop suites", process.execPath, [
  vitest,
  "run",
  "--config",
  join(REPO_ROOT, "test/interop/vitest.config.ts"),
  ...process.argv.slice(2),
]);
process.exit(code);
