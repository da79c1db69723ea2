// The package as users get it: `npm pack` the built tree, install the tarball in an empty folder, then
// import the module library and each subpath, run the installed `xupgrade`, and check that an installed
// `xupgrade devnet start` serves the light-client page at /ui. Run after `npm run build` (CI: after the demo).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createServer as createHttpsServer } from "node:https";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "xupgrade-package-"));
const app = join(work, "app");
let node;
const fail = (message) => {
  console.error(`check-package: ${message}`);
  process.exitCode = 1;
};
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
/** The last line of a command's output (`npm pack` prints the tarball's name last). */
const lastLine = (/** @type {string} */ text) => {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1];
};

/**
 * The installed bin runs the sidecar through its launcher (V8 flags for `visor`) and its own entry
 * (xupgrade-visor.js): a home made by `visor init`, then `visor run` supervising a node that exits at once.
 */
function checkVisor(bin, dir) {
  const daemon = join(dir, "appd");
  writeFileSync(daemon, '#!/bin/sh\necho "node ran: $*"\n', { mode: 0o755 });
  const env = { ...process.env, DAEMON_HOME: join(dir, "visor-home"), DAEMON_NAME: "appd" };
  execFileSync(bin, ["visor", "init", daemon], { env, stdio: "ignore" });
  const out = execFileSync(bin, ["visor", "run", "start", "--x"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (!out.includes("node ran: start --x")) fail(`xupgrade visor run did not run the node: ${JSON.stringify(out)}`);
  else console.log("check-package: xupgrade visor init + run: the node ran under the installed visor");
}

/**
 * The installed bin's launcher keeps NODE_EXTRA_CA_CERTS out of Node's start-up for a query (scripts/build-cli.mjs):
 * an https node whose certificate only that file's CA signed must still be trusted, and refused without it.
 */
async function checkExtraCaCerts(bin, dir) {
  if (spawnSync("openssl", ["version"]).status !== 0) {
    console.log("check-package: NODE_EXTRA_CA_CERTS over https: skipped (no openssl to make a test CA)");
    return;
  }
  const tls = join(dir, "tls");
  const ssl = (...args) => execFileSync("openssl", args, { cwd: tls, stdio: "ignore" });
  run("mkdir", ["-p", tls]);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  ssl("req", "-x509", ...ec, "-days", "1", "-subj", "/CN=xupgrade check-package CA", "-keyout", "ca.key", "-out", "ca.pem");
  ssl("req", ...ec, "-subj", "/CN=127.0.0.1", "-keyout", "node.key", "-out", "node.csr");
  writeFileSync(join(tls, "ext"), "subjectAltName=IP:127.0.0.1\n");
  ssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1", "-extfile", "ext", "-out", "node.pem");
  // A CometBFT RPC stand-in answering CurrentPlan with the plan v2 at height 100.
  const plan = Buffer.from([0x0a, 0x06, 0x0a, 0x02, 0x76, 0x32, 0x18, 0x64]).toString("base64");
  const server = createHttpsServer({ key: readFileSync(join(tls, "node.key")), cert: readFileSync(join(tls, "node.pem")) }, (req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(body).id, result: { response: { code: 0, value: plan, height: "5" } } }));
    });
  });
  await /** @type {Promise<void>} */ (new Promise((r) => server.listen(0, "127.0.0.1", r)));
  const url = `https://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
  const query = (extra) =>
    new Promise((resolve) => {
      const env = { ...process.env, NODE_EXTRA_CA_CERTS: extra };
      if (extra === undefined) delete env.NODE_EXTRA_CA_CERTS;
      const child = spawn(bin, ["query", "upgrade", "plan", "--node", url], { env, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("close", (code) => resolve({ code, out }));
    });
  try {
    const trusted = await query(join(tls, "ca.pem"));
    const refused = await query(undefined);
    if (trusted.code !== 0 || !trusted.out.includes("name: v2"))
      fail(`NODE_EXTRA_CA_CERTS=<the CA> did not make the https node trusted (exit ${trusted.code}): ${trusted.out}`);
    else if (refused.code !== 1 || !/certificate/.test(refused.out))
      fail(`without NODE_EXTRA_CA_CERTS the https node was not refused (exit ${refused.code}): ${refused.out}`);
    else console.log("check-package: an https node signed by NODE_EXTRA_CA_CERTS's CA is trusted by the installed bin, and refused without it");
  } finally {
    server.close();
  }
}

/** The light install's bounds (docs/guides/light-client.md): packages in node_modules, and their apparent size. */
const LIGHT_MAX_PACKAGES = 10;
const LIGHT_MAX_BYTES = 5_000_000;

/**
 * The light install (scripts/build-light-package.mjs): `xupgrade-light` alone in an empty project — only the packages
 * the light client imports (no CLI, servers, node stores or sidecar), within its bounds, importable in Node and bundled
 * for a browser with no Node built-in, and its client refusing an unreachable node with its own error.
 */
async function checkLightPackage() {
  const dir = join(work, "light-app");
  const tarball = lastLine(run("npm", ["pack", "--silent", "--pack-destination", work], join(root, "build/light-package")));
  run("mkdir", ["-p", dir]);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "light-consumer", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", "--silent", join(work, tarball)], dir);
  const installed = run("npm", ["ls", "--all", "--parseable"], dir).trim().split("\n").length - 1;
  const bytes = Number(run("du", ["-sb", join(dir, "node_modules")], dir).split("\t")[0]);
  const forbidden = ["@grpc/grpc-js", "classic-level", "tar", "yauzl", "commander", "cli-progress", "prom-client", "smol-toml"].filter((p) =>
    existsSync(join(dir, "node_modules", p)),
  );
  if (forbidden.length) fail(`xupgrade-light installs ${forbidden.join(", ")}`);
  writeFileSync(
    join(dir, "use.mjs"),
    `import { VerifiedUpgradeClient, hashFromByteSlices, ProviderError } from "xupgrade-light";
const empty = Buffer.from(hashFromByteSlices([])).toString("hex");
if (empty !== "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") throw new Error("merkle root of nothing: " + empty);
const err = await VerifiedUpgradeClient.connect("http://127.0.0.1:9", { trust: { height: 1n, hash: "00".repeat(32) }, withoutWitnesses: true }).then(() => undefined, (e) => e);
if (!(err instanceof ProviderError)) throw new Error("an unreachable node was not a ProviderError: " + err);
console.log("light: imported, merkle ok, an unreachable node refused: " + err.message);
`,
  );
  process.stdout.write(run("node", ["use.mjs"], dir));
  const { build } = await import("esbuild");
  writeFileSync(join(dir, "page.mjs"), `import { VerifiedUpgradeClient } from "xupgrade-light";\nwindow.client = VerifiedUpgradeClient;\n`);
  const r = await build({
    entryPoints: [join(dir, "page.mjs")],
    absWorkingDir: dir,
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    minify: true,
    logLevel: "silent",
  });
  const kb = Math.round(r.outputFiles[0].contents.length / 1024);
  console.log(
    `check-package: xupgrade-light installs ${installed} packages, ${bytes} bytes (${(bytes / 2 ** 20).toFixed(1)} MiB); bundled for a browser: ${kb} KiB minified`,
  );
  if (installed > LIGHT_MAX_PACKAGES) fail(`xupgrade-light installs ${installed} packages, more than ${LIGHT_MAX_PACKAGES}`);
  if (bytes > LIGHT_MAX_BYTES) fail(`xupgrade-light installs ${bytes} bytes, more than ${LIGHT_MAX_BYTES}`);
}

try {
  if (!existsSync(join(root, "dist/node.js")) || !existsSync(join(root, "dist/ui/index.html")))
    throw new Error("dist/ is not built: run `npm run build` first");
  if (!existsSync(join(root, "build/light-package/package.json"))) throw new Error("build/light-package is not built: run `npm run build` first");
  await checkLightPackage();
  const tarball = lastLine(run("npm", ["pack", "--silent", "--pack-destination", work], root));
  console.log(`check-package: packed ${tarball}`);
  run("mkdir", ["-p", app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", "--silent", join(work, tarball)], app);

  // The library and its subpaths, as a Node consumer imports them.
  writeFileSync(
    join(app, "use.mjs"),
    `import { createKeeper, MemoryStore } from "xupgrade";
const keeper = await createKeeper({ store: new MemoryStore() });
keeper.scheduleUpgrade({ name: "v2", height: 10n }, 5n);
if (keeper.getUpgradePlan()?.name !== "v2") throw new Error("no plan");
const names = Object.keys(await import("xupgrade"));
const leaked = [];
for (const [sub, name] of [["services", "serveQueries"], ["devnet", "startDevnet"], ["abci", "startAbciServer"], ["light", "VerifiedUpgradeClient"]]) {
  const m = await import("xupgrade/" + sub);
  if (typeof m[name] !== "function") throw new Error("xupgrade/" + sub + " lacks " + name);
  leaked.push(...Object.keys(m).filter((n) => names.includes(n)));
}
if (leaked.length) throw new Error("the module library exports program names: " + leaked.join(", "));
console.log("library: " + names.length + " names, subpaths ok");
`,
  );
  process.stdout.write(run("node", ["use.mjs"], app));

  // Every runtime dependency is imported by the shipped code (or is the browser polyfill abstract-level needs).
  const pkg = JSON.parse(readFileSync(join(app, "node_modules/xupgrade/package.json"), "utf8"));
  // Static and dynamic imports, and the synchronous require of a package loaded only when used (the sidecar's
  // cli-progress, smol-toml: createRequire(import.meta.url)("<package>")). A static import ends its statement
  // (`from "x";`), so a message that says `from "roots" and …` is not one.
  const shipped = run(
    "grep",
    ["-rhoE", `from "[^.][^"]*";|import\\("[^.][^"]*"\\)|createRequire\\w*\\(import\\.meta\\.url\\)\\("[^.][^"]*"\\)`, join(app, "node_modules/xupgrade/dist")],
    app,
  );
  const imported = new Set(
    shipped
      .split("\n")
      .map((l) => /"([^"]+)"/.exec(l)?.[1])
      .filter((s) => s !== undefined)
      .filter((s) => !s.startsWith("node:"))
      .map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0])),
  );
  const unused = Object.keys(pkg.dependencies).filter((d) => !imported.has(d) && d !== "events");
  const undeclared = [...imported].filter((d) => !(d in pkg.dependencies));
  if (unused.length) fail(`runtime dependencies no shipped file imports: ${unused.join(", ")}`);
  if (undeclared.length) fail(`shipped files import undeclared packages: ${undeclared.join(", ")}`);
  console.log(`check-package: ${Object.keys(pkg.dependencies).length} runtime dependencies, each imported by shipped code`);

  // The installed CLI, and its devnet serving /ui.
  const bin = join(app, "node_modules/.bin/xupgrade");
  console.log(`check-package: xupgrade --version: ${run(bin, ["--version"], app).trim()}`);
  await checkExtraCaCerts(bin, work);
  checkVisor(bin, work);
  run(bin, ["devnet", "init", "--home", join(app, "dev"), "--validators", "1", "--rpc", "127.0.0.1:0", "--rest", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], app);
  node = spawn(bin, ["devnet", "start", "--home", join(app, "dev")], { cwd: app, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const rest = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the devnet did not start: ${err}`)), 60_000);
    node.stderr.on("data", (d) => {
      err += d;
      const m = /rest (http:\/\/[0-9.:]+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    node.on("exit", (code) => reject(new Error(`the devnet exited (${code}): ${err}`)));
  });
  const page = await fetch(`${rest}/ui`, { redirect: "follow" });
  const html = await page.text();
  if (page.status !== 200 || !html.includes("xupgrade light client")) fail(`${rest}/ui answered ${page.status}`);
  else console.log(`check-package: the installed devnet serves /ui (${rest}/ui)`);
  // The launcher exec's Node with the devnet's V8 flags (bindings/apps/cli/node-flags.ts): the node is that process.
  if (existsSync(`/proc/${node.pid}/cmdline`)) {
    const argv = readFileSync(`/proc/${node.pid}/cmdline`, "utf8").split("\0");
    if (!argv.includes("--no-allocation-site-pretenuring")) fail(`the installed devnet runs without its V8 flags: ${argv.join(" ")}`);
    else console.log("check-package: the installed devnet runs with --no-allocation-site-pretenuring");
  }
} catch (e) {
  // execFileSync's error carries the command's stderr.
  const message = e instanceof Error ? e.message : String(e);
  const stderr = e instanceof Error && "stderr" in e ? e.stderr : undefined;
  fail(stderr ? `${message}\n${stderr}` : message);
} finally {
  node?.kill("SIGINT");
  if (node) await new Promise((r) => node.once("exit", r));
  rmSync(work, { recursive: true, force: true });
}
