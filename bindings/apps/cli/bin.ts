/**
 * The package's `xupgrade` bin. scripts/build-cli.mjs builds it into dist/apps/cli/xupgrade.cjs, CommonJS so
 * that Node starts without its ES module loader, next to two bundles of the CLI:
 *   - xupgrade-query.cjs (query-main.ts), for `xupgrade query …` / `q …`: compiled here with the V8 code cache
 *     xupgrade-query.cjs.v8cache that the build wrote, so Node neither parses nor compiles what the cache
 *     holds (Node 20 has no module compile cache of its own). A cache from another Node or V8 flags is
 *     rejected by V8 and the bundle is compiled as usual: same behaviour, only slower.
 *   - xupgrade-visor.js (visor-main.ts) for `xupgrade visor …`, and xupgrade.js (main.ts) for every other
 *     command line: ES modules split per command, sharing their chunks.
 * XUPGRADE_CLI_WRITE_CODE_CACHE=1 writes the cache after the command ran (the build does this).
 *
 * The file starts as a POSIX sh script (the build's launcher lines, scripts/build-cli.mjs): for a query it
 * keeps NODE_EXTRA_CA_CERTS out of Node's start-up, where Node 20 would parse its whole root store and the
 * file before running anything (~36 ms of CPU time of a ~75 ms query, measured), and hands the file over in
 * XUPGRADE_EXTRA_CA_CERTS. It is put back here, and an https request trusts the same certificates Node would
 * have trusted (http.ts, extraCaCerts); a Node that trusts OpenSSL's store instead of its own is started
 * again with the variable as it was, before anything runs. For `visor` and `devnet` it starts Node with
 * the V8 flags of node-flags.ts (which says why, with the measurements).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { DEFERRED_CA_CERTS } from "../../base/ca-certs.js";

interface QueryBundle {
  runQuery(argv: string[]): Promise<number>;
}

/** Loads a CommonJS bundle through vm.Script with its code cache (`<file>.v8cache`), when there is one. */
function loadWithCodeCache(file: string): QueryBundle {
  const cacheFile = `${file}.v8cache`;
  const source = readFileSync(file, "utf8");
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    /* no cache: compile as usual */
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
    // `import("node:https")` inside the bundle goes to Node's own loader.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (process.env.XUPGRADE_CLI_WRITE_CODE_CACHE === "1") {
    process.once("exit", () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    });
  }
  const module = { exports: {} as QueryBundle };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, __dirname);
  return module.exports;
}

/** Whether Node trusts OpenSSL's certificate store rather than its own (--use-openssl-ca, or built so). */
function usesOpenSslStore(): boolean {
  const flag = (args: readonly string[]) => args.includes("--use-openssl-ca") && !args.includes("--use-bundled-ca");
  const config = process.config as { variables?: { openssl_use_def_ca_store?: unknown } };
  return config.variables?.openssl_use_def_ca_store === true || flag(process.execArgv) || flag((process.env.NODE_OPTIONS ?? "").split(/\s+/));
}

const argv = process.argv.slice(2);
const extraCaCerts = process.env.XUPGRADE_EXTRA_CA_CERTS;
if (extraCaCerts !== undefined) {
  delete process.env.XUPGRADE_EXTRA_CA_CERTS;
  process.env.NODE_EXTRA_CA_CERTS = extraCaCerts;
  if (usesOpenSslStore()) {
    // OpenSSL's store cannot be listed from here: Node loads the file itself, in a process started as usual.
    const r = spawnSync(process.execPath, [...process.execArgv, __filename, ...argv], { stdio: "inherit" });
    if (r.signal) process.kill(process.pid, r.signal);
    process.exit(r.status ?? 1);
  }
  (globalThis as Record<symbol, unknown>)[DEFERRED_CA_CERTS] = extraCaCerts;
}

if (argv[0] === "query" || argv[0] === "q") {
  void loadWithCodeCache(join(__dirname, "xupgrade-query.cjs"))
    .runQuery(argv)
    .then((code) => {
      process.exitCode = code;
      // Exit even when an idle keep-alive socket would hold the event loop open (the timer itself does not).
      setTimeout(() => process.exit(code), 50).unref();
    });
} else {
  // main.ts's bundle runs the command line itself; the sidecar's own entry (visor-main.ts) shares its chunks.
  void import(pathToFileURL(join(__dirname, argv[0] === "visor" ? "xupgrade-visor.js" : "xupgrade.js")).href);
}
