/**
 * The house has floors and every import points down (README "The layers"): bindings/base | go → core →
 * store → module → services | client | abci → light → apps/{cli,devnet,visor,watch}, with the package's entry
 * points on top.
 * A room may import its own files and any lower floor; never a higher floor, never a sibling room on the
 * same floor. The one exception: the CLI reaches the devnet, the sidecar and the watch through `import type` plus
 * `await import()` inside the action, so a command loads only what it runs. Inside the devnet, its rooms
 * (shared, modules, chain, rehearse, node) follow the same rule.
 */
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/paths.js";

/** Rooms and their floors; the first matching prefix wins. */
const ROOMS: [prefix: string, room: string, floor: number][] = [
  // The ground: small primitives held once (base), and Go's behaviours reproduced once (go), side by side.
  ["bindings/base/", "base", 0],
  ["bindings/go/", "go", 0],
  ["bindings/core/", "core", 1],
  ["bindings/store/", "store", 2],
  ["bindings/module/", "module", 3],
  ["bindings/services/", "services", 4],
  ["bindings/client/", "client", 4],
  ["bindings/abci/", "abci", 4],
  // The light client verifies what a node's RPC says, through the client's RPC transport.
  ["bindings/light/", "light", 5],
  ["bindings/apps/cli/", "cli", 6],
  ["bindings/apps/devnet/", "devnet", 6],
  ["bindings/apps/visor/", "visor", 6],
  ["bindings/apps/watch/", "watch", 6],
  ["bindings/", "entry", 7],
];

function roomOf(path: string): { room: string; floor: number } | undefined {
  const hit = ROOMS.find(([prefix]) => path.startsWith(prefix));
  return hit && { room: hit[1], floor: hit[2] };
}

interface Import {
  from: string;
  to: string;
  line: number;
  kind: "static" | "type" | "dynamic";
}

const STATIC = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']/;
const DYNAMIC = /import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** The relative imports of one source text (paths resolved from the repository root, `.js` → `.ts`). */
export function importsOf(file: string, text: string): Import[] {
  const out: Import[] = [];
  const resolve = (spec: string) => normalize(join(dirname(file), spec)).replace(/\.js$/, ".ts");
  // Joined multi-line import statements keep their first line's number.
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let stmt = lines[i];
    if (
      /^\s*(import|export)\b/.test(stmt) &&
      !/["'];?\s*$/.test(stmt) &&
      !/^\s*export\s+(const|function|class|interface|type\s+\w+\s*=|default|async|let|enum|abstract)/.test(stmt)
    ) {
      let j = i;
      while (j + 1 < lines.length && !/["'];?\s*$/.test(stmt)) stmt += " " + lines[++j];
    }
    const m = STATIC.exec(stmt);
    if (m) out.push({ from: file, to: resolve(m[3]), line: i + 1, kind: m[2] || /^\s*(import|export)\s+type\b/.test(stmt) ? "type" : "static" });
    for (const d of lines[i].matchAll(DYNAMIC)) out.push({ from: file, to: resolve(d[1]), line: i + 1, kind: "dynamic" });
  }
  return out;
}

/** Why an import breaks the floors, or undefined when it is allowed. */
export function violation(imp: Import): string | undefined {
  const a = roomOf(imp.from);
  const b = roomOf(imp.to);
  if (!a || !b || a.room === b.room) return undefined;
  const where = `${imp.from}:${imp.line} → ${imp.to}`;
  const lazyFromCli = a.room === "cli" && (b.room === "devnet" || b.room === "visor" || b.room === "watch");
  if (lazyFromCli) return imp.kind === "static" ? `${where}: the CLI reaches the ${b.room} only through import type + await import()` : undefined;
  if (b.floor > a.floor) return `${where}: ${a.room} (floor ${a.floor}) imports ${b.room}, a floor up (${b.floor})`;
  if (b.floor === a.floor) return `${where}: ${a.room} imports its sibling ${b.room} on the same floor`;
  return undefined;
}

const sources = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "bindings"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));

describe("floors", () => {
  it("every import in bindings/ points down a floor (or is the CLI's lazy import of a program)", () => {
    const problems = sources.flatMap((f) =>
      importsOf(f, readFileSync(join(ROOT, f), "utf8"))
        .map(violation)
        .filter((v): v is string => v !== undefined),
    );
    expect(problems).toEqual([]);
  });

  it("finds the imports it judges (a sample of each kind)", () => {
    const all = sources.flatMap((f) => importsOf(f, readFileSync(join(ROOT, f), "utf8")));
    expect(all.length).toBeGreaterThan(300);
    expect(all.some((i) => i.kind === "dynamic" && i.from.startsWith("bindings/apps/cli/") && i.to.startsWith("bindings/apps/visor/"))).toBe(true);
    expect(all.some((i) => i.kind === "type" && i.from.startsWith("bindings/apps/cli/") && i.to.startsWith("bindings/apps/devnet/"))).toBe(true);
  });

  it("would refuse an upward import, a sibling import and a static import between programs", () => {
    const text = [
      'import { startDevnet } from "../apps/devnet/node/start.js";',
      'import type { Core } from "../core/contract.js";',
      "import {",
      "  serveQueries,",
      '} from "../services/serve.js";',
    ].join("\n");
    expect(importsOf("bindings/module/keeper.ts", text).map(violation)).toEqual([
      "bindings/module/keeper.ts:1 → bindings/apps/devnet/node/start.ts: module (floor 3) imports devnet, a floor up (6)",
      undefined,
      "bindings/module/keeper.ts:3 → bindings/services/serve.ts: module (floor 3) imports services, a floor up (4)",
    ]);
    expect(violation({ from: "bindings/client/rpc.ts", to: "bindings/services/json.ts", line: 1, kind: "static" })).toMatch(/sibling services/);
    expect(violation({ from: "bindings/apps/visor/download/fetch.ts", to: "bindings/apps/cli/errors.ts", line: 1, kind: "static" })).toMatch(
      /visor imports its sibling cli on the same floor/,
    );
    expect(violation({ from: "bindings/client/rpc.ts", to: "bindings/light/client.ts", line: 1, kind: "static" })).toMatch(
      /client \(floor 4\) imports light, a floor up \(5\)/,
    );
    expect(violation({ from: "bindings/light/rpc-provider.ts", to: "bindings/client/rpc.ts", line: 1, kind: "static" })).toBeUndefined();
    expect(violation({ from: "bindings/apps/cli/commands/visor.ts", to: "bindings/apps/visor/run.ts", line: 1, kind: "static" })).toMatch(
      /only through import type/,
    );
    expect(violation({ from: "bindings/apps/cli/commands/visor.ts", to: "bindings/apps/visor/run.ts", line: 1, kind: "dynamic" })).toBeUndefined();
  });

  it("the devnet's rooms import downwards too: shared → modules → chain → rehearse → node → index.ts", () => {
    const DEVNET = "bindings/apps/devnet/";
    const order = ["shared", "modules", "chain", "rehearse", "node", "index.ts"];
    const roomIn = (path: string) => order.indexOf(path.slice(DEVNET.length).split("/")[0]);
    const files = sources.filter((f) => f.startsWith(DEVNET));
    expect(files.filter((f) => roomIn(f) < 0)).toEqual([]);
    const problems = files.flatMap((f) =>
      importsOf(f, readFileSync(join(ROOT, f), "utf8"))
        .filter((i) => i.to.startsWith(DEVNET) && roomIn(i.to) > roomIn(i.from))
        .map((i) => `${i.from}:${i.line} → ${i.to}: devnet/${order[roomIn(i.from)]} imports devnet/${order[roomIn(i.to)]}, a room up`),
    );
    expect(problems).toEqual([]);
  });

  it("the browser entry reaches no Node-only module (base/file.ts and the like stay out of its graph)", () => {
    const seen = new Set<string>();
    const nodeOnly: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const m of text.matchAll(/^\s*import\s+(?!type\b)[^"']*?["'](node:[^"']+)["']/gm)) nodeOnly.push(`${file} imports ${m[1]}`);
      for (const i of importsOf(file, text)) if (i.kind !== "type") visit(i.to);
    };
    visit("bindings/browser.ts");
    expect(seen.size).toBeGreaterThan(20);
    expect(nodeOnly).toEqual([]);
  });

  it("names every folder of bindings/ as a room", () => {
    const unknown = sources.filter((f) => roomOf(f)?.room === "entry" && relative("bindings", dirname(f)) !== "");
    expect(unknown).toEqual([]);
  });
});
