// The light install (docs/guides/light-client.md): `xupgrade-light`, a package of its own for wallets, explorers and
// pages that only verify — the verified light client of `xupgrade/light` and the core it checks proofs with, and
// nothing of the node, the CLI, the servers or the sidecar. Built from dist/ after `npm run build`: the files the light
// entry reaches (found by esbuild from bindings/light/index.ts, as JavaScript and declarations), a package.json whose
// dependencies are exactly the packages those files import, and its README. Written to build/light-package/.
//
//   node scripts/build-light-package.mjs        (npm run build runs it)
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "build/light-package");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The light entry's own files (bindings/…) and the packages they import, as esbuild resolves them for a browser. */
async function graph() {
  const r = await build({
    entryPoints: [join(root, "bindings/light/index.ts")],
    absWorkingDir: root,
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    metafile: true,
    logLevel: "silent",
    packages: "external",
  });
  const files = [];
  const packages = new Set();
  for (const [file, input] of Object.entries(r.metafile.inputs)) {
    if (file.startsWith("bindings/")) files.push(file);
    for (const imp of input.imports) {
      if (!imp.external) continue;
      if (imp.path.startsWith("node:")) throw new Error(`${file} imports ${imp.path}: the light client must run in browsers`);
      const name = imp.path.startsWith("@") ? imp.path.split("/").slice(0, 2).join("/") : imp.path.split("/")[0];
      packages.add(name);
    }
  }
  return { files: files.sort(), packages: [...packages].sort() };
}

if (!existsSync(join(root, "dist/light/index.js"))) throw new Error("dist/ is not built: run `npm run build` first");
const { files, packages } = await graph();
rmSync(out, { recursive: true, force: true });
for (const file of files) {
  const rel = file.replace(/^bindings\//, "").replace(/\.ts$/, "");
  for (const ext of [".js", ".d.ts"]) {
    const from = join(root, "dist", rel + ext);
    if (!existsSync(from)) throw new Error(`dist/${rel}${ext} is missing: is dist/ up to date?`);
    mkdirSync(dirname(join(out, "dist", rel + ext)), { recursive: true });
    copyFileSync(from, join(out, "dist", rel + ext));
  }
}
// Declarations also name files that only types come from (imports esbuild drops): their declarations, to the end.
const specifiers = (text) => [...text.matchAll(/(?:from\s+|import\()\s*["']([^"']+)["']/g)].map((m) => m[1]);
const seen = new Set(files.map((f) => f.replace(/^bindings\//, "").replace(/\.ts$/, ".d.ts")));
const todo = [...seen];
let rel;
while ((rel = todo.pop()) !== undefined) {
  for (const spec of specifiers(readFileSync(join(out, "dist", rel), "utf8"))) {
    if (!spec.startsWith(".")) {
      const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
      if (!packages.includes(name)) packages.push(name);
      continue;
    }
    const target = join(dirname(rel), spec).replace(/\.js$/, ".d.ts");
    if (seen.has(target)) continue;
    seen.add(target);
    todo.push(target);
    mkdirSync(dirname(join(out, "dist", target)), { recursive: true });
    copyFileSync(join(root, "dist", target), join(out, "dist", target));
  }
}
packages.sort();
const dependencies = Object.fromEntries(
  packages.map((name) => {
    const version = pkg.dependencies[name];
    if (!version) throw new Error(`the light client imports ${name}, which is not a dependency of xupgrade`);
    return [name, version];
  }),
);
const light = {
  name: "xupgrade-light",
  version: pkg.version,
  description:
    "The verified light client of xupgrade: a Cosmos chain's upgrade plan, versions and applied upgrades proven against headers verified as CometBFT's light client verifies them — for wallets, explorers and pages",
  type: "module",
  license: pkg.license,
  engines: pkg.engines,
  main: "./dist/light/index.js",
  types: "./dist/light/index.d.ts",
  exports: { ".": { types: "./dist/light/index.d.ts", default: "./dist/light/index.js" }, "./package.json": "./package.json" },
  sideEffects: false,
  files: ["dist", "README.md"],
  dependencies,
};
writeFileSync(join(out, "package.json"), `${JSON.stringify(light, null, 2)}\n`);
copyFileSync(join(root, "scripts/light-package/README.md"), join(out, "README.md"));
console.log(`build-light-package: ${files.length} files, dependencies ${packages.join(", ")} → build/light-package`);
