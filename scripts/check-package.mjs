// The package as users get it: `npm pack` the built tree, install the tarball in an empty folder, then
// import the module library and each subpath, run the installed `xupgrade`, and check that an installed
// `xupgrade devnet start` serves the light-client page at /ui. Run after `npm run build` (CI: after the demo).
import { execFileSync, spawn } from "node:child_process";
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

try {
  if (!existsSync(join(root, "dist/node.js")) || !existsSync(join(root, "dist/ui/index.html"))) throw new Error("dist/ is not built: run `npm run build` first");
  const tarball = run("npm", ["pack", "--silent", "--pack-destination", work], root).trim().split("\n").pop();
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
  const shipped = run("grep", ["-rhoE", `from "[^.][^"]*"|import\\("[^.][^"]*"\\)`, join(app, "node_modules/xupgrade/dist")], app);
  const imported = new Set(shipped.split("\n").map((l) => /"([^"]+)"/.exec(l)?.[1]).filter((s) => s && !s.startsWith("node:")).map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0])));
  const unused = Object.keys(pkg.dependencies).filter((d) => !imported.has(d) && d !== "events");
  const undeclared = [...imported].filter((d) => !(d in pkg.dependencies));
  if (unused.length) fail(`runtime dependencies no shipped file imports: ${unused.join(", ")}`);
  if (undeclared.length) fail(`shipped files import undeclared packages: ${undeclared.join(", ")}`);
  console.log(`check-package: ${Object.keys(pkg.dependencies).length} runtime dependencies, each imported by shipped code`);

  // The installed CLI, and its devnet serving /ui.
  const bin = join(app, "node_modules/.bin/xupgrade");
  console.log(`check-package: xupgrade --version: ${run(bin, ["--version"], app).trim()}`);
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
} catch (e) {
  fail(e.stderr ? `${e.message}\n${e.stderr}` : e.message);
} finally {
  node?.kill("SIGINT");
  if (node) await new Promise((r) => node.once("exit", r));
  rmSync(work, { recursive: true, force: true });
}
