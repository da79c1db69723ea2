/**
 * The sidecar loads only what the current step runs (issue 27): what `xupgrade visor run` imports before the
 * node halts — the static import graphs of its entry (bindings/apps/cli/visor-main.ts) and of the modules the
 * `run` action imports (config, run.ts), as esbuild resolves them for the package's bundle — holds the
 * supervision loop and nothing of the upgrade pipeline, the archives, the readiness attestation, HTTP, TLS,
 * zlib or node:crypto, which are imported when their step runs.
 */
import { build, type Metafile } from "esbuild";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../support/paths.js";

/** The bin's entry for `visor`, and what its `run` action imports (commands/visor.ts). */
const ENTRIES = ["bindings/apps/cli/visor-main.ts", "bindings/apps/visor/config/index.ts", "bindings/apps/visor/run.ts"];

/** The files and the packages/built-ins reached from ENTRIES through static imports (dynamic import() not followed). */
async function staticGraph(): Promise<{ files: Set<string>; external: Set<string> }> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const r = await build({
    entryPoints: ENTRIES,
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    write: false,
    outdir: "out",
    metafile: true,
    logLevel: "silent",
    external: Object.keys(pkg.dependencies).flatMap((d) => [d, `${d}/*`]),
  });
  const inputs: Metafile["inputs"] = r.metafile.inputs;
  const files = new Set<string>();
  const external = new Set<string>();
  const stack = [...ENTRIES];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (files.has(f)) continue;
    files.add(f);
    for (const i of inputs[f]?.imports ?? []) {
      if (i.kind === "dynamic-import") continue;
      if (i.external) external.add(i.path);
      else stack.push(i.path);
    }
  }
  return { files, external };
}

describe("what `xupgrade visor run` loads before an upgrade", () => {
  it("holds the supervision loop, not the pipeline, the archives, the readiness attestation or the transports", async () => {
    const { files, external } = await staticGraph();
    // The loop itself is there (the test would pass vacuously on a wrong entry otherwise).
    for (const f of [
      "bindings/apps/visor/run.ts",
      "bindings/apps/visor/node/watch.ts",
      "bindings/apps/visor/node/child.ts",
      "bindings/apps/visor/config/index.ts",
    ]) {
      expect(files, f).toContain(f);
    }
    const heavy = [
      "bindings/apps/visor/upgrade/pipeline.ts",
      "bindings/apps/visor/upgrade/backup.ts",
      "bindings/apps/visor/upgrade/tree-copy.ts",
      "bindings/apps/visor/download/fetch.ts",
      "bindings/apps/visor/upgrade/preflight.ts",
      "bindings/apps/visor/upgrade/preupgrade.ts",
      "bindings/apps/visor/progress.ts",
      "bindings/apps/visor/telling/readiness.ts",
      "bindings/apps/visor/upgrade/rollback.ts",
      "bindings/apps/visor/node/node-state.ts",
      "bindings/apps/visor/telling/endpoint.ts",
      "bindings/apps/visor/telling/metrics.ts",
      "bindings/apps/visor/telling/webhooks.ts",
      "bindings/module/plan-info/archive.ts",
      "bindings/client/upgrade.ts",
    ];
    expect([...files].filter((f) => heavy.includes(f) || f.startsWith("bindings/module/readiness/") || f.startsWith("bindings/apps/devnet/"))).toEqual([]);
    // commander is the one package; the built-ins are the loop's (no HTTP, TLS, zlib or crypto).
    const packages = [...external].filter((e) => !e.startsWith("node:"));
    expect(packages).toEqual(["commander"]);
    const builtins = [...external].filter((e) => e.startsWith("node:"));
    expect(
      builtins.filter((b) => ["node:crypto", "node:http", "node:https", "node:tls", "node:zlib", "node:http2", "node:worker_threads"].includes(b)),
    ).toEqual([]);
  });
});
