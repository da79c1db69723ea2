// npm run build (after tsc): the `xupgrade` bin as three files in dist/apps/cli/ (bindings/apps/cli/bin.ts says why):
//   xupgrade.cjs                   the bin (bin.ts), CommonJS
//   xupgrade-query.cjs (+ .v8cache) query-main.ts: `query …` alone, CommonJS, self-contained
//   xupgrade-verify.cjs            query/verify.ts: `query … --verify` (the light client), loaded by the query bundle only then
//   xupgrade.js + xupgrade-*.js    main.ts: every command, ES modules split per command (dependencies stay imports);
//   xupgrade-visor.js              visor-main.ts: `visor …` alone, sharing those chunks
// then writes xupgrade-query.cjs.v8cache by running the query commands against a stand-in node on loopback.
// All bundles sit in dist/apps/cli/, the depth tsc's output has there, so `new URL("../../../package.json",
// import.meta.url)` and the devnet's `../../ui/` still point where they do in tsc's output.
import { spawn } from "node:child_process";
import { chmodSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  QueryAppliedPlanResponse,
  QueryAuthorityResponse,
  QueryCurrentPlanResponse,
  QueryModuleVersionsResponse,
} from "cosmjs-types/cosmos/upgrade/v1beta1/query";

// tsc's output of bindings/apps/cli/node-flags.ts (the build runs tsc first), typed from that source so that
// type-checking this script needs no build.
const { NODE_FLAGS } = /** @type {typeof import("../bindings/apps/cli/node-flags.js")} */ (
  await import(new URL("../dist/apps/cli/node-flags.js", import.meta.url).href)
);

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}dist/apps/cli/`;
const src = `${root}bindings/apps/cli/`;
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8"));
const started = performance.now();

// Bundles of an earlier build (chunk names carry content hashes).
for (const f of readdirSync(out)) if (/^xupgrade([-.].*)?\.(c?js|v8cache|tmp)$/.test(f)) rmSync(out + f);

/** @type {import("esbuild").BuildOptions} */
const common = { bundle: true, platform: "node", target: "node20", logLevel: "warning", legalComments: "none", absWorkingDir: root };
// Runtime dependencies stay imports of the installed packages (one copy of each, native addons included), except
// the two a query needs: inlined, they cost no module resolution.
const inlined = new Set(["commander", "cosmjs-types"]);
const external = Object.keys(pkg.dependencies)
  .filter((d) => !inlined.has(d))
  .flatMap((d) => [d, `${d}/*`]);

await build({
  ...common,
  entryPoints: { xupgrade: `${src}main.ts`, "xupgrade-visor": `${src}visor-main.ts` },
  format: "esm",
  splitting: true,
  outdir: out,
  chunkNames: "xupgrade-[hash]",
  external,
  // commander (CommonJS) calls require().
  banner: { js: 'import { createRequire as __xupgradeRequire } from "node:module"; const require = __xupgradeRequire(import.meta.url);' },
});

// `--verify` loads the light client (signature checks, proofs, the core's .wasm): a bundle of its own, required by
// the query bundle only when the flag is given, so a plain query neither parses nor compiles any of it.
// (A stub that require()s it: a dynamic import() would need a loader the bin's vm.Script does not give.)
/** @type {import("esbuild").Plugin} */
const verifySplit = {
  name: "verify-bundle",
  setup(b) {
    b.onResolve({ filter: /\/query\/verify\.js$/ }, () => ({ path: "verify", namespace: "verify-stub" }));
    b.onLoad({ filter: /.*/, namespace: "verify-stub" }, () => ({ contents: 'module.exports = require("./xupgrade-verify.cjs");', loader: "js" }));
    b.onResolve({ filter: /^\.\/xupgrade-verify\.cjs$/ }, (a) => ({ path: a.path, external: true }));
  },
};

await build({
  ...common,
  entryPoints: [`${src}query-main.ts`],
  format: "cjs",
  outfile: `${out}xupgrade-query.cjs`,
  // Self-contained: everything a query runs is inlined (no native addons on this path).
  define: { "import.meta.url": "__xupgradeUrl" },
  banner: { js: 'const __xupgradeUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [verifySplit],
});

await build({
  ...common,
  entryPoints: [`${src}query/verify.ts`],
  format: "cjs",
  outfile: `${out}xupgrade-verify.cjs`,
  define: { "import.meta.url": "__xupgradeUrl" },
  banner: { js: 'const __xupgradeUrl = require("node:url").pathToFileURL(__filename).href;' },
});

// The bin is a POSIX sh script and a CommonJS module at once: each launcher line is `":" //; <sh>`, to sh the
// no-op `:` and then <sh>, to JavaScript a string statement and a comment. For a query it moves
// NODE_EXTRA_CA_CERTS aside before Node starts (Node 20 parses its whole root store and the file at start-up,
// before any code runs: ~36 ms of CPU time, measured) unless Node was told to use OpenSSL's store; bin.ts puts
// it back and the https requests trust those certificates (ca-certs.ts). Then it runs this file with `node`,
// found on PATH as `#!/usr/bin/env node` found it; for `visor` and `devnet`, with their V8 flags (node-flags.ts).
const withFlags = (command) => `":" //; if [ "$1" = ${command} ]; then exec node ${NODE_FLAGS[command].join(" ")} "$0" "$@"; fi`;
const launcher = [
  "#!/bin/sh",
  `":" //; if [ "$1" = query ] || [ "$1" = q ]; then case " \${NODE_OPTIONS-} " in *" --use-openssl-ca "*) ;; *) if [ -n "\${NODE_EXTRA_CA_CERTS-}" ]; then export XUPGRADE_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS"; unset NODE_EXTRA_CA_CERTS; fi ;; esac; fi`,
  withFlags("visor"),
  withFlags("devnet"),
  `":" //; exec node "$0" "$@"`,
].join("\n");
await build({ ...common, entryPoints: [`${src}bin.ts`], format: "cjs", outfile: `${out}xupgrade.cjs`, banner: { js: launcher } });
chmodSync(`${out}xupgrade.cjs`, 0o755);

// The code cache: the query commands run against a stand-in CometBFT RPC, each run adding what it compiled.
const enc = (m) => Buffer.from(m.finish()).toString("base64");
const ANSWERS = {
  "/cosmos.upgrade.v1beta1.Query/CurrentPlan": enc(
    QueryCurrentPlanResponse.encode({ plan: { name: "v2", height: 100n, info: '{"binaries":{}}', time: { seconds: -62135596800n, nanos: 0 } } }),
  ),
  "/cosmos.upgrade.v1beta1.Query/AppliedPlan": enc(QueryAppliedPlanResponse.encode({ height: 5n })),
  "/cosmos.upgrade.v1beta1.Query/ModuleVersions": enc(
    QueryModuleVersionsResponse.encode({
      moduleVersions: [
        { name: "auth", version: 5n },
        { name: "upgrade", version: 2n },
      ],
    }),
  ),
  "/cosmos.upgrade.v1beta1.Query/Authority": enc(QueryAuthorityResponse.encode({ address: "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn" })),
};
const hash = "AB".repeat(32);
const blockId = { hash, parts: { total: 1, hash } };
const meta = {
  block_id: blockId,
  block_size: "595",
  header: {
    version: { block: "11" },
    chain_id: "build",
    height: "5",
    time: "2026-01-01T00:00:00.123456789Z",
    last_block_id: blockId,
    ...Object.fromEntries(
      ["last_commit_hash", "data_hash", "validators_hash", "next_validators_hash", "consensus_hash", "app_hash", "last_results_hash", "evidence_hash"].map(
        (k) => [k, hash],
      ),
    ),
    proposer_address: "AB".repeat(20),
  },
  num_txs: "0",
};
const node = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const { id, method, params } = JSON.parse(body);
    const result =
      method === "abci_query"
        ? { response: { code: 0, log: "", info: "", index: "0", key: null, value: ANSWERS[params.path] ?? "", proofOps: null, height: "5", codespace: "" } }
        : { last_height: "5", block_metas: [meta] };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
  });
});
await /** @type {Promise<void>} */ (new Promise((r) => node.listen(0, "127.0.0.1", r)));
const url = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (node.address()).port}`;
const runs = [
  ["query", "upgrade", "plan"],
  ["query", "upgrade", "applied", "v2"],
  ["query", "upgrade", "module_versions"],
  ["query", "upgrade", "module_versions", "-o", "json"],
  ["query", "upgrade", "authority"],
  ["query", "upgrade", "plan", "-o", "json"],
];
for (const args of runs) {
  // spawn (not spawnSync): the stand-in node answers from this process's event loop.
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [`${out}xupgrade.cjs`, ...args, "--node", url], {
      env: { ...process.env, XUPGRADE_CLI_WRITE_CODE_CACHE: "1", NODE_OPTIONS: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (c) => resolve(c === 0 ? 0 : `${c}: ${err.trim()}`));
  });
  if (code !== 0) {
    node.close();
    throw new Error(`build-cli: xupgrade ${args.join(" ")} failed while writing the code cache (exit ${code})`);
  }
}
node.close();
const size = (f) => readFileSync(out + f).length;
console.log(
  `build-cli: dist/apps/cli/xupgrade.cjs (bin), xupgrade-query.cjs ${(size("xupgrade-query.cjs") / 1024).toFixed(0)} KB + code cache ${(size("xupgrade-query.cjs.v8cache") / 1024).toFixed(0)} KB, ` +
    `xupgrade.js + ${readdirSync(out).filter((f) => /^xupgrade-[A-Z0-9]+\.js$/.test(f)).length} chunks, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
