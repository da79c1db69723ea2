#!/usr/bin/env node
// node scripts/capture-simd.mjs [--out <file>]
//
// Records simd's answers for the side-by-side suites (test/interop/, docs/spec/interop.md): a fresh simd v0.50
// chain with no plan and with a plan scheduled, then a real simd v0.47 → v0.50 upgrade (`v047-to-v050`) with the
// upgrade applied — REST, gRPC and CLI answers in each state — and the upgrade-info.json files both simd versions
// wrote at their halts. Everything runs on loopback with free ports; every process is stopped at the end.
//
// Writes test/interop/fixtures/simd-<sdk>-<simapp commit>.json (or --out). The binaries are the ones
// `npm run peers` builds; without them this says which command builds them and exits 2.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { register } from 'tsx/esm/api';
import { REPO_ROOT, missingPeerReason } from './peers/paths.mjs';

const args = process.argv.slice(2);
let out;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--out' && args[i + 1]) out = args[++i];
  else {
    console.error('usage: node scripts/capture-simd.mjs [--out <file>]');
    process.exit(64);
  }
}

const missing = ['simd-v047', 'simd-v050'].map((k) => missingPeerReason(k)).filter(Boolean);
if (missing.length > 0) {
  console.error(`capture-simd: the real simd binaries are not built:\n  ${missing.join('\n  ')}`);
  process.exit(2);
}

register();
const { captureAll, FIXTURE_NAME } = await import('../test/interop/support/capture.ts');
const { interopPeers, builtWithGo } = await import('../test/interop/support/peers.ts');
const { killAll } = await import('../test/interop/support/simd.ts');
const { removeTempDirs } = await import('../test/apps/cli/helpers.ts');

const target = out ?? join(REPO_ROOT, 'test/interop/fixtures', FIXTURE_NAME);
const stop = async (code) => {
  await killAll();
  removeTempDirs();
  process.exit(code);
};
process.once('SIGINT', () => void stop(130));
process.once('SIGTERM', () => void stop(143));

const started = Date.now();
try {
  const peers = interopPeers();
  const fixture = await captureAll(peers, builtWithGo());
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`capture-simd: wrote ${relative(process.cwd(), target)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await stop(0);
} catch (e) {
  console.error(`capture-simd: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  await stop(1);
}
