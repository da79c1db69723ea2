#!/usr/bin/env node
// npm test [-- <vitest arguments>] [--json <dir>]
//
// The suites in two lanes at once, each its own vitest run (vitest.config.ts names the projects):
//   chains — the suites that start testnets, devnet nodes, visors and CometBFT and mostly wait on their blocks,
//            one file at a time: two networks at once on two cores lost validators under load;
//   units  — everything else (the cores, the store, the services, the CLI's unit suites, the browser suite).
// A lane's lines are prefixed with its name; a lane that a file filter leaves empty passes. --json <dir> writes
// each lane's vitest JSON report to <dir>/vitest-<lane>.json (CI counts them). Exits non-zero when a lane fails.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const vitest = join(root, "node_modules/vitest/vitest.mjs");

const args = process.argv.slice(2);
let jsonDir;
const jsonAt = args.indexOf("--json");
if (jsonAt >= 0) {
  jsonDir = args[jsonAt + 1];
  if (!jsonDir) {
    console.error("npm test: --json needs a directory");
    process.exit(2);
  }
  args.splice(jsonAt, 2);
  mkdirSync(jsonDir, { recursive: true });
}

const LANES = [
  { name: "chains", projects: ["chains"], workers: 1 },
  { name: "units", projects: ["node", "browser"], workers: 1 },
];

/** Runs one lane; resolves with its exit code. */
function runLane(lane) {
  const report = jsonDir ? ["--reporter=default", "--reporter=json", `--outputFile.json=${join(jsonDir, `vitest-${lane.name}.json`)}`] : [];
  const argv = [vitest, "run", "--passWithNoTests", `--maxWorkers=${lane.workers}`, ...lane.projects.flatMap((p) => ["--project", p]), ...report, ...args];
  const child = spawn(process.execPath, argv, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" },
  });
  const prefix = `${lane.name.padEnd(6)} │ `;
  /** @type {[import("node:stream").Readable, NodeJS.WriteStream][]} */
  const pipes = [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ];
  for (const [stream, out] of pipes) createInterface({ input: stream }).on("line", (line) => out.write(prefix + line + "\n"));
  return new Promise((resolve) => {
    child.on("error", (err) => {
      console.error(`${prefix}could not start vitest: ${err.message}`);
      resolve(1);
    });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const children = LANES.map(runLane);
const started = Date.now();
const codes = await Promise.all(children);
const secs = ((Date.now() - started) / 1000).toFixed(0);
LANES.forEach((lane, i) => console.log(`npm test: ${lane.name} ${codes[i] === 0 ? "passed" : `FAILED (exit ${codes[i]})`}`));
console.log(`npm test: both lanes done in ${secs} s`);
process.exit(codes.some((c) => c !== 0) ? 1 : 0);
